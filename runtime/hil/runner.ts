/**
 * Run one scenario: build the stack, start the recipe (when there is one), move time in sample-sized steps
 * while firing the timeline, then read the status, log and safety state over HTTP and check the expectations.
 * On a real rig, time is real and what the simulator would do (a fault, a person walking away) is printed
 * as an instruction for the person running the test, who presses Enter once it is done.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadRigConfig } from '../../drivers/rig.js';
import { validateRecipeSemantics } from '../../safety/validate-recipe.js';
import type { HeatRequest } from '../supervisor/types.js';
import { publishRecall } from '../sync/index-fixture.js';
import { type Bound, evaluate, type Figures } from './expect.js';
import { type Observations, observe } from './observe.js';
import { hilDir, ms, type Scenario, type TimelineEntry } from './scenario.js';
import { buildStack, type Stack, scenarioRecipe, startExecution } from './stack.js';

export interface RunOptions {
  /** A rig file (simulated or hardware); default: the simulated demo rig with the scenario's options. */
  rigFile?: string;
  /** Real rig: show an instruction and resolve once the person has done it. */
  ask?: (instruction: string) => Promise<void>;
}

export interface ScenarioResult {
  name: string;
  ok: boolean;
  skipped?: string;
  failures: string[];
  figures: Figures;
  /** The bounds checked and what was measured against each (absent when the scenario did not run). */
  bounds?: Bound[];
  /** Wall-clock ms the run took (set by the CLI around runScenario). */
  ms?: number;
  obs?: Observations;
}

/** Runner step (device-clock ms): one supervisor sample. */
const STEP_MS = 250;

function due(entry: TimelineEntry, obs: Observations, seenSteps: Map<string, number>): number | undefined {
  const at = entry.at;
  if (typeof at === 'string' || typeof at === 'number') return obs.startedAt + ms(at);
  if ('step' in at) {
    const seen = seenSteps.get(at.step);
    return seen === undefined ? undefined : seen + ms(at.after);
  }
  const t = obs.labels.get(at.label);
  return t === undefined ? undefined : t + ms(at.after);
}

function describe(entry: TimelineEntry): string {
  const { at: _a, label: _l, manual: _m, ...action } = entry;
  return JSON.stringify(action);
}

const DEFAULT_MANUAL: Record<string, (e: TimelineEntry) => string> = {
  presence: (e) => (e.presence ? 'stand at the appliance (the presence sensor must see you)' : 'step away from the appliance'),
  fault: (e) => `make the fault ${e.fault?.kind} on ${e.fault?.target}`,
  clearFaults: () => 'undo the fault (reconnect what was unplugged)',
  temperature: (e) => `bring ${e.temperature?.sensor} to ${e.temperature?.tempC} °C`,
};

export async function runScenario(s: Scenario, o: RunOptions = {}): Promise<ScenarioResult> {
  if (o.rigFile && s.hardware === 'simulated-only' && loadRigConfig(o.rigFile).kind !== 'simulated') {
    return { name: s.name, ok: true, skipped: 'simulated only', failures: [], figures: {} };
  }
  const stack = await buildStack(s, { rigFile: o.rigFile });
  try {
    return await drive(s, stack, o);
  } finally {
    await stack.close();
  }
}

