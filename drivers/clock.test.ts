import t from 'tap';
import { acceleratedClock, ManualClock } from './clock.js';
import type { Clock } from './types.js';

t.test('ManualClock fires due timers in order and only when advanced', async (t) => {
  const c = new ManualClock(1000);
  const seen: string[] = [];
  c.setTimeout(() => seen.push(`b@${c.now()}`), 200);
  c.setTimeout(() => seen.push(`a@${c.now()}`), 100);
  c.setTimeout(() => seen.push(`a2@${c.now()}`), 100);
  const iv = c.setInterval(() => seen.push(`i@${c.now()}`), 150);
  const gone = c.setTimeout(() => seen.push('never'), 50);
  c.clearTimeout(gone);
  t.same(seen, [], 'nothing fires before advance');
  c.advance(99);
  t.same(seen, []);
  c.advance(251);
  t.same(seen, ['a@1100', 'a2@1100', 'i@1150', 'b@1200', 'i@1300']);
  t.equal(c.now(), 1350);
  c.clearInterval(iv);
  c.advance(1000);
  t.equal(seen.length, 5, 'a cleared interval stops');
  t.equal(c.pending, 0);
});

t.test('a timer scheduled by a timer runs in the same advance when due', async (t) => {
  const c = new ManualClock(0);
  const at: number[] = [];
  c.setTimeout(() => {
    at.push(c.now());
    c.setTimeout(() => at.push(c.now()), 10);
  }, 10);
  c.advance(25);
  t.same(at, [10, 20]);
});

t.test('advanceAsync lets promise chains started by timers settle', async (t) => {
  const c = new ManualClock(0);
  let done = 0;
  c.setInterval(() => {
    Promise.resolve()
      .then(() => new Promise((r) => setImmediate(r)))
      .then(() => done++);
  }, 100);
  await c.advanceAsync(300);
  t.equal(done, 3);
});

t.test('acceleratedClock runs simulated time faster than its base', async (t) => {
  const base = new ManualClock(5000);
  const fast: Clock = acceleratedClock(60, base);
  t.equal(fast.now(), 5000);
  base.advance(1000);
  t.equal(fast.now(), 5000 + 60_000, 'one real second is a simulated minute');
  let fired = 0;
  fast.setTimeout(() => fired++, 60_000);
  base.advance(999);
  t.equal(fired, 0);
  base.advance(1);
  t.equal(fired, 1);
  t.throws(() => acceleratedClock(0), /positive/);
});
