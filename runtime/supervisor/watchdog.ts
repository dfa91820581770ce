/**
 * The event-loop watchdog. A worker thread watches a heartbeat counter the main thread bumps every `beatMs`
 * (real time). When the counter stops moving for `stallMs`, the worker forces every heater output off by
 * itself — it shares no objects with the main thread, only memory and files:
 *   - simulated outputs: it stores 0 into their duty slot in a SharedArrayBuffer (the rig reads it from there);
 *   - GPIO relays: it writes the off wire level (drivers/buses/output-level.ts) into the line's sysfs `value`
 *     file, which holds the wire level because outputs are exported without kernel inversion.
 * It then records the stall in shared memory; when the main thread runs again it sees the record and latches
 * a `watchdog` trip. Outputs the worker cannot reach (a serial appliance) rely on the appliance's own timeout.
 */
import { Worker } from 'node:worker_threads';
import type { Rig } from '../../drivers/types.js';
import { hasWatchdogTargets, type WatchdogTarget } from '../../drivers/watchdog-targets.js';
import { controlActive } from '../../safety/controls.js';
import type { ReportedCut } from './first-cut.js';

/** Control block layout (Int32 slots, then Float64 slots). */
const HEARTBEAT = 0;
const STOP = 1;
const FIRED = 2;
const GO = 3; // set by start(): a worker prepared ahead waits for it before it watches
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
// Prepared ahead of start (prepare()), the worker waits here: it watches only once the heartbeat runs.
while (Atomics.load(ctl, ${GO}) === 0 && Atomics.load(ctl, ${STOP}) === 0) Atomics.wait(ctl, ${GO}, 0, 1000);
let last = Atomics.load(ctl, ${HEARTBEAT});
let lastChange = clock();
let firedThisStall = false;
while (Atomics.load(ctl, ${STOP}) === 0) {
  Atomics.wait(ctl, ${STOP}, 0, workerData.pollMs);
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
}

export interface Watchdog {
  /**
   * Start the worker thread now without watching yet (it waits for start()), so its start-up (~50 ms of a
   * thread's own isolate) overlaps what the caller does next; start() then only waits for it to be online.
   * The prepared thread never keeps the process alive.
   */
  prepare(): void;
  /** Watch from now on: the worker is online and the heartbeat runs when this resolves. */
  start(): Promise<void>;
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
  let worker: Worker | undefined;
  let beat: NodeJS.Timeout | undefined;
  let seen = 0;

  const check = () => {
    const fired = Atomics.load(ctl, FIRED);
    if (fired !== seen) {
      seen = fired;
      o.onFired({ stallMs: f64[F64_STALL_MS] as number, offAt: f64[F64_OFF_AT] as number });
    }
  };

  let online: Promise<void> | undefined;

  const prepare = () => {
    if (worker) return;
    const targets = o.targets.filter((t) => t.kind !== 'none');
    const w = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { control, targets, stallMs, pollMs: Math.max(5, Math.floor(beatMs / 2)) },
      // The worker needs no loader hooks; keep it from inheriting the parent's (tsx) flags.
      execArgv: [],
    });
    worker = w;
    online = new Promise<void>((resolve, reject) => {
      w.once('online', () => resolve());
      w.once('error', reject);
    });
    online.catch(() => {}); // start() reports it
    // Once running it must not keep the process alive by itself.
    w.unref();
  };

  return {
    prepare,
    async start() {
      if (beat) return;
      prepare();
      // While start() waits for the thread, the thread keeps the process alive.
      worker?.ref();
      try {
        await online;
      } finally {
        worker?.unref();
      }
      Atomics.store(ctl, GO, 1);
      Atomics.notify(ctl, GO);
      beat = setInterval(() => {
        check();
        Atomics.add(ctl, HEARTBEAT, 1);
      }, beatMs);
      beat.unref();
    },
    async stop() {
      if (beat) clearInterval(beat);
      beat = undefined;
      Atomics.store(ctl, STOP, 1);
      Atomics.notify(ctl, STOP);
      Atomics.notify(ctl, GO);
      const w = worker;
      worker = undefined;
      if (w) await w.terminate();
    },
    poll: check,
    lastOffAt: () => f64[F64_OFF_AT] as number,
  };
}

/**
 * The supervisor's loop watchdog over a rig's outputs (none when the rig has no reachable outputs); a stall it cut
 * is reported as a cut, so the trip names it or the heat guard, whichever cut first (first-cut.ts).
 */
export function loopWatchdog(rig: Rig, stallMs: number | undefined, report: (cut: ReportedCut) => void): Watchdog | undefined {
  if (!hasWatchdogTargets(rig)) return undefined;
  return createWatchdog({
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
