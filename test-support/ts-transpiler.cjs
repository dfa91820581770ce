// The transpiler ts-node uses under tap (tsconfig.json, "ts-node": {"transpiler": ...}): esbuild instead of
// the TypeScript compiler. Tests are transpiled file by file without type checking either way (tap's default,
// typecheck: false; `npm run lint` runs tsc over everything); esbuild does the same job many times faster, which
// is most of the fixed cost of every test file. The sources are written for isolated transpiling
// (isolatedModules, verbatimModuleSyntax), as tsx, which runs bin/ and the benchmarks, needs too.
//
// Every test file is its own process and imports much the same modules, so each output is kept on disk under
// node_modules/.cache/hearth-ts, keyed by a hash of everything that decides it (the source text, its path, the
// module format, esbuild's version and the options below): a file transpiled once is read back by every later
// process, and a process that finds everything there never starts esbuild (its worker thread and service
// process). An edit changes the key, so nothing stale is ever read; `npm ci` or deleting the folder empties it.
'use strict';
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const OPTIONS_VERSION = '1'; // bump when the transform options below change
const cacheDir = join(__dirname, '..', 'node_modules', '.cache', 'hearth-ts');
let esbuild;
let esbuildVersion;

function version() {
  if (esbuildVersion === undefined) esbuildVersion = require('esbuild/package.json').version;
  return esbuildVersion;
}

exports.create = function create(options) {
  const format = options.nodeModuleEmitKind === 'nodecjs' ? 'cjs' : 'esm';
  return {
    transpile(input, { fileName }) {
      const key = createHash('sha256').update(`${OPTIONS_VERSION}\0${version()}\0${format}\0${fileName}\0`).update(input).digest('hex');
      const file = join(cacheDir, `${key}.json`);
      try {
        const hit = JSON.parse(readFileSync(file, 'utf8'));
        if (typeof hit.outputText === 'string' && typeof hit.sourceMapText === 'string') return hit;
      } catch {
        // not cached yet (or unreadable): transpile
      }
      if (!esbuild) esbuild = require('esbuild');
      const out = esbuild.transformSync(input, {
        loader: fileName.endsWith('x') ? 'tsx' : 'ts',
        format,
        target: 'node20',
        sourcefile: fileName,
        sourcemap: 'external',
        sourcesContent: false,
        tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
      });
      const result = { outputText: out.code, sourceMapText: out.map };
      try {
        // Write then rename: tap runs test files in parallel, and a reader must never see half a file.
        mkdirSync(cacheDir, { recursive: true });
        const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
        writeFileSync(tmp, JSON.stringify(result));
        renameSync(tmp, file);
      } catch {
        // a cache that cannot be written only costs speed
      }
      return result;
    },
  };
};
