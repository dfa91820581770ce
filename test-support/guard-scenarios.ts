/**
 * Process-level scenarios for the heat guard (runtime/guard), in the shape of output-scenarios.ts: each spawns
 * `hearth start` on the simulated rig (manual clock) as a user would, gets a heater on through a real koshari
 * run, then freezes or kills the hearth process and reads the level its heater's wire carries, from the value
 * file the guard drives (drivers/sim/wires.ts), never from hearth's own record. The disabled controls reach
 * hearth and the guard it spawns through an `--import` preload in NODE_OPTIONS.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readWire } from '../drivers/buses/pin-file.js';
import { SIM_HEATER_LINES, simWireRoot } from '../drivers/sim/wires.js';
import type { SafetyControl } from '../safety/controls.js';
import { repoRoot, runCli, spawnCli } from './cli.js';
import { disablePreload, type OutputScenario, type ScenarioResult } from './output-scenarios.js';

const READY = /hearth ready (http:\/\/127\.0\.0\.1:\d+)\n/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface GuardedHub {
  dir: string;
  child: ChildProcess;
  url: string;
  token: string;
  activeLow: boolean;
  rigFile: string;
  call(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Whether the relay on a heater's wire conducts at the level the wire carries (the relay's physics). */
  energized(heater: string): boolean;
  stop(): Promise<void>;
}

