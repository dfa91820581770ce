// The native side of a release (scripts/release.mjs): a Node.js distribution for the target architecture from
// npm's `node-linux-<arch>` package (its headers build add-ons; its `node` runs the release under emulation in the
// tests), and each add-on compiled for that architecture and Node ABI with node-gyp, cross-compiled with Debian's
// g++-aarch64-linux-gnu for arm64. Both are kept under node_modules/.cache/hearth-release (HEARTH_RELEASE_CACHE
// elsewhere), keyed by package, version, architecture and ABI, so a second release or test run rebuilds nothing.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** The Node.js releases a release's add-ons are built against, by major: the oldest each supported line allows. */
export const NODE_TARGETS = { 20: '20.19.0', 22: '22.13.1' };

export const cacheRoot = (root) => process.env.HEARTH_RELEASE_CACHE ?? join(root, 'node_modules/.cache/hearth-release');

const hostArch = process.arch;

function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(Object.assign(new Error(`${cmd} exited ${code}`), { output: out }))));
  });
}

/** Fetch `name@version` from the npm registry with npm itself and unpack it into `dest` (its `package/`). */
export async function npmFetch(name, version, dest) {
  if (existsSync(join(dest, 'package.json'))) return dest;
  await mkdir(dirname(dest), { recursive: true });
  const tmp = await mkdtemp(`${dest}.tmp-`);
  try {
    const out = await run('npm', ['pack', `${name}@${version}`, '--silent', '--pack-destination', tmp], { cwd: tmp }).catch((err) => {
      throw new Error(
        `npm could not fetch ${name}@${version}: ${String(err.output ?? err.message)
          .trim()
          .split('\n')
          .pop()}`,
      );
    });
    const tgz = join(tmp, out.trim().split('\n').pop());
    await run('tar', ['-xzf', tgz, '-C', tmp]);
    await rm(dest, { recursive: true, force: true });
    await rename(join(tmp, 'package'), dest);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return dest;
}

/** The Node.js distribution (bin/node, include/node) of `major` for `arch`, fetched once. */
export async function nodeDist(cache, arch, major) {
  const version = NODE_TARGETS[major];
  if (!version) throw new Error(`no Node.js ${major} target (supported: ${Object.keys(NODE_TARGETS).join(', ')})`);
  const dir = await npmFetch(`node-linux-${arch}`, version, join(cache, 'node', `node-linux-${arch}-${version}`));
  const header = await readFile(join(dir, 'include/node/node_version.h'), 'utf8');
  const abi = /#define NODE_MODULE_VERSION (\d+)/.exec(header)?.[1];
  if (!abi) throw new Error(`${dir}: no NODE_MODULE_VERSION in its headers`);
  return { dir, version, major: Number(major), abi, node: join(dir, 'bin/node') };
}

/** Where npm's node-gyp is: the project's copy, else the one npm ships with. */
function nodeGyp(root) {
  const candidates = [join(root, 'node_modules/node-gyp/bin/node-gyp.js')];
  if (process.env.npm_execpath) candidates.push(join(dirname(process.env.npm_execpath), '../node_modules/node-gyp/bin/node-gyp.js'));
  const npm = spawnSync('sh', ['-c', 'readlink -f "$(command -v npm)"'], { encoding: 'utf8' }).stdout.trim();
  if (npm) candidates.push(join(dirname(npm), '../node_modules/node-gyp/bin/node-gyp.js'));
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new Error('node-gyp not found (it comes with npm)');
  return found;
}

/** The compilers for `arch`: the host's own, or Debian's cross toolchain for arm64 on another machine. */
function compilerEnv(arch) {
  if (arch === hostArch) return {};
  if (arch !== 'arm64') throw new Error(`cannot cross-compile for ${arch} on ${hostArch}`);
  if (spawnSync('sh', ['-c', 'command -v aarch64-linux-gnu-g++'], { stdio: 'ignore' }).status !== 0)
    throw new Error("aarch64-linux-gnu-g++ is missing: install Debian's g++-aarch64-linux-gnu to build arm64 add-ons");
  return {
    CC: 'aarch64-linux-gnu-gcc',
    CXX: 'aarch64-linux-gnu-g++',
    LINK: 'aarch64-linux-gnu-g++',
    AR: 'aarch64-linux-gnu-ar',
    STRIP: 'aarch64-linux-gnu-strip',
  };
}

/**
 * The add-on files (`*.node`, tests' own left out) of the package at `pkgDir` built for `arch` and `dist`'s ABI:
 * from the cache, or compiled now in a scratch copy of the package. Returns the directory holding them.
 */
export async function buildAddon({ root, cache, pkgDir, name, version, arch, dist, log = () => {} }) {
  const out = join(cache, 'native', `${name.replace('/', '+')}@${version}`, `node-v${dist.abi}-linux-${arch}`);
  if (existsSync(join(out, '.done'))) return out;
  const env = { ...process.env, ...compilerEnv(arch) };
  for (const k of Object.keys(env)) if (/^npm_config_(nodedir|arch|target|target_arch|runtime|build_from_source)$/i.test(k)) delete env[k];
  await mkdir(join(cache, 'work'), { recursive: true });
  const work = await mkdtemp(join(cache, 'work', `${name.replace('/', '+')}-`));
  try {
    log(`building ${name}@${version} for linux-${arch}, Node ${dist.major} (ABI ${dist.abi})`);
    await cp(pkgDir, work, {
      recursive: true,
      filter: (src) => !src.startsWith(join(pkgDir, 'build')) && !src.startsWith(join(pkgDir, 'node_modules')),
    });
    const jobs = String(Math.max(1, Math.min(2, (await import('node:os')).availableParallelism())));
    await run(process.execPath, [nodeGyp(root), 'rebuild', `--arch=${arch}`, `--nodedir=${dist.dir}`, '--release', '-j', jobs], {
      cwd: work,
      env,
    }).catch((err) => {
      const tail = String(err.output ?? '')
        .trim()
        .split('\n')
        .slice(-15)
        .join('\n');
      throw new Error(`node-gyp could not build ${name} for linux-${arch} Node ${dist.major}:\n${tail}`);
    });
    const built = (await readdir(join(work, 'build/Release'))).filter((f) => f.endsWith('.node') && !f.startsWith('test_'));
    if (built.length === 0) throw new Error(`node-gyp built no .node file for ${name}`);
    const tmpOut = `${out}.tmp`;
    await rm(tmpOut, { recursive: true, force: true });
    await mkdir(tmpOut, { recursive: true });
    for (const f of built) {
      await copyFile(join(work, 'build/Release', f), join(tmpOut, f));
      // Debug symbols off: a quarter of the size on a Pi's SD card.
      await run(env.STRIP ?? 'strip', ['--strip-unneeded', join(tmpOut, f)]).catch(() => {});
    }
    await writeFile(join(tmpOut, '.done'), `${new Date().toISOString()}\n`);
    await rm(out, { recursive: true, force: true });
    await rename(tmpOut, out);
    return out;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
