#!/usr/bin/env node
// Runs the fast test suite on Node 24, the current LTS, beside the Node that installed the project (Raspberry Pi
// OS Trixie's Node 20): `npm test` ends with it, `npm run test:node24` runs it alone.
//
//   node scripts/test-node24.mjs [--prepare | --check] [--cache=DIR] [test-run options and files...]
//
// 1. Node 24 itself: npm's `node-linux-<arch>` package (the official build, with its C headers), pinned below by
//    version and integrity, fetched once with `npm pack` into node_modules/.cache/hearth-node24/.
// 2. Native addons: npm ci built every addon that uses V8's own API (better-sqlite3; i2c-bus and epoll where
//    installed) for the installing Node, and Node 24 refuses a binary of another ABI (N-API prebuilds such as
//    serialport's load on both and are left alone). Each package with `build/Release/*.node` is copied and built
//    again with node-gyp against Node 24's own headers (`--nodedir`: npm's config may name the other Node's), kept
//    under the cache per Node version and package version, so it is built once and again only when either changes.
// 3. A check, before any test: under Node 24, every rebuilt binary loads through the hook and better-sqlite3 opens
//    a database. When one does not, the run stops here with one line naming it.
// 4. `scripts/test-run.mjs --fast --disable-coverage` under Node 24, Node 24 first on PATH, with
//    scripts/test-node24-hooks.mjs in NODE_OPTIONS: it hands the rebuilt binaries to every process of the run.
//    The project's tree, node_modules and production code are the same as in the Node 20 run.
//
// --prepare stops after step 3 (`npm test` prepares before its first suite, so a test of this runner finds Node
// 24 ready); --check does step 3 only and fails if anything is not prepared; --cache names another cache folder.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

/** The Node the suite also runs on: npm's node-linux-<arch> package, pinned by version and integrity. */
export const NODE24 = {
  version: '24.22.3',
  integrity: {
    x64: 'sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==',
    arm64: 'sha512-IZx0J52/1NDwAsY2iyWR9nlPIYuYviTWetjj8+ElvYQh2+XRhLfCfkbFEF/2O5vGI2hcUbyPNHV+nz342FbJXw==',
  },
};
export const DEFAULT_CACHE = join(root, 'node_modules/.cache/hearth-node24');
const COMPLETE = '.complete';

/** A reason the run cannot go on: printed as one line, exit 1. */
export class RunnerError extends Error {}

const firstLine = (text) =>
  String(text ?? '')
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l && !l.startsWith('at ') && !/^[\w/.-]+:\d+$/.test(l) && l !== '^') ?? '';

/** npm as the running npm would call it (npm sets npm_execpath for scripts), else the one on PATH. */
function npm(args, options) {
  const cli = process.env.npm_execpath;
  return cli && /npm-cli\.c?js$/.test(cli) ? spawnSync(process.execPath, [cli, ...args], options) : spawnSync('npm', args, options);
}

/** Node 24 in the cache, fetched and unpacked when missing: { version, dir, bin, abi }. */
export function ensureNode(cache = DEFAULT_CACHE, spec = NODE24) {
  const arch = process.arch;
  const integrity = spec.integrity[arch];
  if (process.platform !== 'linux' || !integrity) {
    throw new RunnerError(
      `no pinned Node ${spec.version} for ${process.platform}-${arch} (scripts/test-node24.mjs pins linux x64 and arm64)`,
    );
  }
  const dir = join(cache, `node-v${spec.version}-linux-${arch}`);
  const bin = join(dir, 'bin/node');
  if (!existsSync(join(dir, COMPLETE))) {
    mkdirSync(cache, { recursive: true });
    const work = mkdtempSync(join(cache, 'fetch-'));
    try {
      const name = `node-linux-${arch}@${spec.version}`;
      process.stderr.write(`test-node24: fetching ${name} from the npm registry\n`);
      const packed = npm(['pack', name, '--pack-destination', work, '--json'], { cwd: work, encoding: 'utf8' });
      if (packed.status !== 0) throw new RunnerError(`npm pack ${name} failed: ${firstLine(packed.stderr) || `exit ${packed.status}`}`);
      const [info] = JSON.parse(packed.stdout);
      if (info.integrity !== integrity) throw new RunnerError(`${name} has integrity ${info.integrity}, not the pinned ${integrity}`);
      const out = join(work, 'node');
      mkdirSync(out);
      const untar = spawnSync('tar', ['-xzf', join(work, info.filename), '-C', out, '--strip-components=1'], { encoding: 'utf8' });
      if (untar.status !== 0) throw new RunnerError(`unpacking ${info.filename} failed: ${firstLine(untar.stderr)}`);
      writeFileSync(join(out, COMPLETE), `${spec.version}\n`);
      rmSync(dir, { recursive: true, force: true });
      renameSync(out, dir);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  const ran = spawnSync(bin, ['-p', 'process.version + " " + process.versions.modules'], { encoding: 'utf8' });
  const [version, abi] = (ran.stdout ?? '').trim().split(' ');
  if (ran.status !== 0 || version !== `v${spec.version}`) {
    throw new RunnerError(
      `${bin} does not run as Node ${spec.version} (${firstLine(ran.stderr) || version}); delete ${dir} to fetch it again`,
    );
  }
  return { version: spec.version, dir, bin, abi };
}

/**
 * Every installed package whose addon was built from source at install time: a binding.gyp and `.node` files in
 * build/Release. Returns { name, version, dir, binaries } with the binaries' real paths.
 */
export function nativePackages(nodeModules = join(root, 'node_modules')) {
  const found = [];
  const visit = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory() || e.name.startsWith('.')) continue;
      const path = join(dir, e.name);
      if (e.name.startsWith('@')) {
        visit(path);
        continue;
      }
      const release = join(path, 'build/Release');
      if (existsSync(join(path, 'binding.gyp')) && existsSync(release)) {
        const binaries = readdirSync(release).filter((f) => f.endsWith('.node'));
        if (binaries.length > 0) {
          const pkg = JSON.parse(readFileSync(join(path, 'package.json'), 'utf8'));
          found.push({ name: pkg.name, version: pkg.version, dir: path, binaries: binaries.map((f) => realpathSync(join(release, f))) });
        }
      }
      if (existsSync(join(path, 'node_modules'))) visit(join(path, 'node_modules'));
    }
  };
  visit(nodeModules);
  return found.sort((a, b) => a.dir.localeCompare(b.dir));
}

