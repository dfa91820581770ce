/**
 * How an independent watchdog (a worker thread that shares no objects with the main thread) can force heater
 * outputs off by itself. A rig lists one target per heater output:
 * - `shared`: a simulated output whose duty lives in a SharedArrayBuffer; the worker stores 0 into it.
 * - `sysfs`: a GPIO line exported through sysfs (no kernel inversion, so the file holds the wire level) under its
 *   kernel number, resolved from the rig file's header number (drivers/buses/gpio-resolve.ts: GPIO17 is
 *   `gpio529/value` on a Pi 4 with kernel 6.6); the worker writes `offValue`, the wire level
 *   drivers/buses/output-level.ts chose for off, into that value file.
 * - `none`: the output cannot be reached from another thread (a serial appliance); it relies on its own
 *   device-side timeout instead (see docs/hardware.md).
 */
export type WatchdogTarget =
  | { kind: 'shared'; heater: string; buffer: SharedArrayBuffer; index: number }
  | { kind: 'sysfs'; heater: string; valuePath: string; offValue: '0' | '1' }
  | { kind: 'none'; heater: string; why: string };

export interface WatchdogCapable {
  watchdogTargets(): WatchdogTarget[];
}

export function hasWatchdogTargets(x: object): x is WatchdogCapable {
  return typeof (x as Partial<WatchdogCapable>).watchdogTargets === 'function';
}
