import t from 'tap';
import { ManualClock } from '../../drivers/clock.js';
import { createRig } from '../../drivers/rig.js';
import type { FaultSpec } from '../../drivers/sim/faults.js';
import type { TemperatureSensor } from '../../drivers/types.js';
import { defaultSafetyLimits } from '../../safety/limits.js';
import { type BusEvents, EventBus } from '../events/bus.js';
import { createSupervisor } from './supervisor.js';
import type { HeatRequest } from './types.js';

async function setup(o: { faults?: FaultSpec[]; redundantOilSensor?: boolean } = {}) {
  const clock = new ManualClock();
  const rig = await createRig({ kind: 'simulated', seed: 7, ...o }, { clock });
  await rig.open();
  const bus = new EventBus();
  const safety: BusEvents['safety'][] = [];
  const heater: BusEvents['heater'][] = [];
  bus.on('safety', (e) => safety.push(e));
  bus.on('heater', (e) => heater.push(e));
  const logs: Record<string, unknown>[] = [];
  // The watchdog has its own test; a generous stall threshold keeps a busy test machine from tripping it here.
  const sup = createSupervisor({ rig, bus, clock, limits: [defaultSafetyLimits()], log: (e) => logs.push(e), watchdogStallMs: 3000 });
  await sup.start();
  const sim = rig.sim!;
  /** Keep asking for heat once a second (the control loop renewing its lease) for `ms`. */
  const heatFor = async (ms: number, req: HeatRequest) => {
    for (let left = ms; left > 0; left -= 1000) {
      sup.requestHeat(req);
      await clock.advanceAsync(Math.min(1000, left));
    }
  };
  t.teardown(() => sup.stop());
  return { clock, rig, sim, bus, sup, safety, heater, logs, heatFor };
}

const fry: HeatRequest = { heater: 'fryer', power: 1, op: 'cw.op.deep_fry', medium: 'oil', targetC: 180, owner: 'exec-1' };

t.test('an open circuit mid-heat cuts heat within one sample and latches with reason, hint and a bus event', async (t) => {
  const s = await setup();
  await s.heatFor(30_000, fry);
  t.equal(s.sim.snapshot().heaters.fryer, 1, 'heating before the fault');
  t.notOk(s.sup.status().latched);
  t.ok(s.sim.snapshot().tempsC.oil > 25, 'the oil warmed');
  s.sup.requestHeat(fry);
  s.sim.injectFault({ kind: 'open_circuit', target: 'oil' });
  await s.clock.advanceAsync(250); // exactly one sample
  const st = s.sup.status();
  t.equal(st.latched, true);
  t.equal(st.trip?.reason, 'sensor_fault');
  t.equal(st.trip?.subject, 'oil');
  t.match(st.trip?.message, /open circuit/);
  t.match(st.trip?.hint, /thermocouple/);
  t.equal(s.sim.snapshot().heaters.fryer, 0, 'heater off');
  t.equal(s.safety.length, 1);
  t.equal(s.safety[0]?.kind, 'trip');
  t.equal(s.safety[0]?.trip?.reason, 'sensor_fault');
  t.ok(
    s.logs.some((l) => l.event === 'safety_trip' && l.reason === 'sensor_fault'),
    'logged',
  );
  t.ok(
    s.heater.some((e) => e.heater === 'fryer' && e.power === 0),
    'heater event',
  );
});

t.test('over-limit: a reading above the pack max trips cut_heat in the sample that sees it', async (t) => {
  const s = await setup();
  s.sim.setTemperature('oil', 195);
  await s.clock.advanceAsync(250);
  t.equal(s.sup.requestHeat(fry).granted, true);
  s.sim.setTemperature('oil', 205);
  await s.clock.advanceAsync(250);
  const trip = s.sup.status().trip;
  t.equal(trip?.reason, 'over_limit');
  t.equal(trip?.subject, 'oil.max_temp');
  t.equal(trip?.limit, 200);
  t.equal(trip?.action, 'cut_heat');
  t.ok((trip?.reading ?? 0) > 200);
  t.equal(s.sim.snapshot().heaters.fryer, 0);
});

