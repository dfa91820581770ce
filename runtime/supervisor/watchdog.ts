/**
 * The event-loop watchdog. A worker thread watches a heartbeat counter the main thread bumps every `beatMs`
 * (real time). When the counter stops moving for `stallMs`, the worker forces every heater output off by
 * itself — it shares no objects with the main thread, only memory and files:
 *   - simulated outputs: it stores 0 into their duty slot in a SharedArrayBuffer (the rig reads it from there);
 *   - GPIO relays: it writes the off wire level (drivers/buses/output-level.ts) into the line's sysfs `value`
 *     file, which holds the wire level because outputs are exported without kernel inversion.
 * It then records the stall in shared memory; when the main thread runs again it sees the record and latches
 * a `watchdog` trip. Outputs the worker cannot reach (a serial appliance) rely on the appliance's own timeout.
 *
 * The worker runs only while heat can be on. A worker thread is a whole Node environment (about 11 MB resident
 * on Node 20, 13.5 MB on Node 24), and with every output off it has nothing to cut (it latches a stall only when
 * it switched something off). So the supervisor arms it synchronously before a grant switches a heater on
 * (arm(): the worker is created already watching and the heartbeat starts in the same turn, so a loop that
 * stalls right after the grant is still cut once the worker's own thread has booted, without the main thread's
 * help), and disarms it (the thread is terminated, most of its memory returned) once every output has been off
 * with no lease for a while (WatchdogArming below). The heat guard's lease covers a frozen process during the
 * worker's boot in any case.
 */
import { Worker } from 'node:worker_threads';
import type { Rig } from '../../drivers/types.js';
import { hasWatchdogTargets, type WatchdogTarget } from '../../drivers/watchdog-targets.js';
import { controlActive } from '../../safety/controls.js';
import type { ReportedCut } from './first-cut.js';

/** Control block layout (Int32 slots, then Float64 slots). */
const HEARTBEAT = 0;
const GEN = 1; // the generation allowed to run: a worker whose own generation it no longer is stops
const FIRED = 2;
const GO = 3; // set by arm(): a worker prepared ahead waits for it before it watches
const F64_STALL_MS = 2; // Float64 index (bytes 16..23)
const F64_OFF_AT = 3; // Float64 index (bytes 24..31): epoch ms (fractional) when outputs were forced off

