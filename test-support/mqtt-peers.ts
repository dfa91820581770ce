/**
 * Third-party MQTT clients for the interop tests: Debian's mosquitto clients (mosquitto_pub, mosquitto_sub,
 * mosquitto_rr) and Eclipse Paho for Python (python3-paho-mqtt, driven by test-support/paho_client.py). Both are
 * installed by scripts/test-deps.mjs. Every run has a generous timeout and never throws on a non-zero exit: the
 * tests assert what the client printed.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { executeRequest, newKey } from '../runtime/app/testing.js';
import { FRY_RECIPE } from '../runtime/hub/test-helpers.js';
import type { FullHub } from './hub-app.js';

export interface PeerResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run a mosquitto client to its end (at most `timeoutMs`). */
export function mosquitto(
  cmd: 'mosquitto_pub' | 'mosquitto_sub' | 'mosquitto_rr',
  args: string[],
  timeoutMs = 60_000,
): Promise<PeerResult> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: timeoutMs }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code as number) : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A Python 3 that can import Paho: Debian's python3 (the package's home) or the one on PATH. */
export function pahoPython(): string | undefined {
  for (const py of ['/usr/bin/python3', 'python3']) {
    if (spawnSync(py, ['-c', 'import paho.mqtt.client'], { stdio: 'ignore' }).status === 0) return py;
  }
  return undefined;
}

const PAHO_SCRIPT = fileURLToPath(new URL('./paho_client.py', import.meta.url));

/** One JSON line that paho_client.py printed. */
export type PahoEvent = { event: string } & Record<string, unknown>;

export interface PahoRun {
  child: ChildProcess;
  events: PahoEvent[];
  /** Resolves with the first event (already seen or to come) that matches, within `timeoutMs`. */
  waitFor(match: (e: PahoEvent) => boolean, timeoutMs?: number): Promise<PahoEvent>;
  /** Resolves when the script has exited. */
  done: Promise<PeerResult>;
}

/** Start paho_client.py with a scenario `{host, port, steps}` (see the script). */
export function paho(spec: { host: string; port: number; steps: Record<string, unknown>[] }): PahoRun {
  const py = pahoPython();
  if (!py) throw new Error('Paho for Python is missing: install python3-paho-mqtt (scripts/test-deps.mjs does it for npm test)');
  const child = spawn(py, [PAHO_SCRIPT, JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const events: PahoEvent[] = [];
  const waiters: { match: (e: PahoEvent) => boolean; resolve: (e: PahoEvent) => void }[] = [];
  let stdout = '';
  let stderr = '';
  let partial = '';
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
    partial += d.toString();
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      const e = JSON.parse(line) as PahoEvent;
      events.push(e);
      for (const w of [...waiters]) {
        if (w.match(e)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(e);
        }
      }
    }
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const done = new Promise<PeerResult>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  void done.then(() => clearTimeout(timer));
  return {
    child,
    events,
    done,
    waitFor(match, timeoutMs = 60_000) {
      const seen = events.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`paho: no matching event in ${timeoutMs} ms; stdout:\n${stdout}\nstderr:\n${stderr}`)),
          timeoutMs,
        );
        waiters.push({
          match,
          resolve: (e) => {
            clearTimeout(t);
            resolve(e);
          },
        });
        void done.then(() => {
          const last = events.find(match);
          if (last) return;
          clearTimeout(t);
          reject(new Error(`paho exited without a matching event; stdout:\n${stdout}\nstderr:\n${stderr}`));
        });
      });
    },
  };
}

/** The simulated fryer's physical power (0–1), as the rig drives it. */
export const fryerPower = (h: FullHub): number => h.app.ctx.rig.heaters.get('fryer')?.power ?? -1;

/** Reset a latched stop, start the fryer recipe with a person present and run simulated time until the fryer heats. */
export async function heatFryer(t: Test, h: FullHub, admin: string): Promise<void> {
  if (h.app.ctx.supervisor.status().latched) {
    t.equal((await h.call('POST', '/svc/v1/safety/reset', { token: admin, body: {} })).status, 200, 'latch reset');
  }
  await h.presence(true);
  const key = newKey();
  const start = await h.call('POST', '/v1/executions', { token: admin, key, body: executeRequest(h.app, FRY_RECIPE, key) });
  t.equal(start.status, 202, JSON.stringify(start.body).slice(0, 300));
  t.ok(await h.runUntil(() => fryerPower(h) > 0, 120_000, 1000), 'the fryer heats');
}

/** Wait (real time, polling every 20 ms) until `done()` holds; false after `timeoutMs`. For broker-side effects. */
export async function until(done: () => boolean, timeoutMs = 60_000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/** A long-running mosquitto_sub; resolves once its SUBACK is in (it runs with -d, which prints it). */
export function subscriber(args: string[]) {
  // Line-buffered (stdbuf): mosquitto_sub's stdout is a pipe here, and -d prints the SUBACK there.
  const child = spawn('stdbuf', ['-oL', 'mosquitto_sub', ...args, '-d'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<string>((resolve) => child.on('close', () => resolve(out)));
  const subscribed = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mosquitto_sub never subscribed:\n${out}`)), 60_000);
    const check = () => {
      if (/Subscribed \(mid: \d+\)/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', check);
    child.on('close', () => {
      clearTimeout(timer);
      reject(new Error(`mosquitto_sub exited before subscribing:\n${out}`));
    });
  });
  return { child, subscribed, exited, output: () => out };
}
