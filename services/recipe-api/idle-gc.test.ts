import { EventEmitter } from 'node:events';
import t from 'tap';
import { type QuietTimers, whenQuiet } from './idle-gc.js';

/** Timers run by hand: `fire()` runs the pending one, as if its time had come. */
function manualTimers(): QuietTimers & { fire(): void; pending(): number } {
  let next: (() => void) | undefined;
  return {
    setTimeout: (fn) => {
      next = fn;
      return fn;
    },
    clearTimeout: (h) => {
      if (h === next) next = undefined;
    },
    fire() {
      const f = next;
      next = undefined;
      f?.();
    },
    pending: () => (next ? 1 : 0),
  };
}

t.test('runs once after a quiet stretch, and waits again while requests keep arriving', async (t) => {
  const server = new EventEmitter();
  const timers = manualTimers();
  let ran = 0;
  whenQuiet(server, 500, () => ran++, timers);
  server.emit('request');
  timers.fire();
  t.equal(ran, 0, 'a request arrived during the wait');
  server.emit('request');
  server.emit('request');
  timers.fire();
  t.equal(ran, 0, 'and again');
  timers.fire();
  t.equal(ran, 1, 'a quiet stretch: it runs');
  t.equal(timers.pending(), 0, 'once, and no timer is left');
  t.equal(server.listenerCount('request'), 0, 'nor a listener');
  server.emit('request');
  timers.fire();
  t.equal(ran, 1);
});

t.test('cancelled: never runs, leaves nothing behind', async (t) => {
  const server = new EventEmitter();
  const timers = manualTimers();
  let ran = 0;
  const cancel = whenQuiet(server, 500, () => ran++, timers);
  cancel();
  timers.fire();
  t.equal(ran, 0);
  t.equal(server.listenerCount('request'), 0);
});

t.test('with real timers: a quiet server runs it', async (t) => {
  const server = new EventEmitter();
  await new Promise<void>((resolve) => whenQuiet(server, 1, resolve));
  t.pass('ran');
});
