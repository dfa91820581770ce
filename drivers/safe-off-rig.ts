/**
 * The rig file as `hearth safe-off` (and the same step at the start of `hearth start`) reads it: validated as
 * `hearth start` would, but a file that fails validation for reasons unrelated to its outputs (a heater without
 * `heatCapacityJPerK`, a sensor on an unknown bus, a misspelt key) must not keep heat on. Whatever outputs the
 * document still identifies (a GPIO relay's line and polarity, a serial appliance's port) are returned to be
 * switched off, with the validation problem to report after the cut. Only a file that cannot be read or parsed
 * at all identifies nothing.
 */
import type { RigConfig, SimulatedRigConfig } from './rig-config.js';
import { parseRigConfig, readRigDocument } from './rig-config.js';

/** What safe-off needs of a heater output. */
export type SafeOffHeater =
  | { id: string; driver: 'gpio_relay'; gpio: { line: number; activeLow?: boolean } }
  | { id: string; driver: 'serial_appliance'; path: string; baudRate?: number };

/** What safe-off needs of a rig (a full RigConfig is one). */
export type SafeOffRig = SimulatedRigConfig | { kind: 'hardware'; gpioSysfsRoot?: string; heaters: readonly SafeOffHeater[] };

export interface SafeOffRigFile {
  rig: SafeOffRig;
  /** Why the file failed validation (the outputs it names were still found), if it did. */
  problem?: string;
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
      const line = g?.line;
      if (typeof line !== 'number' || !Number.isInteger(line) || line < 0 || line > 4095)
        unidentified.push({ heater: id, why: 'no GPIO line (gpio.line, an integer 0-4095)' });
      else if (g?.activeLow !== undefined && typeof g.activeLow !== 'boolean')
        unidentified.push({ heater: id, why: `gpio.activeLow is ${JSON.stringify(g.activeLow)}, so its off level is unknown` });
      else heaters.push({ id, driver: 'gpio_relay', gpio: { line, ...(g?.activeLow === true ? { activeLow: true } : {}) } });
    } else if (h.driver === 'serial_appliance') {
      if (typeof h.path !== 'string' || h.path === '') unidentified.push({ heater: id, why: 'no serial port (path)' });
      else
        heaters.push({ id, driver: 'serial_appliance', path: h.path, ...(typeof h.baudRate === 'number' ? { baudRate: h.baudRate } : {}) });
    } else unidentified.push({ heater: id, why: `unknown driver ${JSON.stringify(h.driver)}` });
  });
  const root = typeof d.gpioSysfsRoot === 'string' && d.gpioSysfsRoot !== '' ? { gpioSysfsRoot: d.gpioSysfsRoot } : {};
  return { rig: { kind: 'hardware', ...root, heaters }, unidentified };
}

/** Read a rig file for safe-off. Throws (path and reason) only when it cannot be read or parsed. */
export function loadRigForSafeOff(path: string): SafeOffRigFile {
  const doc = readRigDocument(path);
  let valid: RigConfig;
  try {
    valid = parseRigConfig(doc, path);
  } catch (err) {
    return { ...salvageOutputs(doc), problem: (err as Error).message };
  }
  return { rig: valid, unidentified: [] };
}
