#!/usr/bin/env node
/**
 * Bundle the heat guard's entry (dist/runtime/guard/main.js and the few modules it imports: the guard, its spec,
 * the pin files, the off-level authority, the safety-control seam) into one CommonJS file beside it,
 * dist/runtime/guard/guard.cjs, which `hearth start` spawns (runtime/guard/warm.ts). Loaded as one script, the guard
 * never starts Node's ES module loader: measured, 1.2 MB less anonymous memory for the process and ~40 ms less CPU
 * to start (docs/performance.md, "The 192 MB cgroup"). Run by `npm run build` after tsc; needs dist/.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const guard = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist/runtime/guard');
await esbuild.build({
  entryPoints: [join(guard, 'main.js')],
  outfile: join(guard, 'guard.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});
