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
import { checkMcpErrorCodes, mcpPost } from '../../test-support/mcp-errors.js';

/** The build's own inputs besides the sources distIsFresh() looks at: a change to them also calls for a rebuild. */
const BUILD_INPUTS = [
  'package.json',
  'tsconfig.build.json',
  'scripts/build-validators.mjs',
  'scripts/build-route-validators.mjs',
  'scripts/build-bundle.mjs',
  'scripts/build-vendor.mjs',
  'scripts/bundle-entry.mjs',
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
  const created = spawnSync(process.execPath, ['bin/hearth.mjs', 'token', 'create', '--scopes', 'read', '--json', '--data-dir', dataDir], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  t.equal(created.status, 0, `hearth token create\n${created.stderr}`);
  const token = (JSON.parse(created.stdout) as { token: string }).token;
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
  // MCP from the build: the SDK and zod come from one bundled file (scripts/build-vendor.mjs), and speak as they do
  // from node_modules (the same error codes and version negotiation the source tree's tests check).
  await checkMcpErrorCodes(t, `${url}/svc/v1/mcp`, { authorization: `Bearer ${token}` });
  const listed = await mcpPost(
    `${url}/svc/v1/mcp`,
    { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} },
    { authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-06-18' },
  );
  const tools = (listed.messages[0] as { result?: { tools?: { name: string }[] } }).result?.tools ?? [];
  t.ok(
    tools.some((x) => x.name === 'search_recipes'),
    `tools/list answers the hub's tools (${tools.length})`,
  );

  child.kill('SIGTERM');
  t.equal(await exited, 0, 'SIGTERM: heat off, store closed, exit 0');
});

t.test('the build reads the MCP SDK and zod from its one bundled file, none of their modules from node_modules', async (t) => {
  if (!buildIsFresh()) {
    const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: repoRoot, encoding: 'utf8', timeout: 180_000 });
    t.equal(build.status, 0, `npm run build\n${build.stdout}${build.stderr}`);
  }
  const probe = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { createRequire } from 'node:module';
       const m = await import('./dist/platform/vendor/mcp-server.js');
       const loaded = Object.keys(createRequire(import.meta.url).cache);
       console.log(JSON.stringify({ names: Object.keys(m), loaded }));`,
    ],
    { cwd: repoRoot, encoding: 'utf8' },
  );
  t.equal(probe.status, 0, probe.stderr);
  const { names, loaded } = JSON.parse(probe.stdout) as { names: string[]; loaded: string[] };
  t.ok(names.includes('McpServer') && names.includes('createMcpHandler'), 'the names platform/vendor/mcp-server.ts exports');
  t.ok(
    loaded.some((f) => f.endsWith(join('dist', 'vendor', 'mcp-server.cjs'))),
    'read from dist/vendor/mcp-server.cjs',
  );
  t.same(
    loaded.filter((f) => /node_modules[\\/](@modelcontextprotocol|zod)[\\/]/.test(f)),
    [],
    'nothing of the SDK or zod from node_modules',
  );
});
