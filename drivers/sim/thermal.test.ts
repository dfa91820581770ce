import t from 'tap';
import { ManualClock } from '../clock.js';
import { SimRig } from './sim-rig.js';
import { boilingPointC, demoVessels, Vessel } from './thermal.js';

const oilSpec = () => demoVessels().find((v) => v.medium === 'oil')!;

t.test('a heater warms the oil and losses cool it back towards ambient', async (t) => {
  const v = new Vessel(oilSpec(), 20);
  v.step(60_000, 2000);
  const warm = v.tempC;
  // 2 kW into 6500 J/K for a minute, less a small loss: about 18 °C.
  t.ok(warm > 36 && warm < 39, `warmed to ${warm}`);
  v.step(600_000, 0);
  t.ok(v.tempC < warm && v.tempC > 20, `cooled to ${v.tempC}`);
  const hot = new Vessel(oilSpec(), 20);
  hot.tempC = 180;
  hot.step(60_000, 0);
  t.ok(180 - hot.tempC > 0.5, 'hot oil loses more heat');
});

t.test('integration does not depend on how often the model is asked', async (t) => {
  const a = new Vessel(oilSpec(), 20);
  const b = new Vessel(oilSpec(), 20);
  a.step(120_000, 1500);
  for (let i = 0; i < 480; i++) b.step(250, 1500);
  t.ok(Math.abs(a.tempC - b.tempC) < 1e-6);
});

t.test('water stops at its boiling point, lower at altitude', async (t) => {
  t.equal(boilingPointC(0), 100);
  t.equal(boilingPointC(1500), 95);
  const pot = new Vessel(demoVessels(1500).find((v) => v.medium === 'water')!, 20);
  pot.step(3_600_000, 2500);
  t.equal(pot.tempC, 95);
});

t.test('the simulated rig is deterministic from its seed', async (t) => {
  const run = async (seed: number) => {
    const clock = new ManualClock(0);
    const rig = new SimRig(clock, { seed, faults: [{ kind: 'noisy', target: 'oil' }] });
    await rig.open();
    await rig.heaters.get('fryer')!.set(0.7);
    const out: Array<number | null> = [];
    for (let i = 0; i < 20; i++) {
      clock.advance(5000);
      out.push((await rig.sensors.get('oil')!.read()).tempC);
    }
    return out;
  };
  const a = await run(42);
  t.same(await run(42), a, 'same seed, same readings');
  t.notSame(await run(43), a, 'another seed, other noise');
});

t.test('faults shape what the sensors and heaters do', async (t) => {
  const clock = new ManualClock(0);
  const rig = new SimRig(clock, { ambientC: 20, faults: [{ kind: 'heater_dead', target: 'pot' }] });
  await rig.open();
  await rig.heaters.get('pot')!.set(1);
  clock.advance(60_000);
  t.ok(Math.abs(rig.sim.snapshot().tempsC.liquid - 20) < 0.01, 'dead heater: the water stays cold');
  rig.sim.setTemperature('oil', 150);
  rig.sim.injectFault({ kind: 'detached', target: 'oil' });
  const detached = await rig.sensors.get('oil')!.read();
  t.ok(Math.abs((detached.tempC as number) - 20) < 0.2, 'detached probe reads ambient');
  rig.sim.clearFaults();
  rig.sim.injectFault({ kind: 'stuck', target: 'oil', value: 99 });
  rig.sim.setTemperature('oil', 160);
  t.equal((await rig.sensors.get('oil')!.read()).tempC, 99);
  rig.sim.clearFaults();
  rig.sim.injectFault({ kind: 'relay_welded', target: 'pan' });
  clock.advance(10_000);
  t.ok(rig.sim.snapshot().tempsC.pan > 30, 'welded relay heats although the output is off');
  t.equal(rig.sim.snapshot().heaters.pan, 0);
  t.throws(() => rig.sim.injectFault({ kind: 'melted' as 'stuck', target: 'oil' }), /unknown fault kind/);
  rig.sim.setPresence(true);
  t.equal(rig.sim.snapshot().presence, true);
  t.equal(await rig.presence.read(), true);
});

t.test('a fault named by heater or sensor reaches what it affects; unknown targets are refused', async (t) => {
  const clock = new ManualClock(0);
  const rig = new SimRig(clock, { ambientC: 20, faults: [{ kind: 'open_circuit', target: 'fryer' }] });
  await rig.open();
  t.equal((await rig.sensors.get('oil')!.read()).fault, 'open_circuit', 'sensor fault by heater id → its sensor');
  rig.sim.injectFault({ kind: 'heater_dead', target: 'liquid' });
  t.same(
    rig.sim.snapshot().faults.map((f) => `${f.kind}:${f.target}`),
    ['open_circuit:oil', 'heater_dead:pot'],
  );
  rig.sim.injectFault({ kind: 'serial_lost', target: 'pan' });
  t.equal((await rig.sensors.get('pan')!.read()).fault, 'bus_error');
  t.throws(() => rig.sim.injectFault({ kind: 'stuck', target: 'toaster' }), /neither a sensor nor a heater/);
  t.throws(() => new SimRig(clock, { faults: [{ kind: 'noisy', target: 'x' }] }), /"x"/);
});
