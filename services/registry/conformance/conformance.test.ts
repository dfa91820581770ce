/**
 * The conformance suite against a freshly started registry: every check passes, in-process and through the
 * npm script's entry point; and against something that is not a registry, it fails loudly (exit 1).
 */
import t from 'tap';
import { runScript } from '../../../test-support/cli.js';
import { startHarness } from '../testing/fixtures.js';
import { startTestWebServer } from '../testing/web-server.js';
import { checks } from './checks.js';
import { runChecks } from './run.js';

const conformance = (args: string[]) => runScript('services/registry/conformance/cli.ts', args);

t.test('every check passes against a fresh registry', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.close());
  const token = await h.prove('org.example');
  const lines: string[] = [];
  const result = await runChecks({ baseUrl: h.url, token, namespace: 'org.example', log: (l) => lines.push(l) }, checks);
  t.equal(result.failed, 0, lines.filter((l) => l.startsWith('FAIL')).join('\n'));
  t.equal(result.passed, checks.length);
  t.ok(checks.length >= 30, 'the suite covers every endpoint and rule');

  const script = await conformance(['--base-url', h.url, '--token', token, '--namespace', 'org.example']);
  t.equal(script.code, 0, script.stdout + script.stderr);
  const out = script.stdout.trim().split('\n');
  t.equal(out.length, checks.length + 1, 'one line per check and a closing line');
  t.equal(out.at(-1), `${checks.length} passed, 0 failed`);
  t.ok(out.slice(0, -1).every((l) => l.startsWith('ok   ')));
});

t.test('a token for another namespace makes the publishing checks fail', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.close());
  const token = await h.prove('org.other');
  const result = await runChecks({ baseUrl: h.url, token, namespace: 'org.example' }, checks);
  t.ok(result.failed > 5, `failed ${result.failed}`);
  t.match(
    result.results.find((r) => r.name.startsWith('publish is 201')),
    { ok: false, reason: /expected status 201, got 422 .*(namespace_unproven|publish token does not cover)/ },
  );
});

t.test('the script fails against something that is not a registry, and refuses bad arguments', async (t) => {
  const web = await startTestWebServer();
  t.teardown(() => web.close());
  const r = await conformance(['--base-url', web.base, '--token', 'x', '--namespace', 'org.example']);
  t.equal(r.code, 1);
  t.match(r.stdout, /^FAIL GET \/v1\/registry.json is a registry document/m);
  t.match(r.stdout, new RegExp(`\\n0 passed, ${checks.length} failed\\n$`));
  const bad = await conformance(['--token', 'x']);
  t.equal(bad.code, 2);
  t.equal(bad.stderr, 'registry-conformance: --base-url, --token and --namespace are required\n');
});