// Plain JavaScript run with `eval: true`, so it works the same from sources (tsx) and from the build.
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const ctl = new Int32Array(workerData.control);
const f64 = new Float64Array(workerData.control);
const targets = workerData.targets;
const views = targets.map((t) => (t.kind === 'shared' ? new Int32Array(t.buffer) : null));
// Open sysfs value files once, write-only without truncation: a stall must not wait on opening a file.
const fds = targets.map((t) => {
  if (t.kind !== 'sysfs') return -1;
  try { return fs.openSync(t.valuePath, fs.constants.O_WRONLY); } catch { return -1; }
});
const clock = () => performance.timeOrigin + performance.now();
function forceOff() {
  let switched = false;
  for (let i = 0; i < targets.length; i++) {
    const t = targets[i];
    try {
      if (t.kind === 'shared') {
        if (Atomics.exchange(views[i], t.index, 0) !== 0) switched = true;
      } else if (t.kind === 'sysfs') {
        let before = '';
        try { before = fs.readFileSync(t.valuePath, 'utf8').trim(); } catch {}
        if (fds[i] >= 0) fs.writeSync(fds[i], t.offValue, 0);
        else fs.writeFileSync(t.valuePath, t.offValue);
        if (before !== t.offValue) switched = true;
      }
    } catch {}
  }
  return switched;
}
const gen = workerData.gen;
// Prepared ahead of arming (prepare()), the worker waits here: it watches only once the heartbeat runs.
while (Atomics.load(ctl, ${GO}) === 0 && Atomics.load(ctl, ${GEN}) === gen) Atomics.wait(ctl, ${GO}, 0, 1000);
let last = Atomics.load(ctl, ${HEARTBEAT});
let lastChange = clock();
let firedThisStall = false;
while (Atomics.load(ctl, ${GEN}) === gen) {
  Atomics.wait(ctl, ${GEN}, gen, workerData.pollMs);
  const hb = Atomics.load(ctl, ${HEARTBEAT});
  const now = clock();
  if (hb !== last) { last = hb; lastChange = now; firedThisStall = false; continue; }
  if (now - lastChange >= workerData.stallMs) {
    const switched = forceOff();
    // Record when an output was actually switched off (never a cut that changed nothing).
    if (switched) f64[${F64_OFF_AT}] = clock();
    // A stall latches only when it cut heat: an idle hub that pauses under load has nothing to make safe.
    if (switched && !firedThisStall) {
      firedThisStall = true;
      f64[${F64_STALL_MS}] = now - lastChange;
      Atomics.add(ctl, ${FIRED}, 1);
    }
  }
}
`;

export interface WatchdogOptions {
  targets: WatchdogTarget[];
  /** Stall threshold in real ms (default 150). */
  stallMs?: number;
  /** Heartbeat period in real ms (default 25). */
  beatMs?: number;
  /** Called on the main thread once it runs again after the worker forced outputs off. */
  onFired: (info: { stallMs: number; offAt: number }) => void;
  /** The worker thread failed (it could not start, or died) while armed: nothing watches the loop any more. */
  onFailed?: (err: Error) => void;
}

export interface Watchdog {
  /**
   * Start the worker thread now without watching yet (it waits for arm()), so its start-up (~50 ms of a
   * thread's own isolate) overlaps what the caller does next. Opt-in: nothing prepares by default.
   * The prepared thread never keeps the process alive.
   */
  prepare(): void;
  /**
   * Watch from now on, synchronously and idempotently: a worker that is not running is created already
   * watching, and the heartbeat starts. The worker boots on its own thread, so a loop that stalls right
   * after arm() is still cut (stallMs after the worker's boot).
   */
  arm(): void;
  /** Whether a worker thread exists (armed or prepared). */
  readonly running: boolean;
  /** arm(), then wait until the worker is online (it keeps the process alive while it boots). */
  start(): Promise<void>;
  /** Stop watching and terminate the worker so its memory goes back; a stall it cut before is reported first. */
  disarm(): void;
  stop(): Promise<void>;
  /** Report a stall the worker has cut now (onFired), rather than at the next heartbeat. */
  poll(): void;
  /** When the worker last switched an output off (epoch ms with fraction), or 0; a stall that found
   *  everything already off records nothing. Benchmarks and HIL scenarios read it. */
  lastOffAt(): number;
}

export function createWatchdog(o: WatchdogOptions): Watchdog {
  const control = new SharedArrayBuffer(32);
  const ctl = new Int32Array(control);
  const f64 = new Float64Array(control);
  const stallMs = o.stallMs ?? 150;
  const beatMs = o.beatMs ?? 25;
  const targets = o.targets.filter((t) => t.kind !== 'none');
  let worker: Worker | undefined;
  let online: Promise<void> | undefined;
  let beat: NodeJS.Timeout | undefined;
  let seen = 0;

  const check = () => {
    const fired = Atomics.load(ctl, FIRED);
    if (fired !== seen) {
      seen = fired;
      o.onFired({ stallMs: f64[F64_STALL_MS] as number, offAt: f64[F64_OFF_AT] as number });
    }
  };

  const spawn = () => {
    if (worker) return;
    const w = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { control, targets, stallMs, pollMs: Math.max(5, Math.floor(beatMs / 2)), gen: Atomics.load(ctl, GEN) },
      // The worker needs no loader hooks; keep it from inheriting the parent's (tsx) flags.
      execArgv: [],
    });
    worker = w;
    online = new Promise<void>((resolve, reject) => {
      w.once('online', () => resolve());
      w.once('error', reject);
    });
    online.catch(() => {}); // start() reports it
    const failed = (err: Error) => {
      if (worker !== w) return; // stopped on purpose
      halt();
      o.onFailed?.(err);
    };
    w.on('error', failed);
    w.once('exit', (code) => failed(new Error(`the loop watchdog's thread exited (code ${code})`)));
    // Once running it must not keep the process alive by itself.
    w.unref();
  };

  /** Stop the heartbeat and tell the current worker to stop; returns it for termination. */
  const halt = (): Worker | undefined => {
    if (beat) clearInterval(beat);
    beat = undefined;
    Atomics.store(ctl, GO, 0);
    Atomics.add(ctl, GEN, 1);
    Atomics.notify(ctl, GEN);
    Atomics.notify(ctl, GO);
    const w = worker;
    worker = undefined;
    online = undefined;
    return w;
  };

  const arm = () => {
    if (beat) return;
    // Set before the worker exists, so a worker created here watches from its own boot without waiting for
    // this thread; a prepared worker is woken.
    Atomics.store(ctl, GO, 1);
    Atomics.notify(ctl, GO);
    spawn();
    beat = setInterval(() => {
      check();
      Atomics.add(ctl, HEARTBEAT, 1);
    }, beatMs);
    beat.unref();
  };

  return {
    prepare: spawn,
    arm,
    get running() {
      return worker !== undefined;
    },
    async start() {
      arm();
      const w = worker;
      // While start() waits for the thread, the thread keeps the process alive.
      w?.ref();
      try {
        await online;
      } finally {
        w?.unref();
      }
    },
    disarm() {
      check();
      const w = halt();
      // A stall recorded between the check above and the worker's end is reported, not lost.
      if (w) w.terminate().then(check, check);
    },
    async stop() {
      const w = halt();
      if (w) await w.terminate();
    },
    poll: check,
    lastOffAt: () => f64[F64_OFF_AT] as number,
  };
}

