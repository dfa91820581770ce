/** A digital input (presence sensor, e-stop button) on a GPIO line. */
import type { GpioInputLine } from '../buses/gpio.js';
import type { DigitalInput } from '../types.js';

export class GpioDigitalInput implements DigitalInput {
  constructor(
    readonly id: string,
    private readonly line: GpioInputLine,
  ) {}

  read(): Promise<boolean> {
    return this.line.read();
  }

  watch(cb: (value: boolean) => void): () => void {
    return this.line.watch(cb);
  }

  close(): void {
    this.line.close();
  }
}
