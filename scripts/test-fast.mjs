#!/usr/bin/env node
// `npm run test:fast`: every test file except the slow end-to-end suites, for a developer's edit-test loop.
// A test file is slow when a comment line in its header (the first 40 lines) starts with the tag `@slow`, with a word on why
// (it starts hubs, browsers, brokers or databases, or replays every HIL scenario). `npm test` runs them all.
// Extra arguments go to tap (e.g. `npm run test:fast -- --bail`).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', '.tap', 'bench']);

/** Every *.test.ts file under `dir`, repository-relative, sorted. */
export function testFiles(dir = root) {
  const out = [];
  const walk = (rel) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && path !== 'flows/examples') walk(path);
      } else if (e.name.endsWith('.test.ts')) out.push(path);
    }
  };
  walk('');
  return out.sort();
}

/** True when the file's header tags it `@slow`. */
export function isSlow(source) {
  return /^\s*(\/\/|\*)\s*@slow\b/m.test(source.split('\n').slice(0, 40).join('\n'));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const fast = testFiles().filter((f) => !isSlow(readFileSync(join(root, f), 'utf8')));
  if (process.argv.includes('--list')) {
    process.stdout.write(`${fast.join('\n')}\n`);
    process.exit(0);
  }
  // The transpile cache first, as `npm test` does (test-support/ts-loader/warm.mjs).
  const warm = spawnSync(process.execPath, [join(root, 'test-support/ts-loader/warm.mjs')], { cwd: root, stdio: 'inherit' });
  if (warm.status !== 0) process.exit(warm.status ?? 1);
  const r = spawnSync('npx', ['tap', '--disable-coverage', ...process.argv.slice(2), ...fast], { cwd: root, stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
