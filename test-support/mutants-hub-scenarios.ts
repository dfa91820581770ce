/**
 * Process-level scenarios of the mutation run for the controls that act in the hub: stop with any body, the
 * latch across a restart, who may reset it, and the OS nodes Node-RED does not load. Each runs the real hub
 * (real HTTP over a socket, a real SQLite file where a restart is involved, Node-RED in a spawned
 * `hearth start --flows`) and judges the physical outcome: the power the simulated heaters carry (the duty the
 * thermal model integrates), or the level a GPIO line's value file carries. Each fails when its own control is
 * disabled through the test-only seam (in this process, or by an `--import` preload in a spawned one).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import WebSocket from 'ws';
import { SimGpio } from '../drivers/buses/gpio.js';
import { TokenStore, tokensMigration } from '../platform/http/auth.js';
import { withCliDatabase } from '../runtime/cli/database.js';
import { FRY_RECIPE } from '../runtime/hub/test-helpers.js';
import type { SafetyControl } from '../safety/controls.js';
import { spawnCli } from './cli.js';
import { type FullHub, startFullHub } from './hub-app.js';
import { disablePreload, type OutputScenario, type ScenarioResult } from './output-scenarios.js';

const DISABLED = Symbol.for('hearth.test-support.disabled-safety-controls');

async function withDisabled<T>(disabled: Set<SafetyControl>, fn: () => Promise<T>): Promise<T> {
  const g = globalThis as Record<symbol, unknown>;
  const before = g[DISABLED];
  g[DISABLED] = new Set(disabled);
  try {
    return await fn();
  } finally {
    g[DISABLED] = before;
  }
}

/** The power each simulated heater physically carries. */
function carried(h: FullHub): Record<string, number> {
  const sim = h.app.ctx.rig.sim;
  if (!sim) throw new Error('not the simulated rig');
  return sim.snapshot().heaters;
}

const allOff = (p: Record<string, number>) => Object.values(p).every((v) => v === 0);
const anyOn = (p: Record<string, number>) => Object.values(p).some((v) => v > 0);

/** A component holds the fryer at full power through the supervisor, as a flow or a step would (after a fresh sample). */
async function heatOn(h: FullHub): Promise<boolean> {
  await h.clock.advanceAsync(500);
  h.app.ctx.supervisor.requestHeat({ heater: 'fryer', owner: 'scenario', power: 1, op: 'heat', medium: 'oil', targetC: 150 });
  return anyOn(carried(h));
}

/** Start the fry recipe with a person present; the answer's body (an ExecutionStatus). */
async function startFry(h: FullHub, token: string): Promise<Record<string, unknown>> {
  await h.presence(true);
  const key = `scenario-cook-${Math.random().toString(36).slice(2, 10)}`;
  const recipe = h.app.ctx.recipes.get(FRY_RECIPE);
  const r = await h.call('POST', '/v1/executions', {
    token,
    key,
    body: {
      core: '0.2.0',
      kind: 'ExecuteRequest',
      id: `req-${key}`,
      recipe: FRY_RECIPE,
      recipeHash: recipe?.hash,
      requestedBy: 'household:scenario',
      idempotencyKey: key,
    },
  });
  return r.body;
}

/** Start the fry recipe and run until the fryer physically heats; the execution id. */
async function cooking(h: FullHub, token: string): Promise<string | undefined> {
  const id = (await startFry(h, token)).id as string | undefined;
  await h.runUntil(() => anyOn(carried(h)), 10 * 60_000, 500);
  return id;
}

async function stopWithBadBodies(disabled: Set<SafetyControl>): Promise<ScenarioResult> {
  return withDisabled(disabled, async () => {
    const h = await startFullHub();
    const notes: string[] = [];
    let ok = true;
    const check = (what: string, status: number, off: boolean) => {
      const good = status >= 200 && status < 300 && off;
      if (!good) ok = false;
      notes.push(`${what}: ${status}, heat ${off ? 'off' : 'ON'}`);
    };
    try {
      const cook = h.token(['read', 'cook']);
      const id = await cooking(h, cook);
      if (!id || !anyOn(carried(h))) return { ok: false, detail: 'the fry never heated: nothing to stop' };
      // The executor's stop with truncated JSON.
      const stop = await fetch(`${h.url}/v1/executions/${id}/stop`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"reason": "smoke',
      });
      check('executor stop, truncated JSON', stop.status, allOff(carried(h)));
      // The hub's e-stop with 100 KB of text under a wrong content type.
      if (!(await heatOn(h))) return { ok: false, detail: `${notes.join('; ')}; the fryer could not be heated again` };
      const estop = await fetch(`${h.url}/svc/v1/safety/estop`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.token(['read'])}`, 'content-type': 'text/plain' },
        body: 'x'.repeat(100_000),
      });
      check('e-stop, 100 KB text/plain', estop.status, allOff(carried(h)));
      // MCP emergency_stop with a non-string reason and an extra member.
      h.app.ctx.supervisor.reset('scenario');
      if (!(await heatOn(h))) return { ok: false, detail: `${notes.join('; ')}; the fryer could not be heated again` };
      const client = new Client({ name: 'stop-scenario', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${h.url}/svc/v1/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${h.token(['read'], 'agent')}` } },
        }),
      );
      try {
        const r = await client.callTool({ name: 'emergency_stop', arguments: { reason: 42, extra: true } }).catch((err: unknown) => ({
          isError: true,
          message: (err as Error).message,
        }));
        check('MCP emergency_stop {reason: 42, extra: true}', r.isError ? 400 : 200, allOff(carried(h)));
      } finally {
        await client.close();
      }
      return { ok, detail: notes.join('; ') };
    } finally {
      await h.close();
    }
  });
}