t.test('requestHeat clamps the target, honours the recipe narrowing and refuses at the max', async (t) => {
  const s = await setup();
  const g = s.sup.requestHeat({ ...fry, targetC: 250 });
  t.equal(g.granted, true);
  t.equal(g.effectiveMaxC, 200);
  t.equal(g.targetC, 200, 'target clamped to the pack max');
  const narrowed = s.sup.requestHeat({ ...fry, recipeMaxC: 175 });
  t.equal(narrowed.effectiveMaxC, 175);
  const widened = s.sup.requestHeat({ ...fry, recipeMaxC: 260 });
  t.equal(widened.effectiveMaxC, 200, 'a recipe cannot raise the limit');
  const otherOp = s.sup.requestHeat({ ...fry, op: 'cw.op.heat' });
  t.equal(otherOp.effectiveMaxC, 200, 'heating oil by any op: the pack oil limit still applies');
  const noMedium = s.sup.requestHeat({ ...fry, op: 'cw.op.heat', medium: undefined });
  t.equal(noMedium.effectiveMaxC, 200, 'the heater heats oil whatever the step says');
  s.sup.release('fryer', 'exec-1');
  s.sim.setTemperature('oil', 176);
  await s.clock.advanceAsync(250);
  const refused = s.sup.requestHeat({ ...fry, recipeMaxC: 175 });
  t.equal(refused.granted, false);
  t.equal(refused.power, 0);
  t.match(refused.reason, /at or over/);
  t.equal(s.sim.snapshot().heaters.fryer, 0);
  t.equal(s.sup.requestHeat({ ...fry, heater: 'nope' }).granted, false);
  t.equal(s.sup.requestHeat({ ...fry, power: Number.NaN }).granted, false);
  t.equal(s.sup.requestHeat(null as unknown as HeatRequest).granted, false, 'a malformed request is refused, not a crash');
  t.equal(s.sup.requestHeat({ ...fry, owner: 'exec-2' }).granted, true);
  t.equal(s.sup.requestHeat({ ...fry, owner: 'exec-3' }).granted, false, 'someone else holds the lease');
});

t.test('a lease that is not renewed falls off', async (t) => {
  const s = await setup();
  t.equal(s.sup.requestHeat({ ...fry, power: 0.6 }).power, 0.6);
  t.equal(s.sim.snapshot().heaters.fryer, 0.6);
  await s.clock.advanceAsync(2750);
  t.equal(s.sim.snapshot().heaters.fryer, 0.6, 'still on within the lease');
  await s.clock.advanceAsync(500);
  t.equal(s.sim.snapshot().heaters.fryer, 0, 'off after 3 s without renewal');
  t.notOk(s.sup.status().latched, 'an expired lease is not a trip');
  t.ok(s.logs.some((l) => l.event === 'lease_expired'));
});

t.test('a welded relay is detected as heating while off', async (t) => {
  const s = await setup({ faults: [{ kind: 'relay_welded', target: 'fryer', atMs: 10_000 }] });
  await s.clock.advanceAsync(9_000);
  t.notOk(s.sup.status().latched);
  await s.clock.advanceAsync(180_000);
  const trip = s.sup.status().trip;
  t.equal(trip?.reason, 'heating_while_off');
  t.equal(trip?.subject, 'fryer');
  t.match(trip?.hint, /welded/);
});

t.test('a dead heater is detected as thermal runaway', async (t) => {
  const s = await setup({ faults: [{ kind: 'heater_dead', target: 'fryer' }] });
  await s.heatFor(25_000, fry);
  t.notOk(s.sup.status().latched, 'not before the 30 s window');
  await s.heatFor(10_000, fry);
  const trip = s.sup.status().trip;
  t.equal(trip?.reason, 'thermal_runaway');
  t.match(trip?.message, /delivered 60 kJ in 30 s \(average 100%\): oil should have risen about 9\.2 °C but rose 0(\.\d)? °C/);
});

t.test('a sensor that stops answering trips as stale; a detached sensor as runaway', async (t) => {
  const s = await setup({ faults: [{ kind: 'i2c_error', target: 'liquid', atMs: 5_000 }] });
  await s.clock.advanceAsync(6_000);
  t.notOk(s.sup.status().latched, 'one second of errors is tolerated');
  await s.clock.advanceAsync(1_000);
  t.equal(s.sup.status().trip?.reason, 'stale_reading');
  t.equal(s.sup.status().trip?.subject, 'liquid');
  const d = await setup({ faults: [{ kind: 'detached', target: 'pan' }] });
  await d.heatFor(70_000, { heater: 'pan', power: 1, op: 'cw.op.saute', medium: 'pan_surface', owner: 'x' });
  t.equal(d.sup.status().trip?.reason, 'thermal_runaway', JSON.stringify(d.sup.status().trip));
});

t.test('two oil sensors that disagree trip as implausible', async (t) => {
  const s = await setup({ redundantOilSensor: true, faults: [{ kind: 'stuck', target: 'oil2', value: 25 }] });
  await s.heatFor(60_000, fry);
  t.equal(s.sup.status().trip?.reason, 'implausible_pair', JSON.stringify(s.sup.status().trip));
});

