#!/usr/bin/env node
// The `hearth` command. Runs the compiled CLI from dist/ (built by `npm run build`, which `npm ci` runs
// through the prepare script), bundled into dist/bundle/ when the build made one. In a source checkout it falls
// back to running the TypeScript sources with tsx when dist/ is missing or older than the sources, so an edit is
// never silently ignored.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const compiled = `${root}dist/runtime/cli/run.js`;
// The same CLI bundled by esbuild into one file with V8's code cache for it (scripts/build-bundle.mjs).
const bundled = `${root}dist/bundle/hearth.mjs`;
const buildStamp = `${root}dist/.built`; // written by npm run build after tsc
const source = `${root}runtime/cli/run.ts`;
const sourceDirs = ['core', 'safety', 'schemas', 'drivers', 'platform', 'runtime', 'services', 'conformance'];

// A release tarball (scripts/release.mjs) says in release.json which machine and which Node ABIs its native modules
// were built for; on anything else they would not load, so say so in one line before trying.
if (existsSync(`${root}release.json`)) {
  const release = JSON.parse(readFileSync(`${root}release.json`, 'utf8'));
  const majors = release.node.map((n) => n.major).join(' or ');
  let wrong;
  if (process.platform !== release.platform || process.arch !== release.arch)
    wrong = `this release is for ${release.platform}-${release.arch}, this machine is ${process.platform}-${process.arch}: install hearth-${release.version}-${process.platform}-${process.arch}.tar.gz`;
  else if (!release.node.some((n) => n.abi === process.versions.modules))
    wrong = `this release's native modules are built for Node.js ${majors}, not ${process.versions.node} (ABI ${process.versions.modules}): run it with Node.js ${majors}`;
  if (wrong) {
    process.stderr.write(`hearth: ${wrong}\n`);
    process.exit(1);
  }
}

/**
 * True when a TypeScript source file is newer than the last build (~7 ms for the whole tree: one readdir per
 * folder with entry types; `readdirSync(dir, { recursive: true })` took ~25 ms, paid by every command's start).
 */
function distIsStale() {
  if (!existsSync(source)) return false; // an installed package ships dist/ only
  if (!existsSync(buildStamp)) return true;
  const built = statSync(buildStamp).mtimeMs;
  const newer = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return false;
    }
    for (const e of entries) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) {
        if (newer(path)) return true;
      } else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && statSync(path).mtimeMs > built) return true;
    }
    return false;
  };
  return sourceDirs.some((dir) => newer(`${root}${dir}`));
}

if (existsSync(compiled) && !distIsStale()) {
  await import(pathToFileURL(existsSync(bundled) ? bundled : compiled).href);
} else {
  if (existsSync(compiled))
    process.stderr.write('hearth: dist/ is older than the sources; running them with tsx (npm run build compiles them)\n');
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(source).href);
}
