/**
 * The GPIO seam: one output line (a relay or SSR) and one input line (a button, a presence sensor). The
 * Linux backend uses the optional `onoff` package (sysfs GPIO), imported only when a configuration names a
 * GPIO line. Values here are logical (true = active); `activeLow` lines are inverted by the backend.
 */

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
  /** Where a line's sysfs value file lives, for the watchdog worker (undefined when it has none). */
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
  dir: 'in' | 'out' | 'low',
  edge?: 'both' | 'none',
  opts?: { activeLow?: boolean; debounceTimeout?: number },
) => OnoffGpio;

/** Load `onoff` now (not before) and wrap it. `sysfsRoot` is where the kernel exports lines. */
export async function openOnoffBackend(sysfsRoot = '/sys/class/gpio'): Promise<GpioBackend> {
  let Gpio: OnoffCtor;
  try {
    Gpio = (await import('onoff')).Gpio as unknown as OnoffCtor;
  } catch (err) {
    throw new Error(`cannot load the onoff package for GPIO: ${(err as Error).message}`);
  }
  const open = (line: number, dir: 'in' | 'low', activeLow: boolean): OnoffGpio => {
    try {
      return dir === 'in' ? new Gpio(line, 'in', 'both', { activeLow, debounceTimeout: 10 }) : new Gpio(line, 'low', 'none', { activeLow });
    } catch (err) {
      throw new Error(`GPIO line ${line}: cannot export it through ${sysfsRoot} (${(err as Error).message})`);
    }
  };
  return {
    output(line, activeLow) {
      const g = open(line, 'low', activeLow);
      return { line, write: (a) => g.writeSync(a ? 1 : 0), close: () => g.unexport() };
    },
    input(line, activeLow) {
      const g = open(line, 'in', activeLow);
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

/** Simulated GPIO: lines are plain values; tests drive inputs and read outputs. */
export class SimGpio implements GpioBackend {
  readonly outputs = new Map<number, boolean>();
  private readonly inputs = new Map<number, { v: boolean; watchers: Set<(a: boolean) => void> }>();

  output(line: number): GpioOutputLine {
    this.outputs.set(line, false);
    return { line, write: (a) => this.outputs.set(line, a), close: () => this.outputs.delete(line) };
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
