/**
 * Heater output lines held by another process (the heat guard, runtime/guard): the rig drives a heater
 * through `line()`, and reads the level its wire carries with `level()` (a value file, as sysfs holds it).
 */
import type { GpioOutputLine } from './gpio.js';
import type { WireLevel } from './output-level.js';

export interface WiredOutputs {
  line(heater: string): GpioOutputLine;
  level(heater: string): WireLevel | undefined;
  /** The value file and off level of a heater's line, for the loop watchdog's worker. */
  target(heater: string): { valuePath: string; offValue: '0' | '1' } | undefined;
}
