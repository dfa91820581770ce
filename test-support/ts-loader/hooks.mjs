// Module hooks that let Node run this repository's TypeScript (registered by register.mjs), the smallest loader
// that does the job: every test file is its own process, so what a loader costs at start is paid ~215 times.
//
// - resolve: a relative `./x.js` (how the sources import each other) is `./x.ts` when only the .ts exists.
// - load: a .ts file is transpiled by esbuild, one file at a time, without type checking (`npm run lint` runs
//   tsc over everything); the sources are written for that (isolatedModules, verbatimModuleSyntax). The output
//   carries an inline source map, so with --enable-source-maps stack traces and coverage point into the .ts.
//
// Every test process imports much the same modules, so each output is kept on disk under
// node_modules/.cache/hearth-ts, keyed by a hash of everything that decides it (the source text, its URL,
// esbuild's version and the options below): a file transpiled once is read back by every later process, and a
// process that finds everything there never loads esbuild. An edit changes the key, so nothing stale is ever
// read; `npm ci` or deleting the folder empties it.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const OPTIONS_VERSION = '2'; // bump when the transform options below change
const cacheDir = fileURLToPath(new URL('../../node_modules/.cache/hearth-ts/', import.meta.url));
const require = createRequire(import.meta.url);
let esbuild;
let esbuildVersion;

const TS = /\.m?ts$/;
const JS_TO_TS = { '.js': '.ts', '.mjs': '.mts' };

/** A relative or absolute specifier ending in .js/.mjs whose file is missing but whose .ts twin exists. */
function tsTwin(specifier, parentURL) {
  if (!parentURL?.startsWith('file:')) return undefined;
  if (!/^(\.\.?\/|\/|file:)/.test(specifier)) return undefined;
  const ext = /\.m?js$/.exec(specifier)?.[0];
  if (!ext) return undefined;
  const url = new URL(specifier, parentURL);
  if (url.search || url.hash) return undefined;
  const path = fileURLToPath(url);
  if (existsSync(path)) return undefined;
  const ts = `${path.slice(0, -ext.length)}${JS_TO_TS[ext]}`;
  if (!existsSync(ts)) return undefined;
  url.pathname = `${url.pathname.slice(0, -ext.length)}${JS_TO_TS[ext]}`;
  return url.href;
}

export async function resolve(specifier, context, nextResolve) {
  const twin = tsTwin(specifier, context.parentURL);
  if (twin) return { url: twin, format: 'module', shortCircuit: true };
  return nextResolve(specifier, context);
}

export function transpile(source, url) {
  if (esbuildVersion === undefined) esbuildVersion = JSON.parse(readFileSync(require.resolve('esbuild/package.json'), 'utf8')).version;
  const key = createHash('sha256').update(`${OPTIONS_VERSION}\0${esbuildVersion}\0${url}\0`).update(source).digest('hex');
  const file = `${cacheDir}${key}.js`;
  try {
    return readFileSync(file, 'utf8');
  } catch {
    // not cached yet (or unreadable): transpile
  }
  if (!esbuild) esbuild = require('esbuild');
  const out = esbuild.transformSync(source, {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    sourcefile: fileURLToPath(url),
    sourcemap: 'inline',
    sourcesContent: false,
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
  }).code;
  try {
    // Write then rename: tap runs test files in parallel, and a reader must never see half a file.
    mkdirSync(cacheDir, { recursive: true });
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    writeFileSync(tmp, out);
    renameSync(tmp, file);
  } catch {
    // a cache that cannot be written only costs speed
  }
  return out;
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !TS.test(new URL(url).pathname)) return nextLoad(url, context);
  const source = readFileSync(new URL(url), 'utf8');
  return { format: 'module', source: transpile(source, url), shortCircuit: true };
}
