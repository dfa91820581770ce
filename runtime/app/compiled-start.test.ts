// @slow: starts a hub as a process (npm run test:fast skips this file; npm test runs it)
/**
 * The compiled build, as `npm start` and the systemd unit run it: `npm run build` (skipped when dist/ is already
 * fresh, as `npm ci` leaves it), then `node bin/hearth.mjs start`. Everything a user needs at run time (the dashboard's page files, schemas, examples) must be found
 * from dist/, and the bin must use dist/ once it is fresh.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { distIsFresh, repoRoot } from '../../test-support/cli.js';

/** The build's own inputs besides the sources distIsFresh() looks at: a change to them also calls for a rebuild. */
const BUILD_INPUTS = [
  'package.json',
  'tsconfig.build.json',
  'scripts/build-validators.mjs',
  'scripts/build-route-validators.mjs',
  'scripts/build-bundle.mjs',
];

/** dist/ built after every source and build script (`npm ci` builds it through prepare): no need to build again. */
function buildIsFresh(): boolean {
  if (!distIsFresh()) return false;
  const built = statSync(join(repoRoot, 'dist/.built')).mtimeMs;
  return BUILD_INPUTS.every((f) => !existsSync(join(repoRoot, f)) || statSync(join(repoRoot, f)).mtimeMs <= built);
}

t.test('npm run build, then node bin/hearth.mjs start serves the API and the dashboard from dist/ (bundled)', async (t) => {
  if (buildIsFresh()) {
    t.pass('dist/ is already built after every source and build script: npm run build skipped (it would make the same)');
  } else {
    const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: repoRoot, encoding: 'utf8', timeout: 180_000 });
    t.equal(build.status, 0, `dist/ was stale: npm run build succeeds\n${build.stdout}${build.stderr}`);
  }

  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-compiled-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const child = spawn(
    process.execPath,
    ['bin/hearth.mjs', 'start', '--http-port', '0', '--data-dir', dataDir, '--sim-speed', 'manual', '--log-level', 'warn'],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HEARTH_CODE_CACHE_REPORT: '1' } },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line in 60 s:\n${out}`)), 60_000);
    const check = () => {
      const m = out.match(/hearth ready (http:\/\/127\.0\.0\.1:\d+)\n/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before ready:\n${out}`));
    });
  });
  t.notMatch(out, /older than the sources/, 'the fresh build runs from dist/, not from the sources');
  // scripts/build-bundle.mjs: one bundled file, with the V8 code cache its warm-up start recorded, which V8 takes.
  t.match(out, /hearth: code cache used\n/, 'the bundle runs with the code cache the build recorded');

  const page = await fetch(`${url}/`);
  t.equal(page.status, 200, 'the dashboard page is served');
  t.match(page.headers.get('content-type') ?? '', /text\/html/);
  t.match(await page.text(), /<html/i);
  const script = await fetch(`${url}/dashboard/app.js`);
  t.equal(script.status, 200, 'its script is served');
  const caps = await fetch(`${url}/v1/capabilities`);
  t.equal(caps.status, 200, 'the Core API answers');

  child.kill('SIGTERM');
  t.equal(await exited, 0, 'SIGTERM: heat off, store closed, exit 0');
});