const nativeRoot = (cache, node) => join(cache, `native-node-v${node.version}`);
/** Where a package's Node 24 build is kept: per Node version, per package name and version. */
export const buildDir = (cache, node, pkg) => join(nativeRoot(cache, node), `${pkg.name.replace('/', '+')}@${pkg.version}`);

/** node-gyp's arguments and environment for building for `node`: its own headers, whatever npm's config says. */
export function gypInvocation(node, env = process.env) {
  return {
    args: [require.resolve('node-gyp/bin/node-gyp.js'), 'rebuild', '--release', `--nodedir=${node.dir}`],
    env: { ...env, npm_config_nodedir: node.dir, PATH: `${dirname(node.bin)}${delimiter}${env.PATH ?? ''}` },
  };
}

/** Builds one package for `node` into `out` (a copy of its sources, without its build/), unless already there. */
export function buildNative(pkg, out, node, env = process.env) {
  if (existsSync(join(out, COMPLETE))) return out;
  mkdirSync(dirname(out), { recursive: true });
  const work = `${out}.${process.pid}.tmp`;
  rmSync(work, { recursive: true, force: true });
  cpSync(pkg.dir, work, { recursive: true, filter: (src) => relative(pkg.dir, src).split('/')[0] !== 'build' });
  process.stderr.write(`test-node24: building ${pkg.name}@${pkg.version} for Node ${node.version} (once)\n`);
  const gyp = gypInvocation(node, env);
  const built = spawnSync(node.bin, gyp.args, { cwd: work, env: gyp.env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (built.status !== 0) {
    writeFileSync(`${out}.log`, `${built.stdout}\n${built.stderr}`);
    throw new RunnerError(
      `building ${pkg.name}@${pkg.version} for Node ${node.version} failed (node-gyp exit ${built.status}; its output: ${out}.log)`,
    );
  }
  writeFileSync(
    join(work, COMPLETE),
    `${JSON.stringify({ package: pkg.name, version: pkg.version, node: node.version, nodedir: node.dir })}\n`,
  );
  rmSync(out, { recursive: true, force: true });
  renameSync(work, out);
  return out;
}

/** Each rebuilt binary by the path the package loads it from: what the hook hands out. */
export function nativeMap(pkgs, cache, node) {
  const map = {};
  for (const pkg of pkgs) {
    for (const from of pkg.binaries) map[from] = join(buildDir(cache, node, pkg), 'build/Release', from.split('/').at(-1));
  }
  return map;
}

/** The environment of a process of the Node 24 run. */
export function runEnv(node, map, env = process.env) {
  const hooks = pathToFileURL(join(root, 'scripts/test-node24-hooks.mjs')).href;
  return {
    ...env,
    PATH: `${dirname(node.bin)}${delimiter}${env.PATH ?? ''}`,
    NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --import=${hooks}`.trim(),
    HEARTH_TEST_NATIVES: JSON.stringify({ abi: node.abi, map }),
    npm_config_nodedir: node.dir,
    npm_node_execpath: node.bin,
    NODE: node.bin,
  };
}

/**
 * Under `node`, as the tests will: each rebuilt package loads by its main module (epoll and i2c-bus load their
 * addon there), and better-sqlite3 (whose addon loads with the first database) opens one.
 */
export function check(node, map, pkgs, cache = DEFAULT_CACHE) {
  const probe = `
    const failures = [];
    for (const [name, dir] of JSON.parse(process.argv[1])) {
      try {
        const main = require(dir);
        if (name === 'better-sqlite3') new main(':memory:').prepare('select 1').get();
      } catch (e) { failures.push(name + ': ' + e.message.replace(/\\s+/g, ' ').slice(0, 400)); }
    }
    process.stdout.write(JSON.stringify(failures));`;
  const loads = pkgs.map((p) => [p.name, p.dir]);
  // better-sqlite3 is checked even if it ever came as a prebuild rather than a build of its own
  if (!loads.some(([name]) => name === 'better-sqlite3'))
    loads.push(['better-sqlite3', dirname(require.resolve('better-sqlite3/package.json'))]);
  const list = JSON.stringify(loads);
  const ran = spawnSync(node.bin, ['-e', probe, list], { cwd: root, env: runEnv(node, map), encoding: 'utf8' });
  if (ran.status !== 0) throw new RunnerError(`the native-module check could not run under Node ${node.version}: ${firstLine(ran.stderr)}`);
  const failures = JSON.parse(ran.stdout);
  if (failures.length > 0) {
    const more = failures.length > 1 ? ` (and ${failures.length - 1} more)` : '';
    throw new RunnerError(
      `under Node ${node.version} (ABI ${node.abi}) ${failures[0]}${more}; delete ${nativeRoot(cache, node)} to rebuild`,
    );
  }
}

/** Steps 1–3: Node 24 and its builds of the native addons, checked. */
export function prepare(cache = DEFAULT_CACHE, { build = true } = {}) {
  const node = build ? ensureNode(cache) : existingNode(cache);
  const pkgs = nativePackages();
  for (const pkg of pkgs) {
    const out = buildDir(cache, node, pkg);
    if (build) buildNative(pkg, out, node);
    else if (!existsSync(join(out, COMPLETE)))
      throw new RunnerError(`${pkg.name}@${pkg.version} is not built for Node ${node.version}; run node scripts/test-node24.mjs --prepare`);
  }
  if (build) prune(cache, node, pkgs);
  const map = nativeMap(pkgs, cache, node);
  check(node, map, pkgs, cache);
  return { node, pkgs, map };
}

function existingNode(cache) {
  if (!existsSync(join(cache, `node-v${NODE24.version}-linux-${process.arch}`, COMPLETE))) {
    throw new RunnerError(`Node ${NODE24.version} is not in ${cache}; run node scripts/test-node24.mjs --prepare`);
  }
  return ensureNode(cache);
}

/** Drops builds for other Node or package versions. */
function prune(cache, node, pkgs) {
  const keep = new Set(pkgs.map((p) => buildDir(cache, node, p)));
  for (const e of readdirSync(cache)) {
    const path = join(cache, e);
    if (e.startsWith('native-node-v') && path !== nativeRoot(cache, node)) rmSync(path, { recursive: true, force: true });
    if (e.startsWith('node-v') && e !== `node-v${node.version}-linux-${process.arch}`) rmSync(path, { recursive: true, force: true });
  }
  if (!existsSync(nativeRoot(cache, node))) return;
  for (const e of readdirSync(nativeRoot(cache, node))) {
    const path = join(nativeRoot(cache, node), e);
    if (!keep.has(path) && !e.endsWith('.log')) rmSync(path, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const cache = args.find((a) => a.startsWith('--cache='))?.slice('--cache='.length) ?? DEFAULT_CACHE;
  const rest = args.filter((a) => a !== '--prepare' && a !== '--check' && !a.startsWith('--cache='));
  try {
    const { node, pkgs, map } = prepare(cache, { build: !args.includes('--check') });
    const names = pkgs.map((p) => `${p.name}@${p.version}`).join(', ') || 'none';
    process.stdout.write(`test-node24: Node ${node.version} (ABI ${node.abi}, headers ${node.dir}); built for it: ${names}\n`);
    if (args.includes('--prepare') || args.includes('--check')) process.exit(0);
    const run = spawnSync(node.bin, [join(root, 'scripts/test-run.mjs'), '--fast', '--disable-coverage', ...rest], {
      cwd: root,
      stdio: 'inherit',
      env: runEnv(node, map),
    });
    process.exit(run.status ?? 1);
  } catch (error) {
    if (!(error instanceof RunnerError)) throw error;
    process.stderr.write(`test-node24: ${error.message}\n`);
    process.exit(1);
  }
}
