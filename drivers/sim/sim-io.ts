/**
 * Simulated outputs and inputs. Heater duty lives in a SharedArrayBuffer (permille per heater) so that the
 * watchdog worker can force it to zero without the main thread; the thermal model reads it from there too.
 */
import type { GpioOutputLine } from '../buses/gpio.js';
import type { DigitalInput, HeaterOutput } from '../types.js';

export class SharedDuty {
  readonly buffer: SharedArrayBuffer;
  private readonly view: Int32Array;

  constructor(slots: number) {
    this.buffer = new SharedArrayBuffer(Math.max(1, slots) * 4);
    this.view = new Int32Array(this.buffer);
  }

  get(i: number): number {
    return Atomics.load(this.view, i) / 1000;
  }

  set(i: number, power: number): void {
    Atomics.store(this.view, i, Math.round(Math.max(0, Math.min(1, power)) * 1000));
  }
}

/** A solid-state relay driven with a duty cycle; in the simulation, the duty slot is the output. */
export class SimHeater implements HeaterOutput {
  constructor(
    readonly id: string,
    readonly medium: string,
    readonly sensors: readonly string[],
    readonly maxPowerW: number,
    private readonly duty: SharedDuty,
    readonly slot: number,
    private readonly beforeChange: () => void,
    readonly hardMaxC?: number,
    /** The relay's line when another process holds it (the heat guard): on while any power is asked. */
    private readonly line?: GpioOutputLine,
  ) {}

  get power(): number {
    return this.duty.get(this.slot);
  }

  async set(power: number): Promise<void> {
    if (!Number.isFinite(power)) throw new RangeError(`heater "${this.id}": power must be a number in 0..1, got ${power}`);
    this.beforeChange();
    this.duty.set(this.slot, power);
    this.line?.write(power > 0);
  }

  off(): void {
    try {
      this.beforeChange();
    } finally {
      this.duty.set(this.slot, 0);
      this.line?.write(false);
    }
  }
}

export class SimInput implements DigitalInput {
  private value = false;
  private readonly watchers = new Set<(v: boolean) => void>();

  constructor(readonly id: string) {}

  async read(): Promise<boolean> {
    return this.value;
  }

  /** Synchronous read for the simulation's own snapshot. */
  peek(): boolean {
    return this.value;
  }

  set(v: boolean): void {
    if (v === this.value) return;
    this.value = v;
    for (const w of this.watchers) w(v);
  }

  watch(cb: (value: boolean) => void): () => void {
    this.watchers.add(cb);
    return () => this.watchers.delete(cb);
  }
}
