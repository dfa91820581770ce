/**
 * The Node 24 runner (scripts/test-node24.mjs): it builds native addons against Node 24's own headers whatever
 * npm's `nodedir` says, and it refuses to run a single test when better-sqlite3 does not load under Node 24.
 * `npm test` and `npm run test:fast` prepare Node 24 (`--prepare`) before their suites, so it is ready here.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from 'tap';
import { repoRoot, scratchFiles } from '../test-support/cli.js';
// @ts-expect-error: a plain .mjs script without type declarations
import * as runner from './test-node24.mjs';

type Node = { version: string; dir: string; bin: string; abi: string };
type Pkg = { name: string; version: string; dir: string; binaries: string[] };
type Runner = {
  NODE24: { version: string };
  DEFAULT_CACHE: string;
  ensureNode(cache?: string): Node;
  nativePackages(): Pkg[];
  buildDir(cache: string, node: Node, pkg: Pkg): string;
  buildNative(pkg: Pkg, out: string, node: Node, env?: NodeJS.ProcessEnv): string;
  runEnv(node: Node, map: Record<string, string>, env?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
};
const r = runner as Runner;
const node = r.ensureNode();
/** The environment without tap's own variables, so a tap started inside is a plain run. */
const plainEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^_?TAP/.test(k)));

// An addon on V8's own API (as better-sqlite3, i2c-bus and epoll are), not N-API: it loads only under the Node
// whose headers it was built with, and says which ABI that was.
const ADDON = `#include <node.h>
static void Init(v8::Local<v8::Object> exports) {
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  exports->Set(isolate->GetCurrentContext(), v8::String::NewFromUtf8(isolate, "abi").ToLocalChecked(),
               v8::Integer::New(isolate, NODE_MODULE_VERSION)).Check();
}
NODE_MODULE(NODE_GYP_MODULE_NAME, Init)
`;

/** Headers of a Node that is not Node 24: the one running this test when it is another (npm's nodedir here). */
function otherHeaders(scratch: string): string {
  const mine = dirname(dirname(process.execPath));
  if (process.versions.modules !== node.abi && existsSync(join(mine, 'include/node/node_version.h'))) return mine;
  // under Node 24 itself: a nodedir with no headers at all, which node-gyp cannot build against
  mkdirSync(join(scratch, 'no-headers'), { recursive: true });
  return join(scratch, 'no-headers');
}

t.test("an addon is built against Node 24's own headers, whatever npm's nodedir names", (t) => {
  const { dir } = scratchFiles(t, 'hearth-node24-addon-');
  const src = join(dir, 'abi-probe');
  mkdirSync(src);
  writeFileSync(join(src, 'package.json'), JSON.stringify({ name: 'abi-probe', version: '1.0.0' }));
  writeFileSync(join(src, 'binding.gyp'), JSON.stringify({ targets: [{ target_name: 'abi', sources: ['abi.cc'] }] }));
  writeFileSync(join(src, 'abi.cc'), ADDON);
  const decoy = otherHeaders(dir);
  const pkg = { name: 'abi-probe', version: '1.0.0', dir: src, binaries: [] };
  const out = r.buildNative(pkg, join(dir, 'built'), node, { ...plainEnv(), npm_config_nodedir: decoy });
  const binary = join(out, 'build/Release/abi.node');
  const loaded = spawnSync(node.bin, ['-p', `require(${JSON.stringify(binary)}).abi`], { encoding: 'utf8' });
  t.equal(loaded.stderr, '', 'Node 24 loads it');
  t.equal(loaded.stdout.trim(), node.abi, `it was built for ABI ${node.abi}, Node ${node.version}'s`);
  t.match(readFileSync(join(out, '.complete'), 'utf8'), JSON.stringify(node.dir), "its record names Node 24's own headers");
  if (process.versions.modules !== node.abi) {
    const here = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(binary)})`], { encoding: 'utf8' });
    t.match(here.stderr, /NODE_MODULE_VERSION/, `Node ${process.version} refuses it: the build is not for the Node that ran npm`);
  }
  t.end();
});

t.test('the prepared cache passes the check: every rebuilt addon loads under Node 24', (t) => {
  const ran = spawnSync(process.execPath, [join(repoRoot, 'scripts/test-node24.mjs'), '--check'], { encoding: 'utf8', env: plainEnv() });
  t.equal(ran.status, 0, `--check passes (${ran.stderr.trim()})`);
  t.match(ran.stdout, new RegExp(`Node ${node.version} \\(ABI ${node.abi}, headers .*\\); built for it: .*better-sqlite3@`));
  t.end();
});

t.test('with a better-sqlite3 binary of the wrong ABI, the runner refuses before running any test', (t) => {
  const { dir } = scratchFiles(t, 'hearth-node24-cache-');
  symlinkSync(node.dir, join(dir, node.dir.split('/').at(-1) ?? ''));
  const pkgs = r.nativePackages();
  t.ok(
    pkgs.some((p) => p.name === 'better-sqlite3'),
    'better-sqlite3 is among the addons built at install time',
  );
  for (const pkg of pkgs) {
    // each "build" is the binary npm ci made for the installing Node, not for Node 24
    const out = r.buildDir(dir, node, pkg);
    mkdirSync(join(out, 'build/Release'), { recursive: true });
    for (const from of pkg.binaries) copyFileSync(from, join(out, 'build/Release', from.split('/').at(-1) ?? ''));
    writeFileSync(join(out, '.complete'), '{}\n');
  }
  // one small test file: without the check, the runner would run it and pass
  const ran = spawnSync(process.execPath, [join(repoRoot, 'scripts/test-node24.mjs'), `--cache=${dir}`, 'core/random.test.ts'], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: plainEnv(),
  });
  t.equal(ran.status, 1, 'the runner exits 1');
  const lines = ran.stderr.trim().split('\n');
  t.equal(lines.length, 1, `one line on stderr: ${ran.stderr}`);
  t.match(
    lines[0],
    /^test-node24: under Node [\d.]+ \(ABI \d+\) better-sqlite3: .*NODE_MODULE_VERSION/,
    'it names better-sqlite3 and the ABI',
  );
  t.notMatch(ran.stdout, /# Subtest|test-run:/, 'no test ran');
  t.end();
});

t.test('the run puts Node 24 first on PATH and the native-module hook in every process', (t) => {
  const env = r.runEnv(
    node,
    { '/a.node': '/b.node' },
    { PATH: '/usr/bin', NODE_OPTIONS: '--enable-source-maps', npm_config_nodedir: '/usr' },
  );
  t.equal(env.PATH, `${dirname(node.bin)}:/usr/bin`);
  t.match(env.NODE_OPTIONS ?? '', /^--enable-source-maps --import=file:\/\/.*\/scripts\/test-node24-hooks\.mjs$/);
  t.same(JSON.parse(env.HEARTH_TEST_NATIVES ?? ''), { abi: node.abi, map: { '/a.node': '/b.node' } });
  t.equal(env.npm_config_nodedir, node.dir, "anything built during the run is built for Node 24's headers");
  t.end();
});
