import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { executeRequest, KOSHARI, newKey, startTestApp, type TestApp } from '../app/testing.js';
import type { ExecuteRequest, ExecutionLog } from './types.js';

function start(h: TestApp, recipe = KOSHARI) {
  const key = newKey();
  const r = h.app.ctx.executor.start(executeRequest(h.app, recipe, key) as unknown as ExecuteRequest, null);
  if (r.kind !== 'status') throw new Error('unknown recipe');
  return r.status;
}

async function until(h: TestApp, pred: () => boolean, maxMs: number, stepMs = 10_000): Promise<void> {
  for (let waited = 0; waited <= maxMs; waited += stepMs) {
    if (pred()) return;
    await h.clock.advanceAsync(stepMs);
  }
  throw new Error('condition never held');
}

const state = (h: TestApp, id: string) => h.app.ctx.executor.status(id)?.state;

t.test('koshari on the simulated fryer, with a person present, runs to the end', async (t) => {
  const h = await startTestApp();
  t.teardown(() => h.close());
  h.app.ctx.rig.sim?.setPresence(true);
  const seqs: number[] = [];
  const states: string[] = [];
  h.app.ctx.bus.on('execution.state', (e) => {
    seqs.push(e.seq);
    if (states.at(-1) !== e.state) states.push(e.state);
  });
  const s = start(h);
  let sawOilHeat = false;
  let maxOil = 0;
  h.app.ctx.bus.on('telemetry', (r) => {
    if (r.sensor === 'oil' && typeof r.tempC === 'number') maxOil = Math.max(maxOil, r.tempC);
  });
  await until(
    h,
    () => {
      if ((h.app.ctx.rig.heaters.get('fryer')?.power ?? 0) > 0) sawOilHeat = true;
      return (
        h.app.ctx.executor.status(s.id)?.state !== 'running' &&
        h.app.ctx.executor.status(s.id)?.state !== 'preparing' &&
        h.app.ctx.executor.status(s.id)?.state !== 'needs_human'
      );
    },
    4 * 60 * 60_000,
  );
  t.equal(h.app.ctx.supervisor.status().latched, false, 'no safety stop along the way');
  const events = (h.app.ctx.executor.executionLog(s.id) as ExecutionLog)['x-hearth-events'];
  t.same(events, [], 'nothing went wrong along the way');
  t.ok(sawOilHeat, 'the fryer heated for the deep-fry step');
  t.ok(maxOil >= 172 && maxOil <= 190, `oil stayed in the deep-fry band (max ${maxOil.toFixed(1)} °C)`);
  t.same(states, ['accepted', 'preparing', 'running', 'completed']);
  t.ok(
    seqs.every((v, i) => i === 0 || v === (seqs[i - 1] as number) + 1),
    'seq grows by one per change',
  );
  const log = h.app.ctx.executor.executionLog(s.id) as ExecutionLog;
  t.equal(log.steps.length, 20);
  t.ok(['served', 'partial'].includes(log.outcome ?? ''), `outcome ${log.outcome}`);
  t.same(log.privacy, { personalData: 'none' });
  const fry = log.steps.find((x) => x.node === 'n14');
  t.match(fry, { op: 'cw.op.deep_fry', verifiedBy: 'sensor', envelopeOk: true });
  t.match(fry?.summary, [{ sensor: 'cw.sense.oil_temp', unit: 'degC' }]);
  for (const heater of h.app.ctx.rig.heaters.values()) t.equal(heater.power, 0, `${heater.id} off at the end`);
});

t.test('an attended step without a person: needs_human, heat off, resume only with presence', async (t) => {
  const h = await startTestApp();
  t.teardown(() => h.close());
  const sim = h.app.ctx.rig.sim;
  sim?.setPresence(true);
  const s = start(h);
  // n7 (heat the pan) is the first step that may not run unattended.
  await until(
    h,
    () => h.app.ctx.executor.status(s.id)?.step?.node === 'n7' && (h.app.ctx.rig.heaters.get('pan')?.power ?? 0) > 0,
    3 * 60 * 60_000,
  );
  sim?.setPresence(false);
  await h.clock.advanceAsync(1000);
  const waiting = h.app.ctx.executor.status(s.id);
  t.equal(waiting?.state, 'needs_human');
  t.match(waiting?.humanNeeded?.why, /needs a person present/);
  t.equal(h.app.ctx.rig.heaters.get('pan')?.power, 0, 'pan heat cut');
  const refused = h.app.ctx.executor.resume(s.id, `"${waiting?.seq}"`);
  t.match(refused, { kind: 'conflict', why: 'presence' });
  t.match(h.app.ctx.executor.resume(s.id, '"0"'), { kind: 'precondition_failed' });
  sim?.setPresence(true);
  const ok = h.app.ctx.executor.resume(s.id, `"${waiting?.seq}"`);
  t.equal(ok.kind, 'ok');
  t.equal(state(h, s.id), 'running');
  await h.clock.advanceAsync(2000);
  t.ok((h.app.ctx.rig.heaters.get('pan')?.power ?? 0) > 0, 'heat back after resume');
  h.app.ctx.executor.stop(s.id);
  const log = h.app.ctx.executor.executionLog(s.id) as ExecutionLog;
  t.match(log.humanInterventions, [{ kind: 'confirm' }, { kind: 'stop' }]);
  t.ok(log['x-hearth-events'].some((e) => e.kind === 'presence_lost'));
});

