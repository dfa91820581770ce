/**
 * The one place that decides which level a heater output's wire carries for "on" and for "off".
 *
 * An active-low relay board switches its load ON when the line is pulled LOW, so its "off" level is HIGH.
 * Every path that cuts heat (the relay driver, the loop watchdog, `hearth safe-off`, start-up and shutdown,
 * the heat guard) asks `offLevel()` here and writes that level to the wire; none of them decides on its own.
 * GPIO lines are exported without the kernel's `active_low` attribute, so a sysfs `value` file always holds
 * the wire level and a write of `offLevel()` into it is off whoever writes it.
 */
import { controlActive } from '../../safety/controls.js';

export type WireLevel = 0 | 1;

/** The wire level that leaves the load de-energized. */
export function offLevel(activeLow: boolean): WireLevel {
  // The mutation run's "off-polarity" mutant forgets the polarity: an active-low relay's cut turns it ON.
  if (!controlActive('off-polarity')) return 0;
  return activeLow ? 1 : 0;
}

/** The wire level that energizes the load. */
export function onLevel(activeLow: boolean): WireLevel {
  return activeLow ? 0 : 1;
}

/** The wire level for a logical state of the output. */
export function wireLevel(active: boolean, activeLow: boolean): WireLevel {
  return active ? onLevel(activeLow) : offLevel(activeLow);
}
