// Staging a release (scripts/release.mjs): the program files, the production dependencies out of this checkout's
// node_modules, and each native part made right for the target: add-ons built per Node ABI (scripts/
// release-native.mjs) where `bindings` finds them, prebuilds of other platforms dropped, platform packages
// (napi-rs style `…-linux-x64-gnu`) swapped for the target's.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, cp, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { buildAddon, npmFetch } from './release-native.mjs';

/**
 * What of the checkout a release carries besides node_modules: package.json "files" (what `npm pack` would ship:
 * the bundle, schemas, examples, the HIL scenarios `hearth hil` runs, flows, the unit), plus the docs, the
 * licence and package.json itself. Read from package.json so the two cannot disagree.
 */
function programPaths(root) {
  const files = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).files ?? [];
  return [...new Set([...files, 'docs', 'README.md', 'LICENSE', 'package.json'])];
}

/**
 * Left out of the program files: sources and tests (the release runs dist/), the tests' own build output, and every
 * V8 code cache of the bundle (dist/bundle/*.cache: the start's, the recipe API's, any a later command records). A
 * cache is specific to the V8 build that wrote it, and V8 does not always notice another one (an x64 cache given
 * to arm64 Node of the same version crashed it; docs/performance.md, "arm64 under emulation"). Node releases of one
 * major share a V8 version, so even an x64 user's Node 20 could take this machine's cache.
 */
function programFilter(root) {
  return (src) => {
    const rel = relative(root, src);
    if (rel.startsWith(`dist${sep}test-support`)) return false;
    if (dirname(rel) === join('dist', 'bundle') && rel.endsWith('.cache')) return false;
    if (/\.tmp$/.test(rel)) return false;
    if (rel.endsWith('.ts') && !rel.startsWith('dist')) return false;
    return true;
  };
}

export async function copyProgram(root, stage) {
  for (const p of programPaths(root)) {
    if (!existsSync(join(root, p))) throw new Error(`${p} is missing from the checkout`);
    await cp(join(root, p), join(stage, p), { recursive: true, filter: programFilter(root) });
  }
  // The installer at the top, where `sudo ./install.sh` finds it after unpacking.
  await copyFile(join(root, 'systemd/install.sh'), join(stage, 'install.sh'));
}

/** The production dependency folders of the checkout (`npm ls --omit=dev`), relative to root. */
function productionPackages(root) {
  const r = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  const dirs = r.stdout
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => relative(root, l))
    .filter((l) => l.startsWith('node_modules'));
  if (dirs.length === 0)
    throw new Error(`npm ls --omit=dev listed no dependencies (${r.stderr.trim().split('\n').pop()}): run npm ci first`);
  // npm ls also lists what a production package names only as an optional peer and a dev dependency installed
  // (i18next's peer typescript): the lockfile marks it devOptional, and no production package depends on it.
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages ?? {};
  const needed = new Set();
  for (const entry of Object.values(lock))
    if (!entry.dev)
      for (const n of [...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.optionalDependencies ?? {})]) needed.add(n);
  const peerOnly = (dir) =>
    lock[dir]?.devOptional === true && !needed.has(dir.slice(dir.lastIndexOf('node_modules/') + 'node_modules/'.length));
  return [...new Set(dirs)].filter((d) => !peerOnly(d)).sort();
}

const readJson = async (f) => JSON.parse(await readFile(f, 'utf8'));

/** True when a package.json's `os`/`cpu` fields (absent: any) allow linux on `arch`. */
function fitsTarget(pkg, arch) {
  const ok = (list, v) => {
    if (!Array.isArray(list) || list.length === 0) return true;
    if (list.includes(`!${v}`)) return false;
    const allowed = list.filter((x) => !x.startsWith('!'));
    return allowed.length === 0 || allowed.includes(v);
  };
  return ok(pkg.os, 'linux') && ok(pkg.cpu, arch);
}

