/**
 * Hearth's side of the heat guard: spawn it, connect to its socket, renew the lease on a real-time interval,
 * and hand the rig one output line per guarded heater whose writes go to the guard. When the guard reports a
 * cut (`T`), `onTrip` runs (the app latches a safety stop) and the trip is acknowledged. When the guard dies,
 * hearth drives the lines off itself through their value files and `onLost` runs (the app latches).
 *
 * Stopping is not dying (docs/safety.md, "Stopping, dying and the latch"): once hearth's own stop has begun
 * (`expectStop`, the first thing the app's stop does) the guard leaving is expected. A guard that says it got a
 * stop signal (`S`) before its socket closes was most likely signalled with hearth (Ctrl-C reaches the whole
 * process group, `systemctl stop` the whole cgroup), and hearth's own signal may be handled a moment later: the
 * lines are driven off at once, and `onLost` runs only if hearth's stop has not begun within `STOP_GRACE_MS`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { GpioOutputLine } from '../../drivers/buses/gpio.js';
import { offLevel, type WireLevel } from '../../drivers/buses/output-level.js';
import { prepareLineOff, readWire, valueFile } from '../../drivers/buses/pin-file.js';
import type { RigConfig } from '../../drivers/rig-config.js';
import { heaterUse, lineOf, resolveRigGpioOrThrow } from '../../drivers/rig-config-gpio.js';
import { simWiredHeaters, simWireRoot } from '../../drivers/sim/wires.js';
import { GUARD_TIMING, type GuardLine, type GuardSpec } from './spec.js';
import { guardArgv, type WarmGuard } from './warm.js';

export interface GuardTrip {
  lateMs: number;
  heaters: string[];
  /** When the guard cut (epoch ms, real time). */
  cutAt: number;
}

/** How a guarded heater's line stands: as hearth set it, or `cut` (set on, read off: the guard cut it). */
export type WireState = 'on' | 'off' | 'cut';

/** How long a guard that left on a stop signal waits for hearth's own stop before it counts as lost (real ms). */
export const STOP_GRACE_MS = 2000;

export interface HeatGuard {
  readonly pid: number;
  readonly spec: GuardSpec;
  /** The output line the guard holds for a heater. */
  line(heater: string): GpioOutputLine;
  /** The wire level a heater's line carries now (read from its value file). */
  level(heater: string): WireLevel | undefined;
  /**
   * How a heater's line stands now: `cut` when hearth set it on and the guard acknowledged, yet the wire reads
   * off (the guard cut it, and its report may not have been read yet), else whether the wire energizes the load.
   */
  wire(heater: string): WireState | undefined;
  /** Hearth's stop has begun: the guard leaving from now on is no fault. */
  expectStop(): void;
  /** Where a heater's value file lives and the level for off (for the loop watchdog's worker). */
  target(heater: string): { valuePath: string; offValue: '0' | '1' } | undefined;
  onTrip(fn: (t: GuardTrip) => void): void;
  onLost(fn: (why: string) => void): void;
  /** Resolves once every line write sent so far is on the wire (acknowledged by the guard), or the guard is gone. */
  settled(): Promise<void>;
  /** Ask the guard to cut and exit; wait for it. */
  close(): Promise<void>;
}

/**
 * Spawn the guard (or hand a pre-spawned one, `warm`, its spec) and connect. Rejects with the reason when it does
 * not come up within `timeoutMs`.
 */
export async function startHeatGuard(
  spec: GuardSpec,
  o: { log: (msg: string) => void; timeoutMs?: number; renewMs?: number; warm?: WarmGuard },
): Promise<HeatGuard> {
  const warm = o.warm?.take();
  let child: ChildProcess;
  if (warm?.stdin) {
    child = warm;
    warm.stdin.end(`${JSON.stringify(spec)}\n`);
  } else {
    child = spawn(process.execPath, guardArgv('--spec', JSON.stringify(spec)), { stdio: ['ignore', 'pipe', 'inherit'] });
  }
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the heat guard did not start within ${o.timeoutMs ?? 60_000} ms`));
    }, o.timeoutMs ?? 60_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('heat-guard ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the heat guard exited (${code}) before it was ready; see its message above`));
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`cannot start the heat guard: ${err.message}`));
    });
  });
  child.stdout?.resume();
  const sock = await new Promise<Socket>((resolve, reject) => {
    const s = createConnection(spec.socket, () => resolve(s));
    s.once('error', (err) => reject(new Error(`cannot connect to the heat guard at ${spec.socket}: ${err.message}`)));
  }).catch((err: Error) => {
    child.kill('SIGTERM');
    throw err;
  });
  return new GuardClient(spec, child, sock, o.log, o.renewMs ?? GUARD_TIMING.renewMs);
}

