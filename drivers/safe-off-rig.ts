/**
 * The rig file as `hearth safe-off` (and the same step at the start of `hearth start`) reads it: validated as
 * `hearth start` would, but a file that fails validation for reasons unrelated to its outputs (a heater without
 * `heatCapacityJPerK`, a sensor on an unknown bus, a misspelt key) must not keep heat on. Whatever outputs the
 * document still identifies (a GPIO relay's line and polarity, a serial appliance's port) are returned to be
 * switched off, with the validation problem to report after the cut. Only a file that cannot be read or parsed
 * at all identifies nothing.
 */
import { errorFor, type GpioLineRef } from './buses/gpio-resolve.js';
import type { RigConfig, SimulatedRigConfig } from './rig-config.js';
import { parseRigConfig, readRigDocument } from './rig-config.js';
import { heaterUse, resolveRigGpio } from './rig-config-gpio.js';

/** What safe-off needs of a heater output: a GPIO line by header number (or chip and offset), or a serial port. */
export type SafeOffHeater =
  | { id: string; driver: 'gpio_relay'; gpio: GpioLineRef & { activeLow?: boolean } }
  | { id: string; driver: 'serial_appliance'; path: string; baudRate?: number };

/** What safe-off needs of a rig (a full RigConfig is one). */
export type SafeOffRig =
  | SimulatedRigConfig
  | {
      kind: 'hardware';
      gpioSysfsRoot?: string;
      chip?: string;
      heaters: readonly SafeOffHeater[];
      presence?: GpioLineRef;
      estop?: GpioLineRef;
    };

export interface SafeOffRigFile {
  rig: SafeOffRig;
  /** Why the file failed validation (the outputs it names were still found), or why its GPIO lines do not resolve. */
  problem?: string;
  /** The problem is GPIO lines that do not resolve on this board (the file itself is valid). */
  gpioProblem?: boolean;
  /** Heater entries whose output cannot be identified (no line, or a polarity that is not true/false). */
  unidentified: { heater: string; why: string }[];
}

const record = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** The outputs of a rig document that failed validation, read leniently. */
export function salvageOutputs(doc: unknown): Omit<SafeOffRigFile, 'problem'> {
  const d = record(doc) ?? {};
  if (d.kind === 'simulated') {
    const rig: SimulatedRigConfig = { kind: 'simulated' };
    if (d.activeLowOutputs === true) rig.activeLowOutputs = true;
    if (d.hob === 'serial') rig.hob = 'serial';
    return { rig, unidentified: [] };
  }
  const heaters: SafeOffHeater[] = [];
  const unidentified: { heater: string; why: string }[] = [];
  (Array.isArray(d.heaters) ? d.heaters : []).forEach((raw: unknown, i: number) => {
    const h = record(raw) ?? {};
    const id = typeof h.id === 'string' && h.id !== '' ? h.id : `heaters[${i}]`;
    if (h.driver === 'gpio_relay') {
      const g = record(h.gpio);
      const ref = lineRef(g);
      if (!ref) unidentified.push({ heater: id, why: 'no GPIO line (gpio.line, an integer 0-4095, or gpio.chip and gpio.offset)' });
      else if (g?.activeLow !== undefined && typeof g.activeLow !== 'boolean')
        unidentified.push({ heater: id, why: `gpio.activeLow is ${JSON.stringify(g.activeLow)}, so its off level is unknown` });
      else heaters.push({ id, driver: 'gpio_relay', gpio: { ...ref, ...(g?.activeLow === true ? { activeLow: true } : {}) } });
    } else if (h.driver === 'serial_appliance') {
      if (typeof h.path !== 'string' || h.path === '') unidentified.push({ heater: id, why: 'no serial port (path)' });
      else
        heaters.push({ id, driver: 'serial_appliance', path: h.path, ...(typeof h.baudRate === 'number' ? { baudRate: h.baudRate } : {}) });
    } else unidentified.push({ heater: id, why: `unknown driver ${JSON.stringify(h.driver)}` });
  });
  const root = typeof d.gpioSysfsRoot === 'string' && d.gpioSysfsRoot !== '' ? { gpioSysfsRoot: d.gpioSysfsRoot } : {};
  const chip = typeof d.chip === 'string' && d.chip !== '' ? { chip: d.chip } : {};
  return { rig: { kind: 'hardware', ...root, ...chip, heaters }, unidentified };
}

const lineNumber = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 4095;

/** A GPIO line as the document names it, if it does: `line`, or `chip` and `offset`. */
function lineRef(g: Record<string, unknown> | undefined): GpioLineRef | undefined {
  if (lineNumber(g?.line)) return { line: g.line };
  if (typeof g?.chip === 'string' && g.chip !== '' && lineNumber(g.offset)) return { chip: g.chip, offset: g.offset };
  return undefined;
}

/**
 * The rig's GPIO lines checked against the board: a line that cannot be resolved (no header chip, a line beyond
 * the chip's count, a line used twice, no sysfs GPIO) is a problem that stops start-up and fails safe-off.
 */
function withGpioCheck(file: SafeOffRigFile): SafeOffRigFile {
  if (file.rig.kind !== 'hardware') return file;
  const { lines, errors } = resolveRigGpio(file.rig);
  if (errors.length === 0) return file;
  // A heater whose line does not resolve cannot be driven: it is reported as an output that is not known.
  const unresolved = file.rig.heaters.filter((h) => h.driver === 'gpio_relay' && !lines.has(heaterUse(h.id)));
  const rig = { ...file.rig, heaters: file.rig.heaters.filter((h) => !unresolved.includes(h)) };
  const unidentified = [
    ...file.unidentified,
    ...unresolved.map((h) => ({ heater: h.id, why: errorFor(errors, heaterUse(h.id)) ?? 'its GPIO line does not resolve' })),
  ];
  const gpio = errors.join('; ');
  return file.problem
    ? { rig, unidentified, problem: `${file.problem}; ${gpio}` }
    : { rig, unidentified, problem: gpio, gpioProblem: true };
}

/** Read a rig file for safe-off. Throws (path and reason) only when it cannot be read or parsed. */
export function loadRigForSafeOff(path: string): SafeOffRigFile {
  const doc = readRigDocument(path);
  let valid: RigConfig;
  try {
    valid = parseRigConfig(doc, path);
  } catch (err) {
    return withGpioCheck({ ...salvageOutputs(doc), problem: (err as Error).message });
  }
  const file = withGpioCheck({ rig: valid, unidentified: [] });
  return file.problem ? { ...file, problem: `${path}: ${file.problem}` } : file;
}
