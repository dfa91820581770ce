import t from 'tap';
import { LogLimiter, limitedLog } from './log-limit.js';

t.test('repeated lines of one key are cut to a burst per window, and the count of dropped ones is reported', (t) => {
  let now = 0;
  const lines: { msg: string; detail?: Record<string, unknown> }[] = [];
  const log = limitedLog(
    new LogLimiter({ burst: 3, windowMs: 1000, now: () => now }),
    (msg, detail) => lines.push({ msg, ...(detail ? { detail } : {}) }),
    (msg, d) => `${msg}|${String(d?.client)}`,
  );
  for (let i = 0; i < 1000; i++) log('refused', { client: 'a' });
  log('refused', { client: 'b' });
  t.equal(lines.filter((l) => l.detail?.client === 'a').length, 3, 'a flood of 1000 lines logs 3');
  t.equal(lines.filter((l) => l.detail?.client === 'b').length, 1, 'another key is not held back');
  now = 1000;
  log('refused', { client: 'a' });
  t.same(lines.at(-1), { msg: 'refused', detail: { client: 'a', suppressed: 997 } }, 'the next window reports what was dropped');
  t.end();
});

t.test('the keys remembered are bounded', (t) => {
  const limiter = new LogLimiter({ maxKeys: 100 });
  for (let i = 0; i < 10_000; i++) limiter.allow(`k${i}`);
  t.equal(limiter.size, 100);
  t.end();
});
