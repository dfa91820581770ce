import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ManualClock } from '../../drivers/clock.js';
import { createRig } from '../../drivers/rig.js';
import { defaultSafetyLimits } from '../../safety/limits.js';
import { type BusEvents, EventBus } from '../events/bus.js';
import { createSupervisor } from './supervisor.js';
import { createWatchdog } from './watchdog.js';

/**
 * Block the event loop (busy loop) for at least `minMs`, then until `done()` holds or `maxMs` passed. The upper
 * bound keeps a starved worker on a loaded machine from making the test hang; the assertions decide.
 */
function blockFor(minMs: number, done: () => boolean = () => true, maxMs = 3000): void {
  const start = Date.now();
  while (Date.now() - start < minMs || (!done() && Date.now() - start < maxMs)) {
    // busy: the event loop cannot run
  }
}

const realSleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('the watchdog worker turns the heaters off while the main loop is blocked', async (t) => {
  const clock = new ManualClock();
  const rig = await createRig({ kind: 'simulated' }, { clock });
  await rig.open();
  const bus = new EventBus();
  const safety: BusEvents['safety'][] = [];
  bus.on('safety', (e) => safety.push(e));
  const sup = createSupervisor({ rig, bus, clock, limits: [defaultSafetyLimits()], watchdogStallMs: 200 });
  await sup.start();
  t.teardown(() => sup.stop());
  await realSleep(100); // let the heartbeat run
  t.equal(sup.requestHeat({ heater: 'fryer', power: 1, op: 'cw.op.deep_fry', medium: 'oil', owner: 'x' }).granted, true);
  t.equal(sup.requestHeat({ heater: 'pan', power: 0.5, op: 'cw.op.saute', medium: 'pan_surface', owner: 'x' }).granted, true);
  t.same(rig.sim!.snapshot().heaters, { fryer: 1, pot: 0, pan: 0.5 });
  blockFor(1000, () => rig.sim!.snapshot().heaters.fryer === 0);
  // Still inside the same synchronous run: only the worker can have done this.
  t.same(rig.sim!.snapshot().heaters, { fryer: 0, pot: 0, pan: 0 }, 'outputs forced off during the stall');
  t.notOk(sup.status().latched, 'the main thread has not run yet');
  await realSleep(100);
  t.equal(sup.status().trip?.reason, 'watchdog', 'latched once the loop runs again');
  t.match(sup.status().trip?.message, /stalled for \d+ ms/);
  t.equal(safety[0]?.trip?.reason, 'watchdog');
  t.equal(sup.requestHeat({ heater: 'fryer', power: 1, op: 'cw.op.deep_fry', medium: 'oil', owner: 'x' }).granted, false);
});

t.test('a healthy loop never trips the watchdog', async (t) => {
  const fired: number[] = [];
  const duty = new SharedArrayBuffer(4);
  new Int32Array(duty)[0] = 700;
  const wd = createWatchdog({
    targets: [{ kind: 'shared', heater: 'h', buffer: duty, index: 0 }],
    stallMs: 500,
    onFired: (i) => fired.push(i.stallMs),
  });
  await wd.start();
  await realSleep(400);
  t.same(fired, []);
  t.equal(new Int32Array(duty)[0], 700, 'output untouched');
  await wd.stop();
});

t.test('for GPIO relays the worker writes the inactive level into the sysfs value file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-gpio-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const high = join(dir, 'gpio17-value');
  const low = join(dir, 'gpio22-value');
  writeFileSync(high, '1');
  writeFileSync(low, '0');
  const fired: number[] = [];
  const wd = createWatchdog({
    targets: [
      { kind: 'sysfs', heater: 'a', valuePath: high, offValue: '0' },
      { kind: 'sysfs', heater: 'b', valuePath: low, offValue: '1' },
      { kind: 'none', heater: 'c', why: 'serial' },
    ],
    stallMs: 150,
    onFired: (i) => fired.push(i.stallMs),
  });
  await wd.start();
  await realSleep(60);
  const start = performance.timeOrigin + performance.now();
  blockFor(300, () => readFileSync(high, 'utf8') === '0' && readFileSync(low, 'utf8') === '1');
  t.equal(readFileSync(high, 'utf8'), '0', 'active-high line driven low');
  t.equal(readFileSync(low, 'utf8'), '1', 'active-low line driven high');
  t.ok(wd.lastOffAt() > start, 'the worker recorded when it cut');
  await realSleep(80);
  t.equal(fired.length, 1, 'reported once to the main thread');
  t.ok((fired[0] ?? 0) >= 150);
  await wd.stop();
});
