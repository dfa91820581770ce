/**
 * `hearth start` as a terminal or systemd runs it, for the stop and signal tests (runtime/app/stop-signals.test.ts):
 * spawned detached so that it leads its own process group (which its heat guard joins), on the simulated rig with
 * a manual clock and a data directory the caller keeps across starts. Signals go to the group, as Ctrl-C in a
 * terminal and `systemctl stop` (KillMode=control-group) send them, or to hearth alone. What the tests judge
 * by is outside hearth: the wire levels in the value files the guard drives (drivers/sim/wires.ts), the exit
 * status, whether any process of the group is left, and the latch row in the store file.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { readWire } from '../drivers/buses/pin-file.js';
import { SIM_HEATER_LINES, simWireRoot } from '../drivers/sim/wires.js';
import { runCli, spawnCli } from './cli.js';

const READY = /hearth ready (http:\/\/127\.0\.0\.1:\d+)\n/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface SignalHub {
  child: ChildProcess;
  /** hearth's pid, which is also its process group's id. */
  pid: number;
  url: string;
  call(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Whether the relay on a heater's wire conducts at the level its value file holds now. */
  energized(heater: string): boolean;
  /** hearth's exit, once: its code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything hearth and its guard printed so far (stdout and stderr). */
  output(): string;
}

/** A token (read, cook) in `dir`'s store, created once for every start on that data directory. */
export async function hubToken(dir: string): Promise<string> {
  const tok = await runCli(['token', 'create', '--scopes', 'read,cook', '--name', 'signals', '--data-dir', dir], { timeoutMs: 90_000 });
  if (tok.code !== 0) throw new Error(`token create failed: ${tok.stderr}`);
  return tok.stdout.trim();
}

/** `hearth start` on `dir` with `rigFile`, leading its own process group; resolves once it is ready. */
export async function startSignalHub(o: { dir: string; rigFile: string; token: string; nodeOptions?: string[] }): Promise<SignalHub> {
  const env = { ...process.env, NODE_OPTIONS: [process.env.NODE_OPTIONS ?? '', ...(o.nodeOptions ?? [])].join(' ').trim() };
  const args = ['start', '--http-port', '0', '--data-dir', o.dir, '--rig', o.rigFile, '--sim-speed', 'manual', '--log-level', 'info'];
  const { child, match, output } = await spawnCli(args, READY, { timeoutMs: 90_000, env, detached: true });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const url = match[1] as string;
  let n = 0;
  const call = async (method: string, path: string, body?: unknown, key?: string) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${o.token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(method === 'POST' ? { 'idempotency-key': key ?? `signals-${process.pid}-${Date.now()}-${++n}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
  };
  const root = simWireRoot(o.dir);
  return {
    child,
    pid: child.pid as number,
    url,
    call,
    energized: (heater) => readWire(root, SIM_HEATER_LINES[heater] as number) === 1,
    exited,
    output,
  };
}

/** Whether any process of the group `pgid` is still alive. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Wait (real time, generously) until `cond` holds; false if it never did. Never a timing assertion. */
export async function until(cond: () => boolean | Promise<boolean>, ms = 30_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return true;
    await sleep(10);
  }
  return cond();
}

/** Wait until hearth has exited and no process of its group (the guard) is left. */
export async function groupGone(hub: SignalHub): Promise<{ code: number | null; signal: NodeJS.Signals | null; groupLeft: boolean }> {
  const end = await hub.exited;
  const gone = await until(() => !groupAlive(hub.pid), 30_000);
  return { ...end, groupLeft: !gone };
}

/** Kill whatever is left of a hub's group (test teardown). */
export function killGroup(hub: SignalHub | undefined): void {
  if (!hub) return;
  try {
    process.kill(-hub.pid, 'SIGCONT');
    process.kill(-hub.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** The trip latched in the store file of `dir` (read from outside hearth), or undefined when none is. */
export function storedLatch(dir: string): { reason: string; message: string; subject: string } | undefined {
  const file = join(dir, 'hearth.db');
  if (!existsSync(file)) return undefined;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare('SELECT trip FROM safety_latch WHERE id = 1').get() as { trip: string } | undefined;
    return row ? (JSON.parse(row.trip) as { reason: string; message: string; subject: string }) : undefined;
  } finally {
    db.close();
  }
}