class GuardClient implements HeatGuard {
  private readonly lines = new Map<string, GuardLine>();
  private tripFns: Array<(t: GuardTrip) => void> = [];
  private lostFns: Array<(why: string) => void> = [];
  private closing = false;
  private lost = false;
  /** The stop signal the guard said it got (`S`), if it did. */
  private signalled?: string;
  /** Per heater: the level hearth last asked for, and the last the guard acknowledged (`K`) as on the wire. */
  private readonly asked = new Map<string, boolean>();
  private readonly acked = new Map<string, boolean>();
  /** Line writes sent and not yet acknowledged (`K`, in order), and who waits for them. */
  private readonly inFlight: Array<[string, boolean]> = [];
  private unacked = 0;
  private waiters: Array<() => void> = [];
  private readonly renew: NodeJS.Timeout;
  private readonly exited: Promise<void>;

  constructor(
    readonly spec: GuardSpec,
    private readonly child: ChildProcess,
    private readonly sock: Socket,
    private readonly log: (msg: string) => void,
    renewMs: number,
  ) {
    for (const l of spec.lines) this.lines.set(l.heater, l);
    this.exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
    let buf = '';
    sock.setEncoding('utf8');
    sock.on('data', (chunk: string) => {
      buf += chunk;
      let i = buf.indexOf('\n');
      while (i >= 0) {
        this.onLine(buf.slice(0, i));
        buf = buf.slice(i + 1);
        i = buf.indexOf('\n');
      }
    });
    sock.on('error', () => {});
    sock.on('close', () => this.guardLost('the heat guard closed its socket'));
    child.once('exit', (code, signal) => this.guardLost(`the heat guard exited (${signal ?? code})`));
    this.renew = setInterval(() => this.send('R'), renewMs);
    this.renew.unref();
    child.unref();
    sock.unref();
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  private send(msg: string): boolean {
    if (this.lost || this.sock.destroyed) return false;
    this.sock.write(`${msg}\n`);
    return true;
  }

  private onLine(line: string): void {
    const [cmd, a, b] = line.trim().split(' ');
    if (cmd === 'T') {
      const cutAt = Number(line.trim().split(' ')[3]);
      const trip = { lateMs: Number(a), heaters: (b ?? '').split(',').filter(Boolean), cutAt: Number.isFinite(cutAt) ? cutAt : Date.now() };
      for (const fn of this.tripFns) fn(trip);
      this.send('A');
    } else if (cmd === 'X') this.log(`the heat guard refused to switch "${a}" on: ${b}`);
    else if (cmd === 'S') this.signalled = a;
    else if (cmd === 'K') {
      const done = this.inFlight.shift();
      if (done) this.acked.set(done[0], done[1]);
      this.unacked = Math.max(0, this.unacked - 1);
      if (this.unacked === 0) this.wake();
    }
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const fn of w) fn();
  }