/**
 * The loop watchdog runs only while heat can be on: armed before a grant switches a heater on, its thread
 * stopped once every heater has been off with no lease for `idleMs` (clock ms, checked on each sample tick).
 */
export class WatchdogArming {
  private idleSince?: number;

  constructor(
    private readonly wd: Watchdog | undefined,
    private readonly idleMs: number,
  ) {}

  /** Arm before heat goes on (synchronous, idempotent); returns why it could not, or undefined. */
  arm(): string | undefined {
    this.idleSince = undefined;
    try {
      this.wd?.arm();
      return undefined;
    } catch (err) {
      return (err as Error).message;
    }
  }

  /** On each sample tick: `heatOn` when any lease is held or any output is not off. */
  idle(now: number, heatOn: boolean): void {
    if (!this.wd?.running || heatOn) {
      this.idleSince = undefined;
      return;
    }
    this.idleSince ??= now;
    if (now - this.idleSince < this.idleMs) return;
    this.idleSince = undefined;
    this.wd.disarm(); // reports a stall it cut before its thread goes
  }
}

/**
 * The supervisor's loop watchdog over a rig's outputs (none when the rig has no reachable outputs); a stall it cut
 * is reported as a cut, so the trip names it or the heat guard, whichever cut first (first-cut.ts).
 */
export function loopWatchdog(
  rig: Rig,
  stallMs: number | undefined,
  report: (cut: ReportedCut) => void,
  failed: (err: Error) => void,
): Watchdog | undefined {
  if (!hasWatchdogTargets(rig)) return undefined;
  return createWatchdog({
    onFailed: failed,
    targets: controlActive('loop-watchdog') ? rig.watchdogTargets() : [],
    // 700 ms: a 2 s block is still cut inside the 1 s bound, while the 400-440 ms pauses a 2-core board shows
    // with every core busy (the soak bench) no longer trip it; the heat guard's 600 ms lease covers a frozen
    // or dead process (docs/safety.md).
    stallMs: stallMs ?? 700,
    onFired: ({ stallMs: stalled, offAt }) =>
      report({
        by: 'loop watchdog',
        at: offAt > 0 ? offAt : Date.now(),
        act: 'the loop watchdog forced every heater off',
        why: `the control loop stalled for ${Math.round(stalled)} ms`,
        subject: 'event-loop',
        hint: 'Something blocked the device process (overload, a hung disk, a bug): check the log, then reset.',
      }),
  });
}
