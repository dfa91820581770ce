#!/usr/bin/env node
/**
 * Bundle each library a surface loads on first use into one minified CommonJS file, dist/vendor/NAME.cjs, and
 * make the compiled re-export module of ours (platform/vendor/NAME.ts, compiled to dist/platform/vendor/NAME.js)
 * read its names from that file. Run by `npm run build` after tsc and before the hub's bundle (which keeps the
 * vendor file out of hearth.cjs: it is read only when the surface is first used).
 *
 * Why: a surface's libraries stay in the heap for good once loaded, and most of what they cost there is not
 * their objects but V8's copy of every module's source text and the modules nothing calls. The MCP SDK with zod,
 * measured in a fresh Node 20 process after forced GCs (heap used / RSS added by loading it and creating one
 * server): 7.6 / 21.5 MB from node_modules, 3.2 / 12.4 MB from the minified bundle (docs/performance.md).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

/** platform/vendor/NAME.ts, each a list of re-exports from one library. */
const VENDORED = ['mcp-server'];

async function replaceFile(file, data) {
  const aside = `${file}.${process.pid}.tmp`;
  await writeFile(aside, data);
  await rename(aside, file);
}

await mkdir(join(dist, 'vendor'), { recursive: true });
for (const name of VENDORED) {
  const wrapper = join(dist, 'platform/vendor', `${name}.js`);
  const out = join(dist, 'vendor', `${name}.cjs`);
  // The re-exports of the source module (tsc's output of it may already be this script's wrapper: tsc is incremental).
  const source = await readFile(join(root, 'platform/vendor', `${name}.ts`), 'utf8');
  const entry = [...source.matchAll(/^export \{[^}]*\} from '[^']+';$/gm)].map((m) => m[0]).join('\n');
  if (!entry) throw new Error(`platform/vendor/${name}.ts: no re-export to bundle`);
  const built = await esbuild.build({
    stdin: { contents: entry, resolveDir: join(root, 'platform/vendor'), sourcefile: `${name}.js` },
    absWorkingDir: root,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minify: true,
    legalComments: 'none',
    write: false,
    outfile: out,
    logLevel: 'warning',
  });
  const [code] = built.outputFiles;
  if (!code) throw new Error(`esbuild wrote nothing for ${name}`);
  await replaceFile(out, code.contents);
  // The names it exports, read from the bundle itself (its top level only defines them).
  const names = Object.keys(createRequire(import.meta.url)(out)).sort();
  const wrapped = [
    `// Written by scripts/build-vendor.mjs: the exports of platform/vendor/${name}.ts, read from dist/vendor/${name}.cjs.`,
    "import { createRequire } from 'node:module';",
    `const lib = createRequire(import.meta.url)('../../vendor/${name}.cjs');`,
    `export const { ${names.join(', ')} } = lib;`,
    '',
  ].join('\n');
  await mkdir(dirname(wrapper), { recursive: true });
  await replaceFile(wrapper, wrapped);
  process.stdout.write(`dist/vendor/${name}.cjs ${(code.contents.length / 1024).toFixed(0)} KiB (${names.length} exports)\n`);
}