  settled(): Promise<void> {
    if (this.unacked === 0 || this.lost) return Promise.resolve();
    return new Promise((resolve) => {
      // A guard that does not answer (stopped, overloaded) must not hang whoever waits: give up after 2 s.
      const timer = setTimeout(() => {
        this.unacked = 0;
        this.wake();
      }, 2000);
      timer.unref();
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * The guard is gone: drive the lines off through their value files (always), then report it, unless hearth is stopping
   * (or, when the guard left on a stop signal, begins to within STOP_GRACE_MS).
   */
  private guardLost(why: string): void {
    if (this.lost) return;
    this.lost = true;
    clearInterval(this.renew);
    this.unacked = 0;
    this.inFlight.length = 0;
    this.wake();
    // Lines off first, even when hearth is stopping: its own cut comes only after every feature has stopped.
    this.allLinesOff();
    if (this.closing) return;
    const report = () => {
      if (this.closing) return;
      for (const fn of this.lostFns) fn(this.signalled ? `the heat guard stopped on ${this.signalled} while hearth kept running` : why);
    };
    if (this.signalled) setTimeout(report, STOP_GRACE_MS).unref();
    else report();
  }

  private allLinesOff(): void {
    for (const l of this.lines.values()) {
      try {
        prepareLineOff(this.spec.root, l.line, l.activeLow, this.spec.simulated);
      } catch (err) {
        this.log(`cannot switch heater "${l.heater}" off after the guard died: ${(err as Error).message}`);
      }
    }
  }

  expectStop(): void {
    this.closing = true;
  }

  line(heater: string): GpioOutputLine {
    const l = this.lines.get(heater);
    if (!l) throw new Error(`the heat guard holds no line for heater "${heater}"`);
    const write = (active: boolean) => {
      this.asked.set(heater, active);
      if (this.send(`W ${heater} ${active ? 1 : 0}`)) {
        this.inFlight.push([heater, active]);
        this.unacked++;
        return;
      }
      // No guard: switching on is refused, off goes straight to the wire.
      if (!active) prepareLineOff(this.spec.root, l.line, l.activeLow, this.spec.simulated);
    };
    return { line: l.line, write, close: () => write(false) };
  }

  level(heater: string): WireLevel | undefined {
    const l = this.lines.get(heater);
    return l ? readWire(this.spec.root, l.line) : undefined;
  }

  wire(heater: string): WireState | undefined {
    const l = this.lines.get(heater);
    const level = this.level(heater);
    if (!l || level === undefined) return undefined;
    const energized = level !== offLevel(l.activeLow);
    if (!energized && this.asked.get(heater) === true && this.acked.get(heater) === true) return 'cut';
    return energized ? 'on' : 'off';
  }

  target(heater: string): { valuePath: string; offValue: '0' | '1' } | undefined {
    const l = this.lines.get(heater);
    return l ? { valuePath: valueFile(this.spec.root, l.line), offValue: String(offLevel(l.activeLow)) as '0' | '1' } : undefined;
  }

  onTrip(fn: (t: GuardTrip) => void): void {
    this.tripFns.push(fn);
  }

  onLost(fn: (why: string) => void): void {
    this.lostFns.push(fn);
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.renew);
    this.child.ref();
    this.send('Q');
    const timer = setTimeout(() => this.child.kill('SIGTERM'), 5000);
    await this.exited;
    clearTimeout(timer);
    this.sock.destroy();
  }
}

/**
 * The guard's spec for a rig, or undefined when it has nothing to hold (only serial appliances, which keep
 * their own lease, and no hardware watchdog). The socket lives in the data directory.
 */
export function guardSpecFor(rig: RigConfig, dataDir: string): GuardSpec | undefined {
  const dir = resolve(dataDir);
  let socket = join(dir, 'heat-guard.sock');
  // A unix socket path is limited to about 107 bytes; a deep data directory gets one in a private temp folder.
  if (Buffer.byteLength(socket) > 100) socket = join(mkdtempSync(join(tmpdir(), 'hearth-guard-')), 'heat-guard.sock');
  const timing = {
    leaseMs: GUARD_TIMING.leaseMs,
    checkMs: GUARD_TIMING.checkMs,
    connectMs: GUARD_TIMING.connectMs,
    watchdogFeedMs: GUARD_TIMING.watchdogFeedMs,
  };
  if (rig.kind === 'simulated') {
    const lines = simWiredHeaters(rig).map((h) => ({ heater: h.id, line: h.line, activeLow: h.activeLow }));
    // A simulated rig may set its own stall tolerance (a test on a loaded machine); a hardware rig never can.
    return { socket, root: simWireRoot(dir), simulated: true, lines, ...timing, leaseMs: rig.stallToleranceMs ?? timing.leaseMs };
  }
  // The guard writes the kernel's sysfs numbers; resolving throws one line when a line cannot be resolved.
  const gpio = resolveRigGpioOrThrow(rig);
  const lines = rig.heaters.flatMap((h) =>
    h.driver === 'gpio_relay' ? [{ heater: h.id, line: lineOf(gpio, heaterUse(h.id)).sysfs, activeLow: h.gpio.activeLow ?? false }] : [],
  );
  if (lines.length === 0 && !rig.watchdogDevice) return undefined;
  return {
    socket,
    root: rig.gpioSysfsRoot ?? '/sys/class/gpio',
    simulated: false,
    lines,
    ...timing,
    ...(rig.watchdogDevice ? { watchdogDevice: rig.watchdogDevice } : {}),
  };
}