async function drive(s: Scenario, stack: Stack, o: RunOptions): Promise<ScenarioResult> {
  const { app } = stack;
  const ctx = app.ctx;
  const now = () => ctx.clock.now();
  const powers = () => Object.fromEntries([...ctx.rig.heaters.values()].map((h) => [h.id, h.power]));
  const { obs, stop: unobserve } = observe(ctx.bus, now, powers);
  for (const sensor of ctx.rig.sensors.values()) obs.media[sensor.id] = sensor.medium;
  const advance = async (d: number) => {
    if (stack.clock) await stack.clock.advanceAsync(d);
    else await sleep(d);
  };
  const sim = ctx.rig.sim;
  if (s.presentAtStart) {
    if (sim) sim.setPresence(true);
    else await o.ask?.('stand at the appliance (the presence sensor must see you)');
  }
  await advance(STEP_MS);
  obs.startedAt = now();
  obs.labels.set('start', obs.startedAt);
  if (stack.recipe) {
    const r = await startExecution(stack);
    obs.executionId = r.body?.id as string | undefined;
    obs.http.push({ action: 'start', status: r.status, state: r.body?.state });
    if (r.body?.state === 'refused') {
      obs.finalAt = now();
      obs.labels.set('final', obs.finalAt);
    }
  }
  const pending = [...(s.timeline ?? [])];
  const seenSteps = new Map<string, number>();
  const heats: { req: HeatRequest; every: number; next: number }[] = [];
  const end = obs.startedAt + ms(s.runFor, 30 * 60_000);
  const settle = ms(s.settle, 2000);
  while (now() < end) {
    const step = obs.executionId ? ctx.executor.status(obs.executionId)?.step?.node : undefined;
    if (step !== undefined && !seenSteps.has(step)) seenSteps.set(step, now());
    for (let i = 0; i < pending.length; ) {
      const entry = pending[i] as TimelineEntry;
      const t = due(entry, obs, seenSteps);
      if (t === undefined || t > now()) {
        i++;
        continue;
      }
      pending.splice(i, 1);
      await fire(entry, stack, obs, heats, o);
    }
    for (const h of heats) {
      if (now() < h.next) continue;
      h.next = now() + h.every;
      const grant = ctx.supervisor.requestHeat(h.req);
      const last = obs.grants.at(-1);
      const g = { heater: h.req.heater, ...grant };
      if (JSON.stringify(last) !== JSON.stringify(g)) obs.grants.push(g);
    }
    obs.powers.push({ t: now(), heaters: powers() });
    if (sim) {
      const snap = sim.snapshot();
      for (const [id, c] of Object.entries(snap.tempsC)) if (!(c <= (obs.trueMaxC[id] ?? Number.NEGATIVE_INFINITY))) obs.trueMaxC[id] = c;
      const wire = { ...snap.heaters };
      for (const f of snap.faults) if (f.kind === 'relay_welded' && f.target in wire && f.atMs === undefined) wire[f.target] = 1;
      obs.trace.push({ t: now(), trueC: snap.tempsC, wire });
    }
    if (pending.length === 0 && obs.finalAt !== undefined && now() >= obs.finalAt + settle) break;
    await advance(STEP_MS);
  }
  for (const h of heats) ctx.supervisor.release(h.req.heater, h.req.owner);
  obs.unfired = pending.map(describe);
  if (obs.executionId) {
    obs.status = (await stack.call('GET', `/v1/executions/${obs.executionId}`)).body;
    const log = await stack.call('GET', `/v1/executions/${obs.executionId}/log`);
    if (log.status === 200) obs.log = log.body;
  }
  obs.safety = (await stack.call('GET', '/svc/v1/safety')).body;
  obs.limits = (await stack.call('GET', '/v1/safety-limits')).body;
  const doc = scenarioRecipe(s);
  if (doc) obs.validation = validateRecipeSemantics(doc);
  unobserve();
  const { failures, figures, bounds } = evaluate(s.expect, obs);
  return { name: s.name, ok: failures.length === 0, failures, figures, bounds, obs };
}

