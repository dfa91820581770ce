/**
 * Dying is a fault: the durable "heat is on" marker. While any heater is on, `<data dir>/heat-on.json` names each
 * one and since when (and for which execution); a clean stop (a signal, `app.stop()`) and a reset remove it. A
 * process that ends with it still there (kill -9, an OOM kill, a crash, a power cut) ended in the middle of
 * heating, and the next start comes back latched `unclean_stop`, saying what was heating and since when, until a
 * person resets it (as Klipper stays shut down after an MCU shutdown). docs/safety.md, "Stopping, dying and the latch".
 *
 * Write rate: the file is written when a heater goes from off to on (durably, before the next one can: write a
 * temporary file, fsync it, rename it over, fsync the folder, so a power cut leaves the old or the new file, never
 * half of one), never per sample or per power change. A heater going off is written only once the set of heaters
 * on has stayed the same for `settleMs` (5 s): a heater that the control loop switches off and on again (a
 * thermostat at its target) costs nothing, and the record keeps the time it first came on.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { EventBus } from '../events/bus.js';
import type { Supervisor } from './supervisor.js';
import type { SafetyTrip } from './types.js';

export const HEAT_MARKER_FILE = 'heat-on.json';

export interface HeatOnEntry {
  /** When the heater came on (RFC 3339, the device clock). */
  since: string;
  /** Who held its lease (an execution id). */
  owner?: string;
}

export interface HeatOnRecord {
  pid: number;
  heaters: Record<string, HeatOnEntry>;
}

/** The marker a previous process left in `dir`: its record, `unreadable` (counts as heat on), or undefined. */
export function readHeatMarker(dir: string): HeatOnRecord | 'unreadable' | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, HEAT_MARKER_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return 'unreadable';
  }
  try {
    const rec = JSON.parse(text) as HeatOnRecord;
    return rec && typeof rec.heaters === 'object' && rec.heaters !== null ? rec : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/** The trip to latch for a marker a previous process left. */
export function uncleanStopTrip(rec: HeatOnRecord | 'unreadable'): Omit<SafetyTrip, 'id' | 'at'> {
  const hint =
    'The device process was killed, crashed or lost power in the middle of heating (kill -9, an OOM kill, a power cut): ' +
    'every output was switched off at start-up; check the appliance and what is in it, and the log, then reset.';
  if (rec === 'unreadable')
    return {
      reason: 'unclean_stop',
      subject: 'all',
      message: `hearth ended without a clean stop with heat on (its record ${HEAT_MARKER_FILE} could not be read)`,
      hint,
      action: 'stop_all',
      source: 'start-up',
    };
  const heaters = Object.entries(rec.heaters);
  const what = heaters.map(([h, e]) => `"${h}" on since ${e.since}${e.owner ? ` (${e.owner})` : ''}`).join(', ');
  return {
    reason: 'unclean_stop',
    subject: heaters.map(([h]) => h).join(',') || 'all',
    message: `hearth (pid ${rec.pid}) ended without a clean stop while heating: ${what || 'a heater'}`,
    hint,
    action: 'stop_all',
    source: 'start-up',
  };
}

/** Keeps `<dir>/heat-on.json` in step with the heaters that are on. */
export class HeatMarker {
  private readonly path: string;
  /** Heaters on now, and what the file says. */
  private readonly on = new Map<string, HeatOnEntry>();
  private written: Record<string, HeatOnEntry> = {};
  private timer?: NodeJS.Timeout;

  constructor(
    dir: string,
    private readonly o: { settleMs?: number; onError?: (err: Error) => void } = {},
  ) {
    this.path = join(dir, HEAT_MARKER_FILE);
  }

  /** A heater came on (or its power changed: then nothing happens). `owner` is asked only when it is news. */
  heating(heater: string, since: string, owner: () => string | undefined = () => undefined): void {
    if (this.on.has(heater)) return;
    const known = this.written[heater];
    const who = known ? undefined : owner();
    this.on.set(heater, known ?? { since, ...(who ? { owner: who } : {}) });
    if (!known) this.flush();
  }

  /** A heater went off: the file follows once the heaters on have settled. */
  off(heater: string): void {
    if (!this.on.delete(heater)) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), this.o.settleMs ?? 5000);
    this.timer.unref();
  }

  /** Heat is off for good (a clean stop, a reset): remove the file now. */
  clear(): void {
    clearTimeout(this.timer);
    this.on.clear();
    this.flush();
  }

  /** Make the file say what is on now (or remove it when nothing is). */
  private flush(): void {
    clearTimeout(this.timer);
    const heaters = Object.fromEntries(this.on);
    try {
      if (this.on.size === 0) {
        try {
          unlinkSync(this.path);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
      } else {
        const tmp = `${this.path}.tmp`;
        const fd = openSync(tmp, 'w', 0o600);
        try {
          writeSync(fd, `${JSON.stringify({ pid: process.pid, heaters } satisfies HeatOnRecord)}\n`);
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
        renameSync(tmp, this.path);
      }
      this.syncDir();
      this.written = heaters;
    } catch (err) {
      this.o.onError?.(err as Error);
    }
  }

  private syncDir(): void {
    const fd = openSync(dirname(this.path), 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

/**
 * At start-up, once a latch the store kept is restored: latch `unclean_stop` when the previous process left the marker
 * in `dir` and nothing is latched already; then keep the marker in step with the supervisor's heater events (a reset
 * removes it). `clear()` is the clean stop's.
 */
export function trackHeat(
  dir: string,
  d: {
    bus: EventBus;
    supervisor: Pick<Supervisor, 'status' | 'latchTrip'>;
    log: { warn(o: object, m: string): void; error(o: object, m: string): void };
  },
  restored?: SafetyTrip,
): { clear(): void } {
  const left = readHeatMarker(dir);
  if (left && !restored) {
    const trip = d.supervisor.latchTrip(uncleanStopTrip(left));
    d.log.warn({ trip }, 'the previous process ended without a clean stop while heating: safety stop latched');
  }
  const marker = new HeatMarker(dir, {
    onError: (err) => d.log.error({ err }, `cannot record which heaters are on in ${HEAT_MARKER_FILE}`),
  });
  const offs = [
    d.bus.on('heater', (e) => {
      if (e.power > 0) marker.heating(e.heater, e.at, () => d.supervisor.status().heaters[e.heater]?.owner);
      else marker.off(e.heater);
    }),
    d.bus.on('safety', (e) => {
      if (e.kind === 'reset') marker.clear();
    }),
  ];
  return {
    clear() {
      for (const off of offs) off();
      marker.clear();
    },
  };
}
