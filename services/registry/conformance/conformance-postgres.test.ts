// @slow: starts PostgreSQL (npm run test:fast skips this file; npm test runs it)
/**
 * The registry conformance suite against a registry whose store is PostgreSQL (a throwaway cluster): every
 * check passes there as it does on SQLite (conformance.test.ts), through the npm script's entry point too.
 */
import t from 'tap';
import { runScript } from '../../../test-support/cli.js';
import { postgresMissing, startPostgres } from '../../../test-support/postgres.js';
import { startHarness } from '../testing/fixtures.js';
import { checks } from './checks.js';
import { runChecks } from './run.js';

const missing = postgresMissing();
if (missing) console.log(`# skipping the registry conformance run on PostgreSQL: ${missing}`);

t.test('every check passes against a registry on PostgreSQL', { skip: missing ?? false }, async (t) => {
  const pg = await startPostgres();
  t.teardown(() => pg.stop());
  const h = await startHarness({ db: await pg.createDatabase('conformance') });
  t.teardown(() => h.close());
  t.equal(h.reg.store.constructor.name, 'PgRegistryStore');
  const token = await h.prove('org.example');
  const lines: string[] = [];
  const result = await runChecks({ baseUrl: h.url, token, namespace: 'org.example', log: (l) => lines.push(l) }, checks);
  t.equal(result.failed, 0, lines.filter((l) => l.startsWith('FAIL')).join('\n'));
  t.equal(result.passed, checks.length);

  const script = await runScript('services/registry/conformance/cli.ts', [
    '--base-url',
    h.url,
    '--token',
    token,
    '--namespace',
    'org.example',
  ]);
  t.equal(script.code, 0, script.stdout + script.stderr);
  t.equal(script.stdout.trim().split('\n').at(-1), `${checks.length} passed, 0 failed`);
});