/** `hearth start` on the simulated rig with a manual clock, its data in a scratch folder. */
export async function startGuardedHub(o: {
  disabled: Set<SafetyControl>;
  activeLow?: boolean;
  /** More `hearth start` options (the soak benchmark's MQTT port). */
  args?: string[];
  /** More NODE_OPTIONS for hearth (the soak benchmark's loop-block preload). */
  nodeOptions?: string[];
}): Promise<GuardedHub> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-guard-'));
  const activeLow = o.activeLow === true;
  const rigFile = join(dir, 'rig.json');
  writeFileSync(rigFile, JSON.stringify({ kind: 'simulated', ...(activeLow ? { activeLowOutputs: true } : {}) }));
  const env = {
    ...process.env,
    NODE_OPTIONS: [process.env.NODE_OPTIONS ?? '', ...disablePreload(o.disabled), ...(o.nodeOptions ?? [])].join(' ').trim(),
  };
  const tok = await runCli(['token', 'create', '--scopes', 'read,cook', '--name', 'guard', '--data-dir', dir], { timeoutMs: 90_000 });
  if (tok.code !== 0) throw new Error(`token create failed: ${tok.stderr}`);
  const token = tok.stdout.trim();
  const args = [
    'start',
    '--http-port',
    '0',
    '--data-dir',
    dir,
    '--rig',
    rigFile,
    '--sim-speed',
    'manual',
    '--log-level',
    'warn',
    ...(o.args ?? []),
  ];
  const { child, match } = await spawnCli(args, READY, { timeoutMs: 90_000, env });
  const url = match[1] as string;
  let n = 0;
  const call = async (method: string, path: string, body?: unknown, key?: string) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(method === 'POST' ? { 'idempotency-key': key ?? `guard-${process.pid}-${++n}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
  };
  const root = simWireRoot(dir);
  return {
    dir,
    child,
    url,
    token,
    activeLow,
    rigFile,
    call,
    energized(heater) {
      const level = readWire(root, SIM_HEATER_LINES[heater] as number);
      if (level === undefined) return false;
      return activeLow ? level === 0 : level === 1;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGCONT');
        child.kill('SIGKILL');
      }
      // The orphaned guard cuts and leaves once its socket closes; wait for it before removing its folder.
      for (let i = 0; i < 300 && existsSync(join(dir, 'heat-guard.sock')); i++) await sleep(100);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Start koshari with a person present and move simulated time until a heater is on; returns its id. */
export async function heatOn(hub: Pick<GuardedHub, 'call' | 'energized'>): Promise<string> {
  const recipe = JSON.parse(readFileSync(join(repoRoot, 'examples/recipes/koshari.svc.json'), 'utf8')) as { id: string; hash: string };
  await hub.call('POST', '/sim/v1/presence', { present: true });
  const key = `guard-cook-${process.pid}-${Date.now()}`;
  const started = await hub.call(
    'POST',
    '/v1/executions',
    {
      core: '0.2.0',
      kind: 'ExecuteRequest',
      id: `req-${key}`,
      recipe: recipe.id,
      recipeHash: recipe.hash,
      requestedBy: 'household:guard',
      idempotencyKey: key,
    },
    key,
  );
  if (started.status !== 202) throw new Error(`koshari did not start: ${started.status} ${JSON.stringify(started.body)}`);
  for (let i = 0; i < 90; i++) {
    const sim = (await hub.call('POST', '/sim/v1/clock', { advanceMs: 2000 })).body as { heaters?: Record<string, number> };
    const on = Object.entries(sim.heaters ?? {}).find(([, p]) => p > 0);
    if (on && hub.energized(on[0])) return on[0];
  }
  throw new Error('no heater came on within 180 simulated seconds of koshari');
}

/** Wait (real time, generously) until `cond` holds; false if it never did. */
async function until(cond: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return true;
    await sleep(10);
  }
  return cond();
}

/** Freeze hearth (SIGSTOP) for 2 s with heat on: the wire must be off before it resumes, and stay off after. */
async function freezeScenario(disabled: Set<SafetyControl>, activeLow: boolean): Promise<ScenarioResult> {
  const hub = await startGuardedHub({ disabled, activeLow });
  try {
    const heater = await heatOn(hub);
    const t0 = performance.now();
    hub.child.kill('SIGSTOP');
    let offAfterMs = -1;
    await until(() => {
      if (!hub.energized(heater)) offAfterMs = performance.now() - t0;
      return offAfterMs >= 0 || performance.now() - t0 >= 2000;
    }, 2000);
    // Hold the freeze for the full 2 s either way.
    const rest = 2000 - (performance.now() - t0);
    if (rest > 0) await sleep(rest);
    const offWhileFrozen = !hub.energized(heater);
    hub.child.kill('SIGCONT');
    const latched = await until(
      async () => ((await hub.call('GET', '/sim/v1/state')).body.supervisor as { latched: boolean }).latched,
      30_000,
    );
    const offAfter = !hub.energized(heater);
    const polarity = activeLow ? 'active-low ' : '';
    return {
      ok: offAfterMs >= 0 && offWhileFrozen && offAfter && latched,
      detail:
        offAfterMs >= 0
          ? `${polarity}"${heater}" wire off ${Math.round(offAfterMs)} ms into a 2 s SIGSTOP; after resume: ${offAfter ? 'off' : 'ON'}, ${latched ? 'latched' : 'not latched'}`
          : `${polarity}"${heater}" still energized at the end of a 2 s SIGSTOP`,
    };
  } finally {
    await hub.stop();
  }
}

export const guardScenarios: OutputScenario[] = [
  {
    id: 'guard-sigstop',
    spawns: true,
    name: 'hearth frozen by SIGSTOP for 2 s with heat on: the guard drives the wire off before it resumes',
    control: 'heat-guard-lease',
    run: ({ disabled }) => freezeScenario(disabled, false),
  },
  {
    id: 'guard-sigstop-active-low',
    spawns: true,
    name: 'active-low relays, hearth frozen by SIGSTOP with heat on: the guard leaves the wire HIGH (off)',
    control: 'off-polarity',
    run: ({ disabled }) => freezeScenario(disabled, true),
  },
  {
    id: 'guard-kill-9-safe-off',
    spawns: true,
    name: 'kill -9 of hearth with heat on: the guard cuts, then hearth safe-off leaves every output off',
    control: 'heat-guard-lease',
    async run({ disabled }) {
      const hub = await startGuardedHub({ disabled });
      try {
        const heater = await heatOn(hub);
        hub.child.kill('SIGKILL');
        // The guard unlinks its socket as it leaves; read the wire once it has gone.
        const left = await until(() => !existsSync(join(hub.dir, 'heat-guard.sock')), 30_000);
        const offAfterKill = !hub.energized(heater);
        const r = await runCli(['safe-off', '--rig', hub.rigFile, '--data-dir', hub.dir], { timeoutMs: 60_000 });
        const allOff = Object.keys(SIM_HEATER_LINES).every((h) => !hub.energized(h));
        return {
          ok: left && offAfterKill && r.code === 0 && allOff,
          detail: `after kill -9 the guard ${left ? 'left' : 'stayed'} with "${heater}" ${offAfterKill ? 'off' : 'ON'}; safe-off exited ${r.code}, every output ${allOff ? 'off' : 'NOT off'}`,
        };
      } finally {
        await hub.stop();
      }
    },
  },
];