async function fire(
  entry: TimelineEntry,
  stack: Stack,
  obs: Observations,
  heats: { req: HeatRequest; every: number; next: number }[],
  o: RunOptions,
): Promise<void> {
  const ctx = stack.app.ctx;
  const sim = ctx.rig.sim;
  const mark = (name: string) => {
    if (!obs.labels.has(name)) obs.labels.set(name, ctx.clock.now());
  };
  const needsWorld = entry.presence !== undefined || entry.fault || entry.clearFaults || entry.temperature;
  if (needsWorld && !sim) {
    const kind = Object.keys(DEFAULT_MANUAL).find((k) => k in entry) as string;
    await o.ask?.(entry.manual ?? (DEFAULT_MANUAL[kind] as (e: TimelineEntry) => string)(entry));
  } else if (entry.presence !== undefined) sim?.setPresence(entry.presence);
  else if (entry.fault) sim?.injectFault(entry.fault);
  else if (entry.clearFaults) sim?.clearFaults();
  else if (entry.temperature) sim?.setTemperature(entry.temperature.sensor, entry.temperature.tempC);
  if (entry.fault) mark('fault');
  if (entry.label) mark(entry.label);
  if (entry.heat) {
    const { renewMs, ...req } = entry.heat;
    heats.push({ req: { ...req, owner: 'hil:component' }, every: ms(renewMs, 1000), next: ctx.clock.now() });
  }
  if (entry.stall !== undefined) {
    const wallNow = () => performance.timeOrigin + performance.now();
    // What the outputs physically carry: on the simulated rig the duty the thermal model reads (which the
    // watchdog worker writes), not what any component recorded. Reading it needs no event loop.
    const physical = () => (sim ? sim.snapshot().heaters : Object.fromEntries([...ctx.rig.heaters.values()].map((h) => [h.id, h.power])));
    const began = wallNow();
    const until = began + ms(entry.stall);
    const onAtStart = Object.fromEntries(Object.entries(physical()).filter(([, p]) => p > 0));
    const stall: Observations['stalls'][number] = { onAtStart };
    while (wallNow() < until) {
      // The control loop is stalled: only the watchdog can switch the outputs off. Watch them physically.
      if (stall.offAfterMs === undefined && Object.values(physical()).every((p) => p === 0)) stall.offAfterMs = wallNow() - began;
    }
    obs.stalls.push(stall);
    if (obs.watchdogOffMs === undefined && stall.offAfterMs !== undefined) obs.watchdogOffMs = stall.offAfterMs;
    // Let the main thread see the watchdog's report (a real-time heartbeat) and latch the stop.
    await sleep(150);
  }
  const exec = obs.executionId;
  if (entry.resume && exec) {
    const seq = (await stack.call('GET', `/v1/executions/${exec}`)).body?.seq;
    const r = await stack.call('POST', `/v1/executions/${exec}/resume`, undefined, { 'if-match': `"${String(seq)}"` });
    obs.http.push({ action: 'resume', status: r.status, body: r.body });
  }
  if (entry.reset) {
    const r = await stack.call('POST', '/svc/v1/safety/reset', {});
    obs.http.push({ action: 'reset', status: r.status, body: r.body });
    mark('reset');
  }
  if (entry.stop && exec) {
    const r = await stack.call('POST', `/v1/executions/${exec}/stop`);
    obs.http.push({ action: 'stop', status: r.status, body: r.body });
  }
  if (entry.recall) {
    const index = stack.index;
    const recipe = stack.recipe;
    if (!index || !recipe) throw new Error('a recall needs the scenario recipe and its index');
    const id = entry.recall.id ?? `rc-${recipe.id}`;
    publishRecall(index, id, recipe.id, { hash: recipe.hash, action: entry.recall.action });
    index.build();
    const r = await stack.call('POST', '/svc/v1/sync', {});
    obs.http.push({ action: 'recall', status: r.status, body: r.body });
    mark('recall');
  }
  if (entry.proposeLimits !== undefined) {
    const body = typeof entry.proposeLimits === 'string' ? readPack(entry.proposeLimits) : entry.proposeLimits;
    const r = await stack.call('PUT', '/v1/safety-limits', body);
    obs.http.push({ action: 'proposeLimits', status: r.status, body: r.body });
  }
}

function readPack(path: string): unknown {
  return JSON.parse(readFileSync(resolve(hilDir, path), 'utf8'));
}
