import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCli } from '../../../test-support/cli.js';
import { detectType } from './documents-check.js';

const dir = mkdtempSync(join(tmpdir(), 'hearth-check-'));
const file = (name: string, body: unknown) => {
  const p = join(dir, name);
  writeFileSync(p, typeof body === 'string' ? body : JSON.stringify(body));
  return p;
};
const koshari = 'examples/recipes/koshari.svc.json';
const fryer = 'examples/devices/demo-fryer-robot.json';
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

t.test('dry-run: koshari on the demo fryer', async (t) => {
  const alone = await runCli(['dry-run', koshari, '--device', fryer]);
  t.equal(alone.code, 1);
  t.match(alone.stdout, /refused: needs_human_present at n7: cw\.op\.heat may not run unattended/);
  const withPerson = await runCli(['dry-run', koshari, '--device', fryer, '--human-present', '--limits', fryerLimits]);
  t.equal(withPerson.code, 0, withPerson.stderr);
  t.match(withPerson.stdout, /step\s+op\s+band\s+target\s+who\s+verified by/);
  t.match(withPerson.stdout, /n14\s+cw\.op\.deep_fry\s+160–190 °C\s+175 °C\s+device\s+sensor cw\.sense\.oil_temp/);
  t.match(withPerson.stdout, /accepted: 20 steps/);
  const j = await runCli(['dry-run', koshari, '--device', fryer, '--human-present', '--no-model', '--json']);
  const result = JSON.parse(j.stdout) as { state: string; plan: { by: string }[] };
  t.equal(result.state, 'accepted');
  t.equal(result.plan.length, 20);
  // The device's own stricter limits win over the recipe's 175 °C deep fry.
  const tight = JSON.parse(readFileSync(fryerLimits, 'utf8')) as { limits: { max?: number }[] };
  tight.limits[0] = { ...tight.limits[0], max: 170 };
  const lim = await runCli(['dry-run', koshari, '--device', fryer, '--human-present', '--limits', file('tight.json', tight), '--json']);
  t.equal(lim.code, 1);
  t.same([JSON.parse(lim.stdout).refusal.reason, JSON.parse(lim.stdout).refusal.node], ['safety_limit', 'n14']);
  // No oil thermometer: never deep-fries, even with a person.
  const basic = await runCli(['dry-run', koshari, '--device', 'examples/devices/demo-hob-robot-basic.json', '--human-present']);
  t.match(basic.stdout, /refused: missing_sensor_no_fallback at n14/);
});

t.test('dry-run: bad inputs are one line and exit 2', async (t) => {
  const cases: [string[], RegExp][] = [
    [['dry-run', join(dir, 'none.json'), '--device', fryer], /cannot read recipe/],
    [['dry-run', koshari, '--device', file('notjson.json', 'nope')], /capabilities document .* is not valid JSON/],
    [
      ['dry-run', file('schema-bad.json', { svc: '0.2.0', id: 'x1', revision: 1, process: { nodes: [] } }), '--device', fryer],
      /is not a valid recipe: \/process\/nodes: /,
    ],
    [['dry-run', koshari, '--device', koshari], /is not a valid capabilities document/],
    [
      ['dry-run', koshari, '--device', fryer, '--limits', file('badlimits.json', { kind: 'SafetyLimits', limits: [] })],
      /is not a valid SafetyLimits pack/,
    ],
    [['dry-run', koshari, '--device', fryer, '--now', 'tomorrow'], /--now tomorrow/],
    [['dry-run', koshari], /required option '--device <file>'/],
  ];
  for (const [args, re] of cases) {
    const r = await runCli(args);
    t.equal(r.code, args.length === 2 ? 1 : 2, args.join(' '));
    t.match(r.stderr, re, args.join(' '));
    t.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
});

t.test('check-temperature', async (t) => {
  const simmer = file('simmer.json', [
    { t: 0, tempC: 40 },
    { t: 30, tempC: 88 },
    { t: 60, tempC: 94 },
    { t: 90, tempC: 95 },
  ]);
  const ok = await runCli(['check-temperature', '--op', 'cw.op.simmer', '--trace', simmer, '--target', '94', '--tolerance', '2']);
  t.same([ok.code, ok.stdout.trim()], [0, 'ok: cw.op.simmer (band 85–96 °C), envelope kept, target met, 4 readings']);
  const boils = file('boils.json', {
    readings: [
      { t: 0, tempC: 90 },
      { t: 30, tempC: 99 },
    ],
  });
  const b = await runCli(['check-temperature', '--op', 'cw.op.simmer', '--trace', boils, '--json']);
  t.equal(b.code, 1);
  t.same(JSON.parse(b.stdout), { envelopeOk: false, targetOk: null, reason: 'left_envelope' });
  const high = file('high.json', [{ t: 0, tempC: 93 }]);
  const alt = await runCli(['check-temperature', '--op', 'cw.op.boil', '--trace', high, '--altitude', '2400', '--json']);
  t.same([alt.code, JSON.parse(alt.stdout).reason], [0, 'ok']);
  const bad: [string[], RegExp][] = [
    [['check-temperature', '--op', 'cw.op.nope', '--trace', simmer], /unknown operation cw\.op\.nope/],
    [
      ['check-temperature', '--op', 'cw.op.simmer', '--trace', file('strtemp.json', [{ t: 0, tempC: '90' }])],
      /reading 0 must be \{t, tempC\}/,
    ],
    [
      ['check-temperature', '--op', 'cw.op.simmer', '--trace', simmer, '--target', 'hot', '--tolerance', '2'],
      /--target hot is not a number/,
    ],
    [['check-temperature', '--op', 'cw.op.simmer', '--trace', simmer, '--target', '90'], /--target and --tolerance go together/],
    [['check-temperature', '--op', 'cw.op.simmer', '--trace', file('obj.json', { a: 1 })], /must hold an array/],
  ];
  for (const [args, re] of bad) {
    const r = await runCli(args);
    t.equal(r.code, 2, args.join(' '));
    t.match(r.stderr, re);
  }
});
