/** The supervisor driving the simulated rig's serial hob: heat over the line protocol, and a lost link. */
import t from 'tap';
import { ManualClock } from '../../drivers/clock.js';
import { createRig } from '../../drivers/rig.js';
import { defaultSafetyLimits } from '../../safety/limits.js';
import { EventBus } from '../events/bus.js';
import { createSupervisor } from './supervisor.js';
import type { HeatRequest } from './types.js';

const saute: HeatRequest = { heater: 'pan', power: 1, op: 'cw.op.saute', medium: 'pan_surface', targetC: 200, owner: 'exec-1' };

t.test('a serial hob heats under lease, and a lost link stops it on both ends', async (t) => {
  const clock = new ManualClock();
  const rig = await createRig(
    { kind: 'simulated', hob: 'serial', faults: [{ kind: 'serial_lost', target: 'pan', atMs: 40_000 }] },
    { clock },
  );
  await rig.open();
  t.teardown(() => rig.close());
  const sup = createSupervisor({ rig, bus: new EventBus(), clock, limits: [defaultSafetyLimits()], watchdogStallMs: 3000 });
  await sup.start();
  t.teardown(() => sup.stop());
  t.same(
    (rig as unknown as { watchdogTargets(): Array<{ heater: string; kind: string }> }).watchdogTargets().find((x) => x.heater === 'pan')
      ?.kind,
    'none',
  );
  for (let i = 0; i < 30; i++) {
    t.equal(sup.requestHeat(saute).granted, true);
    await clock.advanceAsync(1000);
  }
  const warm = rig.sim!.snapshot();
  t.ok(warm.tempsC.pan > 60, `the pan heated to ${warm.tempsC.pan} °C over the serial line`);
  t.equal(warm.heaters.pan, 1, 'the hob itself runs at full power');
  t.notOk(sup.status().latched);
  for (let i = 0; i < 12 && !sup.status().latched; i++) {
    sup.requestHeat(saute);
    await clock.advanceAsync(1000);
  }
  t.equal(sup.status().trip?.reason, 'stale_reading', 'no readings over a silent link');
  t.equal(sup.status().trip?.subject, 'pan');
  await clock.advanceAsync(2500);
  t.equal(rig.sim!.snapshot().heaters.pan, 0, 'the hob switched itself off: its own lease ran out');
});

t.test('the serial hob refuses faults it cannot simulate', async (t) => {
  await t.rejects(
    createRig({ kind: 'simulated', hob: 'serial', faults: [{ kind: 'relay_welded', target: 'pan' }] }),
    /takes the faults serial_lost and open_circuit/,
  );
});