t.test('after a trip only a named person can reset, and heat is refused until then', async (t) => {
  const s = await setup();
  const trip = s.sup.cutAll('sensor_fault', 'test cut');
  t.equal(s.sup.cutAll('over_limit', 'again').id, trip.id, 'the first trip stays latched');
  t.equal(s.sup.requestHeat(fry).granted, false);
  t.match(s.sup.requestHeat(fry).reason, /latched/);
  t.equal(s.sup.reset(''), false);
  t.equal(s.sup.reset('alice'), true);
  t.equal(s.safety.at(-1)?.kind, 'reset');
  await s.clock.advanceAsync(250);
  t.equal(s.sup.requestHeat(fry).granted, true);
  t.equal(s.sup.reset('alice'), false, 'nothing to reset');
});

t.test('the e-stop cuts all heat at once and latches until released and reset', async (t) => {
  const s = await setup();
  s.sup.requestHeat(fry);
  s.sup.requestHeat({ heater: 'pot', power: 1, op: 'cw.op.boil', medium: 'water', owner: 'exec-1' });
  s.sim.pressEstop(true);
  t.same(s.sim.snapshot().heaters, { fryer: 0, pot: 0, pan: 0 });
  t.equal(s.sup.status().trip?.reason, 'estop');
  t.equal(s.safety[0]?.kind, 'estop');
  t.equal(s.sup.reset('bob'), false, 'not while the button is pressed');
  s.sim.pressEstop(false);
  t.equal(s.sup.reset('bob'), true);
});

t.test('raising a limit is refused and reported; tightening is accepted', async (t) => {
  const s = await setup();
  const pack = defaultSafetyLimits();
  const raised = { ...pack, limits: pack.limits.map((l) => (l.id === 'oil.max_temp' ? { ...l, max: 250 } : l)) };
  const r = s.sup.attemptLimitChange(raised, 'mqtt:client-9');
  t.equal(r.accepted, false);
  t.equal(r.refused?.[0]?.id, 'oil.max_temp');
  t.equal(s.safety.at(-1)?.kind, 'limit_raise_refused');
  t.match(s.safety.at(-1)?.message, /mqtt:client-9/);
  t.equal(s.sup.effectiveMax('fryer', { op: 'cw.op.deep_fry', medium: 'oil' })?.maxC, 200, 'unchanged');
  const tighter = { ...pack, limits: pack.limits.map((l) => (l.id === 'oil.max_temp' ? { ...l, max: 190 } : l)) };
  t.equal(s.sup.attemptLimitChange(tighter, 'admin').accepted, true);
  const dropped = { ...tighter, limits: tighter.limits.filter((l) => l.id !== 'pan.max_surface') };
  t.equal(s.sup.attemptLimitChange(pack, 'admin').accepted, false, 'going back to 200 °C after 190 °C is a raise');
  t.equal(s.sup.attemptLimitChange(dropped, 'admin').accepted, true, 'leaving a limit out of a proposal does not remove it');
  t.equal(s.sup.effectiveMax('pan', { op: 'cw.op.saute', medium: 'pan_surface' })?.limitId, 'pan.max_surface');
  const weaker = {
    ...pack,
    limits: [{ id: 'pan.max_surface', kind: 'max_temp', max: 280, unit: 'degC', appliesTo: { medium: 'pan_surface' }, action: 'alert' }],
  };
  t.equal(s.sup.attemptLimitChange(weaker, 'flow').accepted, false, 'a weaker action is a loosening');
  t.equal(s.sup.attemptLimitChange({ limits: 'none' } as unknown as typeof pack, 'x').accepted, false, 'malformed');
  t.match(s.safety.at(-1)?.message, /not a SafetyLimits document/);
  t.equal(s.sup.effectiveMax('fryer', { op: 'cw.op.deep_fry', medium: 'oil' })?.maxC, 190);
});

t.test('a sensor read that never returns still cuts heat and latches', async (t) => {
  const s = await setup();
  await s.clock.advanceAsync(250);
  t.equal(s.sup.requestHeat(fry).granted, true);
  const oil = s.rig.sensors.get('oil')!;
  (s.rig.sensors as Map<string, TemperatureSensor>).set('oil', {
    ...oil,
    id: 'oil',
    rangeC: oil.rangeC,
    read: () => new Promise(() => {}),
  });
  for (let i = 0; i < 8; i++) {
    s.sup.requestHeat(fry);
    await s.clock.advanceAsync(250);
  }
  t.equal(s.sup.status().trip?.reason, 'stale_reading');
  t.equal(s.sup.status().trip?.subject, 'sampling');
  t.equal(s.sim.snapshot().heaters.fryer, 0);
});
