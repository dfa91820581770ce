/**
 * `hearth start` inside a memory cgroup (cgroup.ts), as the systemd unit runs it: every feature, the simulated rig
 * with a manual clock, its heat guard (a child process, so in the same cgroup), the unit's `Environment=` lines
 * (`MALLOC_ARENA_MAX=2`; `unitMemory` reads them and `MemoryMax=` from systemd/hearth.service), and
 * `HEARTH_MEMORY_LIMIT=cgroup` so the hub sheds by the cgroup's numbers as it does under the unit.
 * Everything else stays outside: tokens are written into the store before the start, and the test drives the hub
 * over real sockets only. The stops (REST, any body, the dashboard, MCP, MQTT, the rig's button) are judged by
 * the wire levels in the value files the guard drives (drivers/sim/wires.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { readWire } from '../drivers/buses/pin-file.js';
import { SIM_HEATER_LINES, simWireRoot } from '../drivers/sim/wires.js';
import { TokenStore, tokensMigration } from '../platform/http/auth.js';
import { MigrationRegistry } from '../platform/sqlite/migrations.js';
import { TOKEN_SCOPES } from '../runtime/hub/testing/scope-table.js';
import { openDatabase } from '../runtime/store/db.js';
import type { MemoryCgroup } from './cgroup.js';
import { childEnv, hearthArgv, repoRoot, tolerantRigFile } from './cli.js';

export interface CgroupHub {
  pid: number;
  url: string;
  mqttUrl: string;
  kitchen: string;
  /** Tokens for the hostile mix: one per scope of the scope matrix (none for `null`), a revoked one, an agent's. */
  tokens: string[];
  /** Which of `tokens` the hub accepts. */
  valid: Set<string>;
  /** A token with read, cook and admin: the person at the stove. */
  admin: string;
  /** The heat guard's pid (the hub's child in the cgroup), once it runs. */
  guardPid(): number | undefined;
  call(
    method: string,
    path: string,
    body?: unknown,
    key?: string,
  ): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }>;
  /** Whether the relay on a heater's wire conducts at the level its value file holds now. */
  energized(heater: string): boolean;
  /** The last 64 KB the hub printed. */
  output(): string;
  /** SIGTERM (as systemctl stop), then remove the data directory. */
  stop(): Promise<void>;
}

/** The unit's `MemoryMax=` (bytes) and its `Environment=` variables but NODE_ENV (the tests run as they are). */
export function unitMemory(): { memoryMax: number; env: Record<string, string> } {
  const unit = readFileSync(join(repoRoot, 'systemd/hearth.service'), 'utf8');
  const m = /^MemoryMax=(\d+)([KMG]?)$/m.exec(unit);
  if (!m) throw new Error('systemd/hearth.service sets no MemoryMax= in K, M or G');
  const memoryMax = Number(m[1]) * 1024 ** ['', 'K', 'M', 'G'].indexOf(m[2] ?? '');
  const env: Record<string, string> = {};
  for (const [, name, value] of unit.matchAll(/^Environment=([A-Z_]+)=(\S*)$/gm)) if (name && name !== 'NODE_ENV') env[name] = value ?? '';
  return { memoryMax, env };
}

