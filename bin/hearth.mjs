#!/usr/bin/env node
// The `hearth` command. Runs the compiled CLI from dist/ (built by `npm run build`, which `npm ci` runs
// through the prepare script); from a source checkout without dist/ it falls back to tsx.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const compiled = fileURLToPath(new URL('../dist/runtime/cli/run.js', import.meta.url));
if (existsSync(compiled)) {
  await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../runtime/cli/run.ts', import.meta.url).href);
}