t.test('a safety trip stops the execution safely and is logged', async (t) => {
  const h = await startTestApp();
  t.teardown(() => h.close());
  h.app.ctx.rig.sim?.setPresence(true);
  const s = start(h);
  await until(h, () => (h.app.ctx.rig.heaters.get('pot')?.power ?? 0) > 0, 60_000, 1000);
  h.app.ctx.rig.sim?.setTemperature('oil', 260);
  await h.clock.advanceAsync(1000);
  t.equal(state(h, s.id), 'stopped');
  for (const heater of h.app.ctx.rig.heaters.values()) t.equal(heater.power, 0, `${heater.id} off`);
  const log = h.app.ctx.executor.executionLog(s.id) as ExecutionLog;
  t.equal(log.outcome, 'aborted_safe');
  t.equal(log.safetyEvents.length, 1);
  t.match(log.safetyEvents[0], { node: 'n1' });
  t.ok(log['x-hearth-events'].some((e) => e.kind === 'safety_stop'));
  // While the stop is latched nothing new may cook.
  const again = start(h);
  t.match(again.refusal, { reason: 'safety_limit' });
});

t.test('pause and resume (for the hub)', async (t) => {
  const h = await startTestApp();
  t.teardown(() => h.close());
  h.app.ctx.rig.sim?.setPresence(true);
  const s = start(h);
  await until(h, () => (h.app.ctx.rig.heaters.get('pot')?.power ?? 0) > 0, 60_000, 1000);
  const paused = h.app.ctx.executor.pause(s.id);
  t.equal(paused?.state, 'paused');
  t.equal(h.app.ctx.rig.heaters.get('pot')?.power, 0);
  await h.clock.advanceAsync(5000);
  t.equal(h.app.ctx.rig.heaters.get('pot')?.power, 0, 'no heat while paused');
  t.equal(h.app.ctx.executor.resume(s.id, '*').kind, 'ok');
  await h.clock.advanceAsync(1000);
  t.ok((h.app.ctx.rig.heaters.get('pot')?.power ?? 0) > 0);
  h.app.ctx.executor.stop(s.id);
});

t.test('after a restart every active execution is stopped with a log entry; nothing resumes', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-restart-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const first = await startTestApp({ dataDir: dir });
  first.app.ctx.rig.sim?.setPresence(true);
  const s = start(first);
  await until(first, () => (first.app.ctx.rig.heaters.get('pot')?.power ?? 0) > 0, 60_000, 1000);
  // Simulate a crash: close the store under the running execution without stopping it.
  first.app.ctx.db.close();
  t.teardown(() => first.app.ctx.supervisor.stop());
  const second = await startTestApp({ dataDir: dir });
  t.teardown(() => second.close());
  const after = second.app.ctx.executor.status(s.id);
  t.equal(after?.state, 'stopped');
  const log = second.app.ctx.executor.executionLog(s.id) as ExecutionLog;
  t.equal(log.outcome, 'aborted_safe');
  t.match(log['x-hearth-events'].at(-1), { kind: 'restart', message: /was running/ });
  for (const heater of second.app.ctx.rig.heaters.values()) t.equal(heater.power, 0);
  t.equal(second.app.ctx.executor.activeId, undefined);
  t.equal(second.app.ctx.supervisor.status().trip?.reason, 'unclean_stop', 'an end with heat on latches until a person resets it');
  await second.clock.advanceAsync(10_000);
  t.equal(second.app.ctx.executor.status(s.id)?.state, 'stopped', 'it stays stopped');
});

t.test('shutting down stops and logs the running execution, heat off', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-shutdown-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const h = await startTestApp({ dataDir: dir });
  h.app.ctx.rig.sim?.setPresence(true);
  const s = start(h);
  await until(h, () => (h.app.ctx.rig.heaters.get('pot')?.power ?? 0) > 0, 60_000, 1000);
  await h.app.stop();
  for (const heater of h.app.ctx.rig.heaters.values()) t.equal(heater.power, 0, `${heater.id} off`);
  const again = await startTestApp({ dataDir: dir });
  t.teardown(() => again.close());
  const log = again.app.ctx.executor.executionLog(s.id) as ExecutionLog;
  t.equal(log.outcome, 'aborted_safe');
  t.match(log['x-hearth-events'], [{ kind: 'shutdown', message: 'the device is shutting down' }]);
  t.same(log.humanInterventions, [], 'a shutdown is not a person stopping it');
  t.equal(log['x-hearth-events'].length, 1, 'stopped at shutdown, not found active at the restart');
  t.notOk(again.app.ctx.supervisor.status().latched, 'a clean stop with heat on latches nothing');
});
