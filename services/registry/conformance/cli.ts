/**
 * `npm run registry:conformance -- --base-url URL --token T --namespace NS`: run every registry conformance
 * check against a running registry; one line per check, then `N passed, N failed`. Exit 1 on any failure,
 * 2 on bad arguments.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { checks } from './checks.js';
import { runChecks } from './run.js';

export async function main(argv: string[]): Promise<number> {
  let values: { 'base-url'?: string; token?: string; namespace?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { 'base-url': { type: 'string' }, token: { type: 'string' }, namespace: { type: 'string' }, help: { type: 'boolean' } },
    }));
  } catch (err) {
    process.stderr.write(`registry-conformance: ${(err as Error).message}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write('usage: registry:conformance --base-url URL --token PUBLISH_TOKEN --namespace NS\n');
    return 0;
  }
  const { 'base-url': baseUrl, token, namespace } = values;
  if (!baseUrl || !token || !namespace) {
    process.stderr.write('registry-conformance: --base-url, --token and --namespace are required\n');
    return 2;
  }
  if (!/^https?:\/\//.test(baseUrl)) {
    process.stderr.write('registry-conformance: --base-url must be an http(s) URL\n');
    return 2;
  }
  const { passed, failed } = await runChecks({ baseUrl, token, namespace, log: (l) => process.stdout.write(`${l}\n`) }, checks);
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  return failed > 0 ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
