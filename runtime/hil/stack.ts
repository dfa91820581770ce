/**
 * The app stack a scenario runs against: the same composition `hearth start` uses (core, sync, hub,
 * dashboard), in process, on the simulated rig with a manual clock (or on a real rig from a rig file with the
 * system clock), with the scenario's recipe, device and limits. Requests go through the real HTTP routes
 * (Fastify inject), events are read off the bus every transport subscribes to.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pino from 'pino';
import { parseJson } from '../../core/canonical.js';
import { ManualClock } from '../../drivers/clock.js';
import { loadRigConfig } from '../../drivers/rig.js';
import { App } from '../app/app.js';
import { resolveConfig } from '../config/config.js';
import { catalogOf, recipeEntry } from '../config/recipes.js';
import { dashboardFeature } from '../dashboard/feature.js';
import { type Hub, hubFeature } from '../hub/feature.js';
import { syncFeature } from '../sync/feature.js';
import { type IndexFixture, indexFixture } from '../sync/index-fixture.js';
import { repoDir, type Scenario, ScenarioError } from './scenario.js';

export interface Reply {
  status: number;
  body: Record<string, unknown> | undefined;
}

export interface Stack {
  app: App;
  /** Set on the simulated rig: time moves only when the runner says. */
  clock?: ManualClock;
  simulated: boolean;
  recipe?: { id: string; hash: string };
  /** The index the device syncs from, served on 127.0.0.1 (scenarios with a `recall` in their timeline). */
  index?: IndexFixture;
  call(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  close(): Promise<void>;
}

/** The scenario's recipe document: nodes picked from a project recipe, or written inline. */
export function scenarioRecipe(s: Scenario): Record<string, unknown> | undefined {
  const r = s.recipe;
  if (!r) return undefined;
  let base: Record<string, unknown> = { svc: '0.2.0', title: r.id };
  let nodes: unknown[] = [];
  if (r.from) {
    base = parseJson(readFileSync(resolve(repoDir, r.from), 'utf8')) as Record<string, unknown>;
    nodes = ((base.process as { nodes?: unknown[] } | undefined)?.nodes ?? []) as unknown[];
  }
  if (r.nodes) {
    nodes = r.nodes.map((n) => {
      if (typeof n !== 'string') return n;
      const found = nodes.find((x) => (x as { id?: string }).id === n);
      if (!found) throw new ScenarioError(`${s.file}: recipe ${r.from ?? ''} has no node ${n}`);
      return found;
    });
  }
  const { hash: _h, signature: _s, ...rest } = base;
  return { ...rest, id: r.id, process: { nodes } };
}

let keys = 0;

/** Sync timers that never fire: a scenario syncs only when its timeline says. */
const neverFire = { setTimeout: () => 0, clearTimeout: () => {} };

export async function buildStack(s: Scenario, opts: { rigFile?: string } = {}): Promise<Stack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-hil-'));
  let index: IndexFixture | undefined;
  try {
    // A recall in the timeline: a real index (one synthetic recipe; the recall names the scenario's revision).
    if (s.timeline?.some((e) => e.recall)) index = await indexFixture(join(dataDir, 'index'), { count: 1, seed: s.name });
    let rig = opts.rigFile ? resolve(opts.rigFile) : join(dataDir, 'rig.json');
    let simulated = true;
    if (opts.rigFile) simulated = loadRigConfig(rig).kind === 'simulated';
    else writeFileSync(rig, JSON.stringify({ kind: 'simulated', device: 'sim-fryer', seed: 1, ...s.rig }));
    if (!simulated) rig = resolve(opts.rigFile as string);
    const config = {
      ...resolveConfig({
        dataDir,
        httpPort: '0',
        rig,
        ...(s.device?.capabilities ? { device: resolve(repoDir, s.device.capabilities) } : {}),
        ...(s.device?.limits ? { limits: resolve(repoDir, s.device.limits) } : {}),
      }),
      logLevel: 'silent' as const,
      ...(index ? { index: [index.url], trust: index.trustFile } : {}),
    };
    const doc = scenarioRecipe(s);
    const entry = doc ? recipeEntry(doc, `${s.file}#recipe`) : undefined;
    const clock = simulated ? new ManualClock(Date.UTC(2026, 10, 20, 12, 0, 0)) : undefined;
    const app = await App.create(config, {
      ...(clock ? { clock } : {}),
      logger: pino({ level: 'silent' }),
      recipes: catalogOf(entry ? [entry] : []),
      database: ':memory:',
      // The watchdog stays on. Its real-time threshold is 2 s unless a scenario sets it: simulated time is
      // driven by hand on a shared machine, where a scheduler hiccup is not a stalled control loop.
      supervisor: { watchdogStallMs: s.supervisor?.watchdogStallMs ?? 2000 },
    });
    let hub: Hub | undefined;
    app.use(syncFeature(index ? { timers: neverFire } : {}));
    app.use(hubFeature({ onReady: (h) => (hub = h) }));
    app.use(dashboardFeature({ hub: () => hub?.sessions }));
    await app.start({ listen: false });
    const token = app.ctx.tokens.create({ name: 'hil-person', scopes: ['read', 'cook', 'admin'], kind: 'human' }).token;
    const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
      const res = await app.ctx.http.inject({
        method: method as 'GET',
        url,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(method !== 'GET' ? { 'idempotency-key': `hil-${process.pid}-${++keys}` } : {}),
          ...headers,
        },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
      const text = res.body;
      let parsed: Record<string, unknown> | undefined;
      try {
        parsed = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
      } catch {
        parsed = { text };
      }
      return { status: res.statusCode, body: parsed };
    };
    return {
      app,
      clock,
      simulated,
      ...(entry ? { recipe: { id: entry.id, hash: entry.hash } } : {}),
      ...(index ? { index } : {}),
      call,
      async close() {
        try {
          await app.stop();
        } finally {
          await index?.close();
          rmSync(dataDir, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    await index?.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/** Start the scenario's recipe through the Core API, as a household would. */
export async function startExecution(stack: Stack): Promise<Reply> {
  const r = stack.recipe;
  if (!r) throw new ScenarioError('the scenario has no recipe');
  const key = `hil-cook-${process.pid}-${++keys}`;
  return stack.call(
    'POST',
    '/v1/executions',
    {
      core: '0.2.0',
      kind: 'ExecuteRequest',
      id: `req-${key}`,
      recipe: r.id,
      recipeHash: r.hash,
      requestedBy: 'household:hil',
      idempotencyKey: key,
    },
    { 'idempotency-key': key },
  );
}
