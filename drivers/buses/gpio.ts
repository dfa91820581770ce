/**
 * The GPIO seam: one output line (a relay or SSR) and one input line (a button, a presence sensor). Line
 * numbers here are the kernel's sysfs numbers, already resolved from the rig file's header numbers
 * (drivers/buses/gpio-resolve.ts). The Linux backend drives outputs through sysfs itself (drivers/buses/pin-file.ts,
 * the code the heat guard and `hearth safe-off` use, under the configured sysfs root) and reads inputs with the
 * optional `onoff` package (edge interrupts through epoll), imported only when a configuration names an input;
 * onoff always uses /sys/class/gpio. Values here are logical (true = active). For outputs the backend turns them
 * into wire levels through drivers/buses/output-level.ts (the one place that knows an active-low relay's "off"
 * is HIGH); output lines are exported without the kernel's `active_low` attribute, so their sysfs `value` file
 * holds the wire level, which the watchdog and `hearth safe-off` write directly.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_GPIO_SYSFS } from './gpio-resolve.js';
import { offLevel, type WireLevel, wireLevel } from './output-level.js';
import { PinFile } from './pin-file.js';

export interface GpioOutputLine {
  readonly line: number;
  /** Drive the line; synchronous so an "off" takes effect before the call returns. */
  write(active: boolean): void;
  close(): void;
}

export interface GpioInputLine {
  readonly line: number;
  read(): Promise<boolean>;
  watch(cb: (active: boolean) => void): () => void;
  close(): void;
}

export interface GpioBackend {
  output(line: number, activeLow: boolean): GpioOutputLine;
  input(line: number, activeLow: boolean): GpioInputLine;
  /** Where a line's sysfs value file (holding the wire level) lives, for the watchdog worker and safe-off. */
  valuePath?(line: number): string;
}

/** The `onoff` Gpio class as far as we use it. */
interface OnoffGpio {
  writeSync(v: 0 | 1): void;
  read(): Promise<0 | 1>;
  watch(cb: (err: Error | null | undefined, v: 0 | 1) => void): void;
  unwatch(cb?: (err: Error | null | undefined, v: 0 | 1) => void): void;
  unexport(): void;
}
type OnoffCtor = new (
  line: number,
  dir: 'in' | 'out' | 'low' | 'high',
  edge?: 'both' | 'none',
  opts?: { activeLow?: boolean; debounceTimeout?: number },
) => OnoffGpio;

/**
 * The sysfs backend. `sysfsRoot` is where the kernel exports lines; `onoff` is loaded only when the rig has
 * inputs (`withInputs`).
 */
export async function openSysfsBackend(sysfsRoot = DEFAULT_GPIO_SYSFS, withInputs = true): Promise<GpioBackend> {
  // Inputs need onoff (epoll for edges); loaded only for the real sysfs root, the only one it knows.
  let ctor: OnoffCtor | undefined;
  let whyNoInputs = `inputs are read with onoff, which only uses ${DEFAULT_GPIO_SYSFS}, not ${sysfsRoot}`;
  if (withInputs && sysfsRoot === DEFAULT_GPIO_SYSFS)
    try {
      ctor = (await import('onoff')).Gpio as unknown as OnoffCtor;
    } catch (err) {
      whyNoInputs = `cannot load the onoff package for GPIO inputs: ${(err as Error).message}`;
    }
  return {
    output(line, activeLow) {
      let pin: PinFile;
      try {
        // Exported at the off level, no kernel inversion: the value file holds the wire level.
        pin = new PinFile(sysfsRoot, line, activeLow);
      } catch (err) {
        throw new Error(`GPIO sysfs ${line}: cannot export it through ${sysfsRoot} (${(err as Error).message})`);
      }
      return {
        line,
        write: (a) => pin.write(a),
        close: () => {
          // Leave the line driven at its off level rather than floating back to an input.
          pin.off();
          pin.close();
        },
      };
    },
    input(line, activeLow) {
      if (!ctor) throw new Error(`GPIO sysfs ${line}: ${whyNoInputs}`);
      let g: OnoffGpio;
      try {
        g = new ctor(line, 'in', 'both', { activeLow, debounceTimeout: 10 });
      } catch (err) {
        throw new Error(`GPIO sysfs ${line}: cannot export it through ${DEFAULT_GPIO_SYSFS} (${(err as Error).message})`);
      }
      return {
        line,
        read: async () => (await g.read()) === 1,
        watch(cb) {
          const fn = (err: Error | null | undefined, v: 0 | 1) => {
            if (!err) cb(v === 1);
          };
          g.watch(fn);
          return () => g.unwatch(fn);
        },
        close: () => g.unexport(),
      };
    },
    valuePath: (line) => `${sysfsRoot}/gpio${line}/value`,
  };
}

/**
 * Simulated GPIO. Outputs model the wire: each keeps the level the pin would carry (0/1), separately from
 * the relay's polarity, so a test reads what the load sees (`energized()`), never a logical flag. Given a
 * directory, each output line's level also lives in `<dir>/gpio<N>/value`, as sysfs would hold it, so the
 * watchdog worker and `hearth safe-off` can write it from outside this object.
 */
export class SimGpio implements GpioBackend {
  private readonly outs = new Map<number, { activeLow: boolean; level: WireLevel }>();
  private readonly inputs = new Map<number, { v: boolean; watchers: Set<(a: boolean) => void> }>();
  readonly valuePath?: (line: number) => string;

  constructor(private readonly root?: string) {
    if (root) this.valuePath = (line) => join(root, `gpio${line}`, 'value');
  }

  output(line: number, activeLow = false): GpioOutputLine {
    const st = { activeLow, level: offLevel(activeLow) };
    this.outs.set(line, st);
    const put = (level: WireLevel) => {
      st.level = level;
      if (this.valuePath) {
        mkdirSync(join(this.root as string, `gpio${line}`), { recursive: true });
        writeFileSync(this.valuePath(line), String(level));
      }
    };
    put(st.level);
    return { line, write: (a) => put(wireLevel(a, activeLow)), close: () => put(offLevel(activeLow)) };
  }

  /** The level the pin carries now (from the value file when file-backed), or undefined if never exported. */
  level(line: number): WireLevel | undefined {
    const st = this.outs.get(line);
    if (!st) return undefined;
    if (this.valuePath) return readFileSync(this.valuePath(line), 'utf8').trim() === '1' ? 1 : 0;
    return st.level;
  }

  /** Whether the relay on this line energizes its load at the level the wire carries now. */
  energized(line: number): boolean | undefined {
    const st = this.outs.get(line);
    const level = this.level(line);
    if (!st || level === undefined) return undefined;
    // The relay's own physics, deliberately not output-level.ts: an active-low board conducts at LOW.
    return st.activeLow ? level === 0 : level === 1;
  }

  input(line: number): GpioInputLine {
    const st = this.inputs.get(line) ?? { v: false, watchers: new Set() };
    this.inputs.set(line, st);
    return {
      line,
      read: async () => st.v,
      watch(cb) {
        st.watchers.add(cb);
        return () => st.watchers.delete(cb);
      },
      close: () => st.watchers.clear(),
    };
  }

  /** Drive a simulated input line. */
  setInput(line: number, active: boolean): void {
    const st = this.inputs.get(line) ?? { v: false, watchers: new Set() };
    this.inputs.set(line, st);
    if (st.v === active) return;
    st.v = active;
    for (const w of st.watchers) w(active);
  }
}
