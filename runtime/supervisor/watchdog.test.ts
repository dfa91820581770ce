import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { SimGpio } from '../../drivers/buses/gpio.js';
import { ManualClock } from '../../drivers/clock.js';
import { type HardwareBackends, HardwareRig } from '../../drivers/hardware-rig.js';
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

/** A watchdog over one shared output slot holding 700 (a duty on); `fired` lists the stalls it reported. */
function sharedOutputWatchdog(stallMs: number) {
  const fired: number[] = [];
  const duty = new Int32Array(new SharedArrayBuffer(4));
  duty[0] = 700;
  const wd = createWatchdog({
    targets: [{ kind: 'shared', heater: 'h', buffer: duty.buffer as SharedArrayBuffer, index: 0 }],
    stallMs,
    onFired: (i) => fired.push(i.stallMs),
  });
  return { wd, fired, duty };
}

t.test('a healthy loop never trips the watchdog', async (t) => {
  const { wd, fired, duty } = sharedOutputWatchdog(500);
  await wd.start();
  await realSleep(400);
  t.same(fired, []);
  t.equal(duty[0], 700, 'output untouched');
  await wd.stop();
});

t.test('a watchdog prepared ahead does not watch until start, then catches a stall', async (t) => {
  const { wd, fired, duty } = sharedOutputWatchdog(200);
  t.teardown(() => wd.stop());
  wd.prepare();
  // No heartbeat runs yet: a watching worker would see a "stall" five times its threshold and cut the output
  // (a second of block leaves a slow-to-start worker time enough to see it).
  blockFor(1000);
  await realSleep(100);
  t.equal(duty[0], 700, 'the prepared worker left the output alone');
  t.same(fired, [], 'and recorded nothing');
  await wd.start();
  await realSleep(100); // let the heartbeat run
  blockFor(400, () => duty[0] === 0);
  t.equal(duty[0], 0, 'once started, a stall is cut by the worker');
  for (let waited = 0; fired.length === 0 && waited < 5000; waited += 25) await realSleep(25);
  t.equal(fired.length, 1, 'and reported when the loop runs again');
});

t.test('for GPIO relays the worker drives each wire to its off level: an active-low relay goes HIGH', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-gpio-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // A hardware rig on a simulated GPIO backend whose lines live in sysfs-like value files holding wire levels.
  const gpio = new SimGpio(dir);
  const relay = (id: string, line: number, activeLow: boolean) => ({
    id,
    driver: 'gpio_relay' as const,
    medium: 'oil',
    sensors: [],
    maxPowerW: 1000,
    maxC: 230,
    heatCapacityJPerK: 6500,
    gpio: { line, activeLow },
  });
  const backends: HardwareBackends = {
    i2c: async () => {
      throw new Error('no I2C in this test');
    },
    gpio: async () => gpio,
    serial: async () => {
      throw new Error('no serial in this test');
    },
  };
  const rig = new HardwareRig(
    { kind: 'hardware', sensors: [], heaters: [relay('low', 17, true), relay('high', 18, false)] },
    new ManualClock(0),
    backends,
  );
  await rig.open();
  t.teardown(() => rig.close());
  await rig.heaters.get('low')!.set(1);
  await rig.heaters.get('high')!.set(1);
  t.same([gpio.level(17), gpio.level(18)], [0, 1], 'both relays on: active-low pulled LOW, active-high HIGH');
  t.same([gpio.energized(17), gpio.energized(18)], [true, true]);
  const fired: number[] = [];
  const wd = createWatchdog({ targets: rig.watchdogTargets(), stallMs: 150, onFired: (i) => fired.push(i.stallMs) });
  await wd.start();
  await realSleep(60);
  const start = performance.timeOrigin + performance.now();
  blockFor(300, () => gpio.energized(17) === false && gpio.energized(18) === false);
  t.same([gpio.level(17), gpio.level(18)], [1, 0], 'the wires carry the off levels');
  t.same([gpio.energized(17), gpio.energized(18)], [false, false], 'both loads de-energized during the stall');
  t.ok(wd.lastOffAt() > start, 'the worker recorded when it cut');
  await realSleep(80);
  t.equal(fired.length, 1, 'reported once to the main thread');
  t.ok((fired[0] ?? 0) >= 150);
  await wd.stop();
});

t.test('a stall with nothing to switch records no cut and latches nothing', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-gpio-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const gpio = new SimGpio(dir);
  gpio.output(5, true);
  const fired: number[] = [];
  const wd = createWatchdog({
    targets: [{ kind: 'sysfs', heater: 'a', valuePath: gpio.valuePath!(5), offValue: '1' }],
    stallMs: 150,
    onFired: (i) => fired.push(i.stallMs),
  });
  await wd.start();
  await realSleep(60);
  blockFor(400);
  await realSleep(80);
  t.equal(gpio.level(5), 1);
  t.equal(wd.lastOffAt(), 0, 'nothing was on, so no cut is recorded');
  t.same(fired, [], 'an idle stall is not reported, so an idle hub under load never latches');
  await wd.stop();
});
