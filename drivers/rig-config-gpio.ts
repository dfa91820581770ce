/**
 * A hardware rig's GPIO lines (heater relays, presence, e-stop) resolved through drivers/buses/gpio-resolve.ts
 * against the sysfs the rig names (`gpioSysfsRoot`, default /sys/class/gpio) and its `chip:` key. What start,
 * safe-off, the heat guard's spec and `hearth rig check --probe` share.
 */
import {
  DEFAULT_GPIO_SYSFS,
  type GpioChip,
  type GpioLineRef,
  GpioResolveError,
  type ResolvedGpioLine,
  type RigLineUse,
  resolveRigLines,
} from './buses/gpio-resolve.js';

/** As much of a rig as its GPIO lines need (a HardwareRigConfig is one, and so is safe-off's lenient read). */
export interface RigGpioShape {
  chip?: string;
  gpioSysfsRoot?: string;
  heaters: ReadonlyArray<{ id: string; driver: string; gpio?: GpioLineRef }>;
  presence?: GpioLineRef;
  estop?: GpioLineRef;
}

/** The key of a heater's line in a resolution (`heater "fryer"`); inputs are `presence` and `estop`. */
export const heaterUse = (id: string): string => `heater "${id}"`;

export function rigLineUses(rig: RigGpioShape): RigLineUse[] {
  const uses: RigLineUse[] = [];
  for (const h of rig.heaters) if (h.driver === 'gpio_relay' && h.gpio) uses.push({ use: heaterUse(h.id), ref: h.gpio });
  if (rig.presence) uses.push({ use: 'presence', ref: rig.presence });
  if (rig.estop) uses.push({ use: 'estop', ref: rig.estop });
  return uses;
}

export interface RigGpioResolution {
  lines: Map<string, ResolvedGpioLine>;
  /** One line per line that cannot be resolved or is used twice. */
  errors: string[];
  chips: GpioChip[];
  root: string;
}

export function resolveRigGpio(rig: RigGpioShape): RigGpioResolution {
  const root = rig.gpioSysfsRoot ?? DEFAULT_GPIO_SYSFS;
  return { ...resolveRigLines(rigLineUses(rig), { sysfsRoot: root, ...(rig.chip ? { rigChip: rig.chip } : {}) }), root };
}

/** The rig's lines, or a GpioResolveError whose one-line message names every line that cannot be resolved. */
export function resolveRigGpioOrThrow(rig: RigGpioShape): RigGpioResolution {
  const r = resolveRigGpio(rig);
  if (r.errors.length > 0) throw new GpioResolveError(r.errors.join('; '));
  return r;
}

/** A resolved line of a resolution, or a GpioResolveError naming it. */
export function lineOf(r: RigGpioResolution, use: string): ResolvedGpioLine {
  const line = r.lines.get(use);
  if (!line) throw new GpioResolveError(`${use}: its GPIO line is not resolved`);
  return line;
}
