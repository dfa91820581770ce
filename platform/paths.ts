/** Where the package's own files live (examples/, schemas/), from source or from dist/. */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The directory holding package.json (the repository or the installed package). */
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'examples'))) {
      root = dir;
      return dir;
    }
    dir = dirname(dir);
  }
  root = process.cwd();
  return root;
}