/** The target's counterpart of a napi-rs style platform package (`@node-rs/bcrypt-linux-x64-gnu`). */
const swappedName = (name, arch) => name.replace(`-linux-${process.arch}-`, `-linux-${arch}-`);
const fetchPlatformPackage = (cache, name, version) =>
  npmFetch(name, version, join(cache, 'packages', `${name.replace('/', '+')}@${version}`));

/** Fetch into the cache the platform packages a release for `arch` swaps in (scripts/test-deps.mjs, ahead of tests). */
export async function prefetchPlatformPackages(root, arch, cache) {
  for (const rel of productionPackages(root)) {
    const pkg = await readJson(join(root, rel, 'package.json'));
    if (!fitsTarget(pkg, arch) && swappedName(pkg.name, arch) !== pkg.name)
      await fetchPlatformPackage(cache, swappedName(pkg.name, arch), pkg.version);
  }
}

/**
 * Copy the production dependencies into `stage/node_modules` and make their native parts right for `arch`.
 * `dists` are the Node distributions (one per ABI) to build add-ons against. Returns what was done, for the
 * manifest.
 */
export async function stageDependencies({ root, stage, arch, dists, cache, log }) {
  const natives = [];
  for (const rel of productionPackages(root)) {
    const src = join(root, rel);
    const dest = join(stage, rel);
    const pkg = await readJson(join(src, 'package.json'));
    await mkdir(dest, { recursive: true });
    // Nested node_modules come as their own entries (only the production ones); a checkout's build/ is the host's.
    const gyp = existsSync(join(src, 'binding.gyp'));
    await cp(src, dest, {
      recursive: true,
      filter: (p) => !p.startsWith(join(src, 'node_modules')) && !(gyp && p.startsWith(join(src, 'build'))),
    });
    if (!fitsTarget(pkg, arch)) {
      await rm(dest, { recursive: true, force: true });
      const swapped = swappedName(pkg.name, arch);
      if (swapped === pkg.name) {
        log(`left out ${pkg.name} (for ${pkg.os ?? '?'} ${pkg.cpu ?? '?'})`);
        continue;
      }
      await cp(await fetchPlatformPackage(cache, swapped, pkg.version), join(dirname(dest), swapped.split('/').pop()), {
        recursive: true,
      });
      natives.push({ package: swapped, version: pkg.version, how: 'platform package from npm' });
      continue;
    }
    if (existsSync(join(dest, 'prebuilds'))) {
      for (const d of await readdir(join(dest, 'prebuilds')))
        if (d !== `linux-${arch}`) await rm(join(dest, 'prebuilds', d), { recursive: true, force: true });
    }
    if (!gyp) continue;
    if (existsSync(join(dest, 'prebuilds', `linux-${arch}`))) {
      natives.push({ package: pkg.name, version: pkg.version, how: `its own N-API prebuilds (prebuilds/linux-${arch})` });
      continue;
    }
    if (!pkg.dependencies?.bindings)
      throw new Error(
        `${pkg.name} has a binding.gyp but neither prebuilds for linux-${arch} nor the \`bindings\` loader: no way to place its add-on`,
      );
    await rm(join(dest, 'deps'), { recursive: true, force: true }); // better-sqlite3's SQLite sources: built in
    for (const dist of dists) {
      const built = await buildAddon({ root, cache, pkgDir: src, name: pkg.name, version: pkg.version, arch, dist, log });
      // `bindings` looks in lib/binding/node-v<ABI>-<platform>-<arch>/ (node-pre-gyp's layout): each Node picks its own.
      const to = join(dest, 'lib/binding', `node-v${dist.abi}-linux-${arch}`);
      await mkdir(to, { recursive: true });
      for (const f of await readdir(built)) if (f.endsWith('.node')) await copyFile(join(built, f), join(to, f));
    }
    natives.push({ package: pkg.name, version: pkg.version, how: `built with node-gyp for ABI ${dists.map((d) => d.abi).join(', ')}` });
  }
  return natives;
}
