import t from 'tap';
import { RateLimiter } from './rate-limit.js';

t.test('a client gets its burst, then waits for refill; clients are independent', async (t) => {
  let now = 0;
  const rl = new RateLimiter({ ratePerSecond: 2, burst: 3, now: () => now });
  t.match(rl.take('a'), { ok: true, remaining: 2 });
  t.match(rl.take('a'), { ok: true });
  t.match(rl.take('a'), { ok: true, remaining: 0 });
  t.same(rl.take('a'), { ok: false, retryAfterS: 1 });
  t.match(rl.take('b'), { ok: true }, 'another client is not affected');
  now += 499;
  t.match(rl.take('a'), { ok: false });
  now += 2;
  t.match(rl.take('a'), { ok: true }, 'one token after half a second at 2/s');
  now += 60_000;
  for (let i = 0; i < 3; i++) t.match(rl.take('a'), { ok: true }, 'refills up to the burst only');
  t.match(rl.take('a'), { ok: false });
});

t.test('Retry-After reflects the refill rate', async (t) => {
  const rl = new RateLimiter({ ratePerSecond: 0.1, burst: 1, now: () => 0 });
  t.match(rl.take('x'), { ok: true });
  t.same(rl.take('x'), { ok: false, retryAfterS: 10 });
});

t.test('the table of clients stays bounded', async (t) => {
  let now = 0;
  const rl = new RateLimiter({ ratePerSecond: 1, burst: 1, now: () => now, maxClients: 10 });
  for (let i = 0; i < 50; i++) {
    now += 10;
    rl.take(`c${i}`);
  }
  t.ok(rl.size <= 10, `size ${rl.size}`);
});

t.test('bad settings are refused', async (t) => {
  t.throws(() => new RateLimiter({ ratePerSecond: 0, burst: 1 }), RangeError);
  t.throws(() => new RateLimiter({ ratePerSecond: 1, burst: 0 }), RangeError);
  t.throws(() => new RateLimiter({ ratePerSecond: Number.NaN, burst: 1 }), RangeError);
});
