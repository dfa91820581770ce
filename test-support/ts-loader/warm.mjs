// Fill the tests' transpile cache (node_modules/.cache/hearth-ts, hooks.mjs) before tap starts: `npm test` and
// `npm run test:fast` run this first. In a fresh clone the cache is empty, and every test process that imports a
// module nobody has transpiled yet starts esbuild for it, four at a time, much of it the same modules: measured
// on a fresh clone, `npm test` took 483 s with the cache empty and 366 s with it full. Here one process
// transpiles every TypeScript file of the repository once (a few seconds); a file already cached costs a read.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { transpile } from './hooks.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SKIP = new Set(['node_modules', 'dist', '.git', '.tap', 'coverage']);

let files = 0;
const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP.has(e.name)) walk(path);
    } else if (/\.m?ts$/.test(e.name) && !e.name.endsWith('.d.ts')) {
      transpile(readFileSync(path, 'utf8'), pathToFileURL(path).href);
      files++;
    }
  }
};
const started = performance.now();
walk(root);
process.stdout.write(`transpile cache: ${files} TypeScript files ready (${Math.round(performance.now() - started)} ms)\n`);
