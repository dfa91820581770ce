import t from 'tap';
import { resolveConfig } from '../config/config.js';
import { SyncScheduler, type Timers } from './scheduler.js';

/** Timers that fire only when the test says so. */
function manualTimers(): Timers & { pending: { fn: () => void; ms: number }[]; fire(): Promise<void> } {
  const pending: { fn: () => void; ms: number }[] = [];
  return {
    pending,
    setTimeout(fn, ms) {
      const entry = { fn, ms };
      pending.push(entry);
      return entry;
    },
    clearTimeout(h) {
      const i = pending.indexOf(h as { fn: () => void; ms: number });
      if (i >= 0) pending.splice(i, 1);
    },
    async fire() {
      const next = pending.shift();
      next?.fn();
      await new Promise((r) => setImmediate(r));
    },
  };
}

t.test('first sync after the initial delay, then every interval with jitter; a failing run keeps the schedule', async (t) => {
  const timers = manualTimers();
  let runs = 0;
  const randoms = [0, 1, 0.5];
  const s = new SyncScheduler(
    async () => {
      runs++;
      if (runs === 2) throw new Error('index down');
    },
    { intervalMs: 900_000, initialDelayMs: 1000, timers, random: () => randoms.shift() ?? 0.5 },
  );
  s.start();
  t.same(
    timers.pending.map((p) => p.ms),
    [1000],
  );
  await timers.fire();
  t.equal(runs, 1);
  t.same(
    timers.pending.map((p) => p.ms),
    [810_000],
    'interval minus 10 %',
  );
  await timers.fire();
  t.equal(runs, 2);
  t.same(
    timers.pending.map((p) => p.ms),
    [990_000],
    'interval plus 10 %, after a failed run too',
  );
  s.stop();
  t.same(timers.pending, [], 'stop clears the timer');
  await timers.fire();
  t.equal(runs, 2);
});

t.test('--sync-interval takes seconds or 30s, 15m, 1h; --index is repeatable; --trust is a path', async (t) => {
  t.equal(resolveConfig({}).syncInterval, 900, 'default 15 minutes');
  t.equal(resolveConfig({ syncInterval: '15m' }).syncInterval, 900);
  t.equal(resolveConfig({ syncInterval: '1h' }).syncInterval, 3600);
  t.equal(resolveConfig({ syncInterval: '45' }).syncInterval, 45);
  t.throws(() => resolveConfig({ syncInterval: 'soon' }), /sync-?interval must be a duration/i);
  t.throws(() => resolveConfig({ syncInterval: '0' }), /sync-?interval must be a duration/i);
  const c = resolveConfig({ index: ['http://a.test/', 'https://b.test/x'], trust: 'keys.json' }, '/tmp/dev');
  t.same(c.index, ['http://a.test/', 'https://b.test/x']);
  t.equal(c.trust, '/tmp/dev/keys.json');
  t.throws(() => resolveConfig({ index: ['ftp://a.test/'] }), /index/);
});
