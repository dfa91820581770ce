/** Runs the public vectors beside the repository in-process, one subtest per vector so a failure names it. */
import t from 'tap';
import { hasShared, referenceDir } from '../test-support/shared.js';
import { defaultContext, formatResult, runVector } from './runner.js';
import { loadVectorFiles } from './vectors.js';

// The public vectors fix "now" for the kinds that need one in their input; this clock only serves inputs without it.
const ctx = defaultContext(() => new Date('2026-10-05T12:00:00Z'));

if (!hasShared) {
  t.pass('no shared reference beside the repository: the public vectors are not available here');
} else {
  const { files, problems } = loadVectorFiles(`${referenceDir}conformance`);
  t.same(problems, [], 'every vector file reads');
  const total = files.reduce((n, f) => n + f.vectors.length, 0);
  t.ok(total >= 100, `at least 100 public vectors (found ${total})`);
  for (const f of files) {
    t.test(f.file, async (t) => {
      for (const v of f.vectors) {
        t.test(v.id, async (t) => {
          const r = runVector(v, ctx, f.file);
          t.ok(r.passed, formatResult(r));
        });
      }
    });
  }
}
