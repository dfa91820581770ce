import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { repoRoot } from '../test-support/cli.js';

const list = () =>
  execFileSync(process.execPath, [join(repoRoot, 'scripts/test-fast.mjs'), '--list'], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l !== '');
const tracked = () =>
  execFileSync('git', ['ls-files', '*.test.ts'], { cwd: repoRoot, encoding: 'utf8' })
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('flows/examples/'));

t.test('test:fast runs every test file not tagged @slow, and the slow ones are few and tagged', async (t) => {
  const fast = list();
  const all = tracked();
  t.ok(fast.includes('scripts/test-fast.test.ts'), 'this file is fast');
  const slow = all.filter((f) => !fast.includes(f));
  t.ok(slow.length > 0, 'some files are tagged slow');
  for (const f of slow) t.match(readFileSync(join(repoRoot, f), 'utf8'), /^\s*(\/\/|\*)\s*@slow\b/m, `${f} carries the tag`);
  for (const f of fast) t.ok(all.includes(f), `${f} is a tracked test file`);
  t.ok(slow.includes('hil-tests/mutants.test.ts'), 'the mutation run is slow');
});
