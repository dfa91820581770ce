/**
 * Who cut first (first-cut.ts): the loop watchdog's report and the heat guard's come back in whatever order hearth's
 * loop reads them; the trip names the one that cut earlier, and when. And status tells a wire its holder cut.
 */
import t from 'tap';
import { ManualClock } from '../../drivers/clock.js';
import { createRig } from '../../drivers/rig.js';
import { defaultSafetyLimits } from '../../safety/limits.js';
import { type BusEvents, EventBus } from '../events/bus.js';
import { describeCuts, type ReportedCut } from './first-cut.js';
import { createSupervisor } from './supervisor.js';

const T0 = Date.parse('2026-12-04T20:00:00.000Z');
const guardCut: ReportedCut = {
  by: 'heat guard',
  at: T0 + 600,
  act: 'the heat guard cut fryer',
  why: 'no lease renewal for 612 ms with heat on',
  subject: 'all',
  hint: 'check the guard',
};
const watchdogCut: ReportedCut = {
  by: 'loop watchdog',
  at: T0 + 705,
  act: 'the loop watchdog forced every heater off',
  why: 'the control loop stalled for 705 ms',
  subject: 'event-loop',
  hint: 'check the loop',
};

async function setup(wire?: (heater: string) => 'on' | 'off' | 'cut' | undefined) {
  const clock = new ManualClock();
  const rig = await createRig({ kind: 'simulated', seed: 7 }, { clock });
  await rig.open();
  const bus = new EventBus();
  const safety: BusEvents['safety'][] = [];
  bus.on('safety', (e) => safety.push(e));
  const sup = createSupervisor({ rig, bus, clock, limits: [defaultSafetyLimits()], watchdogStallMs: 3000, ...(wire ? { wire } : {}) });
  await sup.start();
  t.teardown(() => sup.stop());
  return { rig, sup, safety };
}

const turn = () => new Promise((r) => setImmediate(r));

t.test('the watchdog reported first, the guard cut earlier: the trip names the guard, then the watchdog', async (t) => {
  const { rig, sup, safety } = await setup();
  t.ok(sup.requestHeat({ heater: 'fryer', power: 1, op: 'cw.op.deep_fry', medium: 'oil', owner: 'x' }).granted);
  sup.reportCut(watchdogCut);
  t.equal(rig.sim?.snapshot().heaters.fryer, 0, 'heat is cut at the first report');
  t.notOk(sup.status().latched, 'the trip waits for the turn to end');
  const meanwhile = sup.requestHeat({ heater: 'fryer', power: 1, op: 'cw.op.deep_fry', medium: 'oil', owner: 'x' });
  t.notOk(meanwhile.granted, `no heat is granted before the trip is latched (${meanwhile.reason})`);
  t.equal(rig.sim?.snapshot().heaters.fryer, 0, 'and the wire stays off in that turn');
  sup.reportCut(guardCut);
  await turn();
  const trip = sup.status().trip;
  t.equal(trip?.reason, 'watchdog');
  t.equal(trip?.source, 'heat guard', 'named after the control that cut first');
  t.equal(trip?.subject, 'all');
  t.equal(
    trip?.message,
    'the heat guard cut fryer at 2026-12-04T20:00:00.600Z: no lease renewal for 612 ms with heat on; ' +
      'the loop watchdog forced every heater off at 2026-12-04T20:00:00.705Z, after it: the control loop stalled for 705 ms',
  );
  t.equal(safety.length, 1, 'one trip');
  t.notOk(sup.requestHeat({ heater: 'fryer', power: 1, op: 'cw.op.deep_fry', medium: 'oil', owner: 'x' }).granted, 'latched');
});

t.test('the watchdog alone: named with its time', async (t) => {
  const { sup } = await setup();
  sup.reportCut(watchdogCut);
  await turn();
  t.equal(sup.status().trip?.source, 'loop watchdog');
  t.match(sup.status().trip?.message, /^the loop watchdog forced every heater off at 2026-12-04T20:00:00\.705Z: the control loop stalled/);
  t.equal(describeCuts([]), '');
});

t.test('status says a heater whose wire was cut is off, whatever was asked of it', async (t) => {
  let fryerWire: 'on' | 'cut' = 'on';
  const { sup } = await setup((h) => (h === 'fryer' ? fryerWire : 'off'));
  sup.requestHeat({ heater: 'fryer', power: 1, op: 'cw.op.deep_fry', medium: 'oil', owner: 'x' });
  t.equal(sup.status().heaters.fryer?.power, 1);
  fryerWire = 'cut';
  t.same(sup.status().heaters.fryer?.power, 0, 'the guard cut it: off');
  t.equal(sup.status().heaters.fryer?.wire, 'cut');
});
