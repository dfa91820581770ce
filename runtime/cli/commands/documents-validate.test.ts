import { readFileSync } from 'node:fs';
import t from 'tap';
import { runCli, scratchFiles } from '../../../test-support/cli.js';
import { detectType } from './documents-check.js';

const { file } = scratchFiles(t, 'hearth-check-');
const koshari = 'examples/recipes/koshari.svc.json';
const fryerLimits = 'examples/limits/demo-fryer.limits.json';

t.test('validate: valid documents, and issues with JSON pointers', async (t) => {
  const ok = await runCli(['validate', koshari]);
  t.same([ok.code, ok.stdout.trim()], [0, `valid recipe: ${koshari}`]);
  t.equal((await runCli(['validate', fryerLimits])).code, 0);
  const recipe = JSON.parse(readFileSync(koshari, 'utf8')) as { process: { nodes: { params?: Record<string, unknown> }[] } } & Record<
    string,
    unknown
  >;
  const n14 = recipe.process.nodes[13];
  if (n14?.params) n14.params.oilTempC = '185';
  recipe.surprise = 1;
  const bad = await runCli(['validate', file('bad-recipe.json', recipe), '--json']);
  t.equal(bad.code, 1);
  const result = JSON.parse(bad.stdout) as { valid: boolean; issues: { code: string; path: string }[] };
  t.equal(result.valid, false);
  t.same(
    result.issues.map((i) => [i.code, i.path]),
    [
      ['schema', '/surprise'],
      ['semantics', '/process/nodes/13/params/oilTempC'],
      ['hash', '/hash'],
    ],
  );
  const text = await runCli(['validate', file('bad-recipe2.json', recipe)]);
  t.match(text.stdout, /invalid recipe: .* \(3 issues\)/);
  t.match(text.stdout, /\/process\/nodes\/13\/params\/oilTempC\s+semantics\s+params\.oilTempC must be a number of °C, not "185"/);
  const asReg = await runCli(['validate', file('entry.json', { kind: 'device', url: 'https://e.org/x.json', version: '^1' }), '--json']);
  t.same(
    JSON.parse(asReg.stdout).issues.map((i: { path: string }) => i.path),
    ['/version'],
  );
  const forced = await runCli(['validate', koshari, '--as', 'capabilities']);
  t.equal(forced.code, 1);
});

t.test('validate: undetectable documents and bad --as are usage errors', async (t) => {
  const r = await runCli(['validate', file('mystery.json', { hello: 'world' })]);
  t.equal(r.code, 2);
  t.match(r.stderr, /cannot tell what kind of document/);
  const a = await runCli(['validate', koshari, '--as', 'poem']);
  t.equal(a.code, 2);
  t.match(a.stderr, /unknown document type poem/);
});

t.test('detectType', async (t) => {
  t.equal(detectType({ process: {} }), 'recipe');
  t.equal(detectType({ kind: 'SafetyLimits' }), 'safety-limits');
  t.equal(detectType({ kind: 'ExecuteRequest' }), 'execute-request');
  t.equal(detectType({ capabilities: {} }), 'capabilities');
  t.equal(detectType({ kind: 'catalog', url: 'x' }), 'registry-entry');
  t.equal(detectType({ type: 'x', title: 'y' }), 'problem');
  t.equal(detectType([]), undefined);
});
