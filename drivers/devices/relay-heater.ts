/**
 * A heater switched by a relay or SSR on a GPIO output. Fractional power uses time-proportioning: within each
 * window the line is on for power × window. `off()` writes the line at once and stops the cycle.
 */
import type { GpioOutputLine } from '../buses/gpio.js';
import type { Clock, HeaterOutput } from '../types.js';

export interface RelayHeaterOptions {
  id: string;
  medium: string;
  sensors: string[];
  maxPowerW: number;
  hardMaxC?: number;
  line: GpioOutputLine;
  clock: Clock;
  windowMs?: number;
}

export class RelayHeater implements HeaterOutput {
  readonly id: string;
  readonly medium: string;
  readonly sensors: readonly string[];
  readonly maxPowerW: number;
  readonly hardMaxC?: number;
  private commanded = 0;
  private timer: unknown;
  private readonly windowMs: number;

  constructor(private readonly o: RelayHeaterOptions) {
    this.id = o.id;
    this.medium = o.medium;
    this.sensors = o.sensors;
    this.maxPowerW = o.maxPowerW;
    this.hardMaxC = o.hardMaxC;
    this.windowMs = o.windowMs ?? 2000;
  }

  get power(): number {
    return this.commanded;
  }

  async set(power: number): Promise<void> {
    if (!Number.isFinite(power)) throw new RangeError(`heater "${this.id}": power must be a number in 0..1, got ${power}`);
    const p = Math.max(0, Math.min(1, power));
    if (p === 0) return this.off();
    this.commanded = p;
    if (this.timer === undefined) this.cycle();
  }

  private cycle(): void {
    const p = this.commanded;
    if (p <= 0) return;
    if (p >= 1) {
      this.o.line.write(true);
      this.timer = this.o.clock.setTimeout(() => this.cycle(), this.windowMs);
      return;
    }
    const onMs = p * this.windowMs;
    this.o.line.write(true);
    this.timer = this.o.clock.setTimeout(() => {
      if (this.commanded > 0 && this.commanded < 1) this.o.line.write(false);
      this.timer = this.o.clock.setTimeout(() => this.cycle(), this.windowMs - onMs);
    }, onMs);
  }

  off(): void {
    this.commanded = 0;
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
    this.timer = undefined;
    try {
      this.o.line.write(false);
    } catch {
      // off() never throws; the watchdog and the appliance's own protection remain
    }
  }
}
