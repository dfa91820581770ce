import t from 'tap';
import { ManualClock } from '../../drivers/clock.js';
import { createRig } from '../../drivers/rig.js';
import { defaultSafetyLimits } from '../../safety/limits.js';
import { EventBus } from '../events/bus.js';
import { createSupervisor } from './supervisor.js';
import type { HeatRequest } from './types.js';

/**
 * The loop watchdog's thread runs only while heat can be on (watchdog.ts): none after start, one from the grant
 * that switches a heater on, none again once every heater has been off for watchdogIdleMs (the supervisor's clock).
 * The worker itself runs on real time: a stall is a real busy loop, its cut is read from the rig's duty slot.
 */

/** Block the event loop for at least `minMs`, then until `done()` holds or `maxMs` passed (the assertions decide). */
function blockFor(minMs: number, done: () => boolean, maxMs = 5000): void {
  const start = Date.now();
  while (Date.now() - start < minMs || (!done() && Date.now() - start < maxMs)) {
    // busy: the event loop cannot run
  }
}

const realSleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fry: HeatRequest = { heater: 'fryer', power: 1, op: 'cw.op.deep_fry', medium: 'oil', owner: 'x' };

async function setup(teardown: (fn: () => unknown) => void) {
  const clock = new ManualClock();
  const rig = await createRig({ kind: 'simulated' }, { clock });
  await rig.open();
  const sup = createSupervisor({ rig, bus: new EventBus(), clock, limits: [defaultSafetyLimits()], watchdogStallMs: 200 });
  await sup.start();
  teardown(() => sup.stop());
  const fryer = () => rig.sim!.snapshot().heaters.fryer;
  return { clock, sup, fryer };
}

t.test('a supervisor without heat holds no watchdog thread; after a few samples it still holds none', async (t) => {
  const { clock, sup } = await setup((fn) => t.teardown(fn));
  t.ok(sup.watchdog, 'the simulated rig has outputs the watchdog reaches');
  t.equal(sup.watchdog?.running, false, 'no worker after start');
  await clock.advanceAsync(5000);
  t.equal(sup.watchdog?.running, false, 'none while every heater is off');
  t.equal(sup.requestHeat({ ...fry, power: 0 }).granted, true);
  t.equal(sup.watchdog?.running, false, 'a grant of zero power switches nothing on and arms nothing');
});

t.test('the grant that switches heat on arms the watchdog: a stall in the same turn is cut', async (t) => {
  const { sup, fryer } = await setup((fn) => t.teardown(fn));
  t.equal(sup.requestHeat(fry).granted, true);
  t.equal(sup.watchdog?.running, true, 'the worker exists from the grant on');
  t.equal(fryer(), 1, 'the fryer is on');
  // The main thread never yields between the grant and the stall: the worker boots on its own thread.
  blockFor(1000, () => fryer() === 0);
  t.equal(fryer(), 0, 'the worker forced the fryer off during the stall');
  t.notOk(sup.status().latched, 'the main thread has not run yet');
  for (let waited = 0; !sup.status().latched && waited < 5000; waited += 25) await realSleep(25);
  t.equal(sup.status().trip?.reason, 'watchdog', 'latched once the loop runs again');
});

t.test('heat off and idle for watchdogIdleMs stops the thread; the next grant arms again and a stall is cut', async (t) => {
  const { clock, sup, fryer } = await setup((fn) => t.teardown(fn));
  t.equal(sup.requestHeat(fry).granted, true);
  t.equal(sup.watchdog?.running, true);
  await clock.advanceAsync(1000);
  sup.release('fryer', 'x');
  await clock.advanceAsync(19_000);
  t.equal(sup.watchdog?.running, true, 'still running before 20 s of idle (the default watchdogIdleMs)');
  await clock.advanceAsync(1500);
  t.equal(sup.watchdog?.running, false, 'stopped after 20 s with every heater off and no lease');
  t.notOk(sup.status().latched, 'stopping it latched nothing');
  t.equal(sup.requestHeat(fry).granted, true);
  t.equal(sup.watchdog?.running, true, 'the next grant arms it again');
  blockFor(1000, () => fryer() === 0);
  t.equal(fryer(), 0, 'a stall is cut by the new worker');
  for (let waited = 0; !sup.status().latched && waited < 5000; waited += 25) await realSleep(25);
  t.equal(sup.status().trip?.reason, 'watchdog');
});

t.test('a held lease keeps the watchdog armed however long it idles at the clock', async (t) => {
  const { clock, sup } = await setup((fn) => t.teardown(fn));
  for (let i = 0; i < 70; i++) {
    t.equal(sup.requestHeat({ ...fry, power: 0.2 }).granted, true);
    await clock.advanceAsync(1000);
  }
  t.equal(sup.watchdog?.running, true, 'armed through 70 s of renewed heat');
});