async function latchAcrossRestart(disabled: Set<SafetyControl>): Promise<ScenarioResult> {
  return withDisabled(disabled, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-mutant-latch-'));
    try {
      const first = await startFullHub({ dataDir });
      try {
        const cook = first.token(['read', 'cook']);
        await cooking(first, cook);
        const e = await first.call('POST', '/svc/v1/safety/estop', { token: cook, body: { reason: 'scenario' } });
        if (e.status !== 202) return { ok: false, detail: `the e-stop answered ${e.status}` };
      } finally {
        await first.close();
      }
      // The same data directory, a new hub: the stop must still hold.
      const h = await startFullHub({ dataDir });
      try {
        const cook = h.token(['read', 'cook']);
        const latched = (await h.call('GET', '/svc/v1/safety', { token: cook })).body.latched === true;
        const started = await startFry(h, cook);
        const state = started.state;
        const off = allOff(carried(h));
        const granted = h.app.ctx.supervisor.requestHeat({
          heater: 'fryer',
          owner: 'scenario',
          power: 1,
          op: 'heat',
          medium: 'oil',
        }).granted;
        const detail = `after the restart: latched ${latched}, a start is ${String(state)}, heat ${off && !granted ? 'off' : 'ON'}`;
        if (!latched || state !== 'refused' || !off || granted) return { ok: false, detail };
        const admin = h.token(['read', 'admin']);
        const reset = await h.call('POST', '/svc/v1/safety/reset', { token: admin, body: {} });
        const again = await heatOn(h);
        h.app.ctx.supervisor.release('fryer', 'scenario');
        return {
          ok: reset.status === 200 && again,
          detail: `${detail}; an admin person's reset ${reset.status}, then heat ${again ? 'allowed' : 'still refused'}`,
        };
      } finally {
        await h.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}

async function resetNeedsAuthority(disabled: Set<SafetyControl>): Promise<ScenarioResult> {
  return withDisabled(disabled, async () => {
    const h = await startFullHub();
    try {
      const cook = h.token(['read', 'cook']);
      await cooking(h, cook);
      await h.call('POST', '/svc/v1/safety/estop', { token: cook, body: {} });
      await h.presence(false);
      const notes: string[] = [];
      let refusedAll = true;
      for (const [who, token] of [
        ['a person with cook, nobody at the appliance', cook],
        ['an agent with admin', h.token(['read', 'admin'], 'agent')],
      ] as const) {
        const r = await h.call('POST', '/svc/v1/safety/reset', { token, body: {} });
        const latched = h.app.ctx.supervisor.status().latched;
        const granted = h.app.ctx.supervisor.requestHeat({
          heater: 'fryer',
          owner: 'scenario',
          power: 1,
          op: 'heat',
          medium: 'oil',
        }).granted;
        if (!latched || granted || anyOn(carried(h))) refusedAll = false;
        notes.push(`${who}: ${r.status}, ${latched ? 'still latched' : 'RESET'}, heat ${granted ? 'GRANTED' : 'refused'}`);
        h.app.ctx.supervisor.release('fryer', 'scenario');
      }
      const admin = await h.call('POST', '/svc/v1/safety/reset', { token: h.token(['read', 'admin']), body: {} });
      notes.push(`a person with admin: ${admin.status}`);
      return { ok: refusedAll && admin.status === 200 && !h.app.ctx.supervisor.status().latched, detail: notes.join('; ') };
    } finally {
      await h.close();
    }
  });
}

/** A flow whose file node drives GPIO line 17 through sysfs (the simulated tree) the moment it is deployed. */
function gpioFlow(valueFile: string): unknown[] {
  return [
    { id: 'tab', type: 'tab', label: 'around the supervisor' },
    { id: 'go', z: 'tab', type: 'inject', once: true, onceDelay: 0.1, payload: '1', payloadType: 'str', topic: '', wires: [['gpio']] },
    { id: 'gpio', z: 'tab', type: 'file', filename: valueFile, appendNewline: false, createDir: false, overwriteFile: 'true', wires: [] },
  ];
}

type RuntimeState = { state?: string; deploy?: boolean; error?: string; types?: string[] };

/** Node-RED's own word on the flows after a deploy, from the editor's comms socket (`notification/runtime-state`). */
async function runtimeStates(url: string, token: string): Promise<{ states: RuntimeState[]; close(): void }> {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/flows/comms`);
  const states: RuntimeState[] = [];
  await new Promise<void>((resolve, reject) => {
    ws.once('error', reject);
    ws.once('open', () => ws.send(JSON.stringify({ auth: token })));
    ws.on('message', (raw: Buffer) => {
      const msgs = JSON.parse(raw.toString()) as unknown;
      for (const m of Array.isArray(msgs) ? msgs : [msgs]) {
        const msg = m as { auth?: string; topic?: string; data?: RuntimeState };
        if (msg.auth === 'ok') {
          ws.send(JSON.stringify({ subscribe: 'notification/runtime-state' }));
          resolve();
        } else if (msg.auth === 'fail') reject(new Error('the editor comms refused the admin token'));
        else if (msg.topic === 'notification/runtime-state' && msg.data) states.push(msg.data);
      }
    });
  });
  return { states, close: () => ws.close() };
}

async function flowOsNodes(disabled: Set<SafetyControl>): Promise<ScenarioResult> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-mutant-flows-'));
  try {
    const gpio = new SimGpio(join(dir, 'sysfs'));
    gpio.output(17);
    // What `hearth token create --scopes read,admin` does, without a process of its own.
    const token = withCliDatabase(dir, [tokensMigration], (db) =>
      new TokenStore(db).create({ scopes: ['read', 'admin'], name: 'maker', kind: 'human' }),
    ).token;
    const env = { ...process.env, NODE_OPTIONS: disablePreload(disabled).join(' ') };
    const args = ['start', '--http-port', '0', '--data-dir', dir, '--sim-speed', 'manual', '--log-level', 'warn', '--flows'];
    const { child, match } = await spawnCli(args, /hearth ready (http:\/\/127\.0\.0\.1:\d+)\n/, { timeoutMs: 90_000, env });
    const exited = new Promise((r) => child.once('exit', r));
    try {
      const url = match[1] as string;
      const comms = await runtimeStates(url, token);
      try {
        const deployed = await fetch(`${url}/flows/flows`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'node-red-deployment-type': 'full' },
          body: JSON.stringify(gpioFlow(gpio.valuePath?.(17) as string)),
        });
        // Node-RED says which after the deploy: the flows started, or they wait for node types it does not have.
        const verdict = () => comms.states.find((s) => s.error === 'missing-types' || (s.state === 'start' && s.deploy === true));
        for (let i = 0; i < 600 && !verdict(); i++) await new Promise((r) => setTimeout(r, 100));
        const v = verdict();
        // A started flow writes the line at once: wait for it (or 20 s) before reading the pin.
        for (let i = 0; v?.state === 'start' && i < 200 && !gpio.energized(17); i++) await new Promise((r) => setTimeout(r, 100));
        const on = gpio.energized(17);
        const said = v ? (v.error ? `refused it (missing types: ${(v.types ?? []).join(', ')})` : 'started it') : 'said nothing in 60 s';
        return {
          ok: v?.error === 'missing-types' && on === false,
          detail: `deploy ${deployed.status}; Node-RED ${said}; GPIO 17 ${on ? 'ENERGIZED' : 'off'}`,
        };
      } finally {
        comms.close();
      }
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const hubScenarios: OutputScenario[] = [
  {
    id: 'stop-with-malformed-bodies',
    name: 'stop, e-stop and MCP emergency_stop with malformed bodies cut heat and answer success',
    control: 'stop-any-body',
    run: ({ disabled }) => stopWithBadBodies(disabled),
  },
  {
    id: 'latch-across-restart',
    name: 'a latched stop survives a hub restart on the same data directory; a start is refused until reset',
    control: 'latch-persisted',
    run: ({ disabled }) => latchAcrossRestart(disabled),
  },
  {
    id: 'reset-needs-admin-or-presence',
    name: 'a reset without the admin scope or a sensed person is refused; heat stays off',
    control: 'latch-reset-scope',
    run: ({ disabled }) => resetNeedsAuthority(disabled),
  },
  {
    id: 'flow-os-node-refused',
    name: 'a flow with a file node writing GPIO through sysfs is not loaded; the line stays off',
    control: 'flows-os-nodes-excluded',
    spawns: true,
    run: ({ disabled }) => flowOsNodes(disabled),
  },
];
