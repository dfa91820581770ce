/**
 * The run-time ladder inside the app: koshari's pan heating (n7, ladder pan sensor → model → human) loses the
 * pan sensor mid-step and falls to the person; its boil (n1, ladder liquid sensor → boil_detect → model →
 * time) cannot fall anywhere without heat and stops safely. The trip is in the status either way.
 */
import t from 'tap';
import { executeRequest, KOSHARI, newKey, startTestApp, type TestApp } from '../app/testing.js';
import type { ExecuteRequest, ExecutionLog } from './types.js';

function start(h: TestApp): string {
  const r = h.app.ctx.executor.start(executeRequest(h.app, KOSHARI, newKey()) as unknown as ExecuteRequest, null);
  if (r.kind !== 'status') throw new Error('unknown recipe');
  return r.status.id;
}

async function until(h: TestApp, pred: () => boolean, maxMs: number, stepMs = 10_000): Promise<void> {
  for (let waited = 0; waited <= maxMs; waited += stepMs) {
    if (pred()) return;
    await h.clock.advanceAsync(stepMs);
  }
  throw new Error('condition never held');
}

t.test('a heat step whose sensor fails falls to a person; resume waits for the reset, then confirms', async (t) => {
  const h = await startTestApp();
  t.teardown(() => h.close());
  const { executor, rig, supervisor } = h.app.ctx;
  rig.sim?.setPresence(true);
  const id = start(h);
  await until(h, () => executor.status(id)?.step?.node === 'n7', 3 * 60 * 60_000);
  await h.clock.advanceAsync(20_000);
  rig.sim?.injectFault({ kind: 'open_circuit', target: 'pan' });
  await h.clock.advanceAsync(500);
  const s = executor.status(id);
  t.equal(s?.state, 'needs_human', 'the step asks a person instead of stopping');
  t.match(s?.humanNeeded?.why, /sensor pan failed mid-step \(sensor_fault\) and heat is off.*reset the safety stop/);
  t.match(s?.['x-hearth-safety'], { reason: 'sensor_fault', subject: 'pan', hint: /thermocouple/ });
  t.same(
    Object.values(supervisor.status().heaters).map((x) => x.power),
    [0, 0, 0],
    'every heater off',
  );
  const latched = executor.resume(id, '*');
  t.match(latched, { kind: 'conflict', why: 'state', message: /safety stop is latched/ });
  rig.sim?.clearFaults();
  await h.clock.advanceAsync(500);
  t.ok(supervisor.reset('a person'));
  rig.sim?.setPresence(false);
  t.match(executor.resume(id, '*'), { kind: 'conflict', why: 'presence' }, 'only a person at the appliance confirms');
  rig.sim?.setPresence(true);
  const resumed = executor.resume(id, '*');
  t.equal(resumed.kind, 'ok');
  await h.clock.advanceAsync(1000);
  t.not(executor.status(id)?.step?.node, 'n7', 'the confirmed step is done');
  executor.stop(id);
  const log = executor.executionLog(id) as ExecutionLog;
  t.match(
    log.steps.find((x) => x.node === 'n7'),
    { verifiedBy: 'human', deviation: { kind: 'human_took_over' } },
  );
  t.match(log['x-hearth-events'], [{ kind: 'sensor_fallback', message: /falls to the human rung \(skipped: model/, hint: /thermocouple/ }]);
  t.match(log.humanInterventions, [{ kind: 'confirm' }]);
});

t.test('a heat step with no rung left without heat stops safely, saying what it tried', async (t) => {
  const h = await startTestApp();
  t.teardown(() => h.close());
  const { executor, rig } = h.app.ctx;
  rig.sim?.setPresence(true);
  const id = start(h);
  await until(h, () => executor.status(id)?.step?.node === 'n1', 60_000, 500);
  await h.clock.advanceAsync(60_000);
  rig.sim?.injectFault({ kind: 'open_circuit', target: 'liquid' });
  await h.clock.advanceAsync(500);
  t.equal(executor.status(id)?.state, 'stopped');
  const log = executor.executionLog(id) as ExecutionLog;
  t.equal(log.outcome, 'aborted_safe');
  t.match(log['x-hearth-events'], [
    {
      kind: 'safety_stop',
      message: /no rung after cw.sense.liquid_temp that holds without liquid: cw.sense.boil_detect .*; model .*; time/,
    },
  ]);
});
