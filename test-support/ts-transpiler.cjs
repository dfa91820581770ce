// The transpiler ts-node uses under tap (tsconfig.json, "ts-node": {"transpiler": ...}): esbuild instead of
// the TypeScript compiler. Tests are transpiled file by file without type checking either way (tap's default,
// typecheck: false; `npm run lint` runs tsc over everything); esbuild does the same job many times faster, which
// is most of the fixed cost of every test file. The sources are written for isolated transpiling
// (isolatedModules, verbatimModuleSyntax), as tsx, which runs bin/ and the benchmarks, needs too.
'use strict';
const { transformSync } = require('esbuild');

exports.create = function create(options) {
  const format = options.nodeModuleEmitKind === 'nodecjs' ? 'cjs' : 'esm';
  return {
    transpile(input, { fileName }) {
      const out = transformSync(input, {
        loader: fileName.endsWith('x') ? 'tsx' : 'ts',
        format,
        target: 'node20',
        sourcefile: fileName,
        sourcemap: 'external',
        sourcesContent: false,
        tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
      });
      return { outputText: out.code, sourceMapText: out.map };
    },
  };
};
