import t from 'tap';
import { mulberry32 } from './random.js';

t.test('mulberry32: the same seed gives the same numbers in [0, 1), another seed others', async (t) => {
  const take = (seed: number) => {
    const r = mulberry32(seed);
    return Array.from({ length: 1000 }, () => r());
  };
  const a = take(1);
  t.same(take(1), a);
  t.notSame(take(2), a);
  t.ok(a.every((x) => x >= 0 && x < 1));
  t.equal(a[0], 0.6270739405881613, 'the published mulberry32 sequence for seed 1');
  const mean = a.reduce((s, x) => s + x, 0) / a.length;
  t.ok(mean > 0.45 && mean < 0.55, `spread evenly (mean ${mean})`);
});