const READY = /hearth ready (http:\/\/127\.0\.0\.1:\d+)\n/;
const MQTT_URL = /"urls":\["(mqtt:\/\/127\.0\.0\.1:\d+)"/;

/** A data directory holding the mix's tokens. */
function dataDir(): { dir: string; tokens: string[]; valid: Set<string>; admin: string } {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-cgroup-'));
  const db = openDatabase(dir);
  new MigrationRegistry().add(tokensMigration).migrate(db);
  const store = new TokenStore(db);
  const valid = new Set<string>();
  const make = (scopes: string[], kind: 'human' | 'agent', name: string) => store.create({ scopes, kind, name }).token;
  for (const s of TOKEN_SCOPES) if (s !== null) valid.add(make([s], 'human', `mix ${s}`));
  valid.add(make(['read', 'cook', 'notify', 'inventory', 'order:create'], 'agent', 'mix agent'));
  const admin = make(['read', 'cook', 'admin'], 'human', 'stove');
  valid.add(admin);
  const revoked = make(['read', 'cook'], 'human', 'mix revoked');
  store.revoke('mix revoked');
  db.close();
  return { dir, tokens: [...valid, revoked, 'hth_not-a-real-token'], valid, admin };
}

/** Start `hearth start` inside `cg`; resolves once it is ready and its MQTT broker listens. */
export async function startHubInCgroup(cg: MemoryCgroup, o: { env?: NodeJS.ProcessEnv } = {}): Promise<CgroupHub> {
  const d = dataDir();
  const rig = tolerantRigFile(d.dir);
  const args = ['start', '--http-port', '0', '--mqtt-port', '0', '--data-dir', d.dir, '--rig', rig, '--sim-speed', 'manual'];
  const [cmd, argv] = hearthArgv([...args, '--log-level', 'info', '--webhooks-allow', '127.0.0.1']);
  const env = childEnv({ ...process.env, ...unitMemory().env, HEARTH_MEMORY_LIMIT: 'cgroup', ...o.env });
  delete env.HEARTH_MEMORY_LIMIT_MB;
  // The test runner's preloads (tap's process-info hook, which its spawn wrapper adds back to every child's
  // environment, coverage or not) would load into hearth and its guard and charge this cgroup ~10 MB per process
  // that a user's hearth never has: env(1) sets NODE_OPTIONS after that wrapper. Other preloads (Node 24's addon
  // hook) stay.
  const kept = (env.NODE_OPTIONS ?? '').split(/\s+/).filter((opt) => opt !== '' && !/@tapjs[\\/]|ts-loader/.test(opt));
  const child = cg.spawn(
    '/usr/bin/env',
    ['-u', 'NODE_OPTIONS', ...(kept.length > 0 ? [`NODE_OPTIONS=${kept.join(' ')}`] : []), cmd, ...argv],
    {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const keep = (b: Buffer) => {
    out += b.toString();
    if (out.length > 128 * 1024) out = out.slice(-64 * 1024);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const [url, mqttUrl] = await new Promise<[string, string]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hearth start was not ready within 90 s:\n${out.slice(-4000)}`)), 90_000);
    const check = () => {
      const u = READY.exec(out)?.[1];
      const m = MQTT_URL.exec(out)?.[1];
      if (u && m) {
        clearTimeout(timer);
        resolve([u, m]);
      }
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`hearth start exited (${signal ?? code}) before it was ready:\n${out.slice(-4000)}`));
    });
  });
  const pid = child.pid as number;
  let n = 0;
  const call: CgroupHub['call'] = async (method, path, body, key) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${d.admin}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(method === 'POST' ? { 'idempotency-key': key ?? `cgroup-${process.pid}-${Date.now()}-${++n}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      parsed = { text };
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  const wires = simWireRoot(d.dir);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    pid,
    url,
    mqttUrl,
    kitchen: 'kitchen',
    tokens: d.tokens,
    valid: d.valid,
    admin: d.admin,
    guardPid: () => cg.procs().find((p) => p !== pid && cmdline(p).includes('guard')),
    call,
    energized: (heater) => readWire(wires, SIM_HEATER_LINES[heater] as number) === 1,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(d.dir, { recursive: true, force: true });
    },
  };
}

/** The heaters of the simulated rig whose wires conduct now. */
export const energizedHeaters = (hub: CgroupHub): string[] => Object.keys(SIM_HEATER_LINES).filter((h) => hub.energized(h));

/** Every way a stop reaches the hub, each as a person or an agent sends it (over a socket of its own). */
export const STOPS: Record<string, (hub: CgroupHub) => Promise<number>> = {
  rest: async (hub) => (await hub.call('POST', '/svc/v1/safety/estop', { reason: 'cgroup test' })).status,
  'rest-any-body': async (hub) => {
    const res = await fetch(`${hub.url}/svc/v1/safety/estop`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.admin}`, 'content-type': 'text/plain' },
      body: '💥',
    });
    await res.arrayBuffer();
    return res.status;
  },
  dashboard: async (hub) => (await hub.call('POST', '/dashboard/v1/estop')).status,
  mcp: async (hub) => {
    const res = await fetch(`${hub.url}/svc/v1/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${hub.admin}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'emergency_stop', arguments: { reason: 'cgroup test' } },
      }),
    });
    await res.arrayBuffer();
    return res.status;
  },
  mqtt: async (hub) => {
    const c = await mqtt.connectAsync(hub.mqttUrl, { protocolVersion: 5, reconnectPeriod: 0, username: 'button', password: hub.admin });
    await c.publishAsync(`svc/${hub.kitchen}/command/estop`, '{}', { qos: 1 });
    await c.endAsync();
    return 200;
  },
  button: async (hub) => (await hub.call('POST', '/sim/v1/estop', { pressed: true })).status,
};

/** Wait (real time, generously: never a timing assertion) until `cond` holds; false if it never did. */
export async function until(cond: () => boolean | Promise<boolean>, ms = 30_000, stepMs = 20): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  return cond();
}

/** Resident and anonymous memory of a process (MB) from /proc; undefined once it is gone. */
export function processMb(pid: number): { rss: number; anon: number; hwm: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) / 1024;
    return { rss: kb('VmRSS'), anon: kb('RssAnon'), hwm: kb('VmHWM') };
  } catch {
    return undefined;
  }
}

/** A process's command line, or '' when it has gone between the cgroup's list and this read. */
function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}
