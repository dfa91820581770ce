/**
 * Safe-off: drive every heater output a rig configuration names to its physical off level, from the rig
 * configuration alone (no database, no network, no running Hearth). `hearth safe-off` runs it, `hearth start`
 * runs it before anything that can fail, and the systemd unit runs it before start and after stop.
 *
 * - GPIO relays: the line (a header number, or chip and offset) is resolved to the kernel's sysfs number
 *   (drivers/buses/gpio-resolve.ts); then through sysfs directly (no `onoff`): export it if needed, clear the kernel's
 *   `active_low`, set the direction to the off level (which drives the wire without a glitch), write the
 *   off level to `value` and read it back. The level comes from drivers/buses/output-level.ts.
 * - Serial appliances: open the port, send `PWR,0` and wait for the appliance's answer.
 * - The simulated rig: its heater wires are value files in the data directory (drivers/sim/wires.ts); given
 *   that folder (`simWires`), they are driven off like sysfs lines. Without it there is nothing to switch.
 */
import { existsSync } from 'node:fs';
import { errorFor } from './buses/gpio-resolve.js';
import { prepareLineOff } from './buses/pin-file.js';
import { systemClock } from './clock.js';
import { heaterUse, resolveRigGpio } from './rig-config-gpio.js';
import type { SafeOffRig } from './safe-off-rig.js';
import { simWiredHeaters } from './sim/wires.js';

export interface SafeOffResult {
  heater: string;
  /** What was driven: `GPIO17 (sysfs 529) -> 1`, `serial /dev/ttyUSB0 PWR,0`. */
  target: string;
  ok: boolean;
  error?: string;
}

export interface SafeOffOptions {
  /** Serial: how long to wait for the appliance's answer (ms, default 1000). */
  serialTimeoutMs?: number;
  /** How a serial appliance is reached (tests inject the mock binding). */
  openSerial?: (
    path: string,
    baudRate: number,
  ) => Promise<{ request(cmd: string, ...args: number[]): Promise<unknown>; close(): Promise<void> }>;
  /** Simulated rig: the folder holding its heater wires (`<data dir>/sim-gpio`). */
  simWires?: string;
}

/** Drive one sysfs GPIO line to the wire level that de-energizes its load; throws with the reason. */
export function sysfsLineOff(root: string, line: number, activeLow: boolean): 0 | 1 {
  return prepareLineOff(root, line, activeLow);
}

async function defaultOpenSerial(path: string, baudRate: number, timeoutMs: number) {
  const { SerialPort } = await import('serialport');
  const { SerialApplianceClient } = await import('./devices/serial-appliance.js');
  const port = new SerialPort({ path, baudRate, autoOpen: false });
  await new Promise<void>((resolve, reject) =>
    port.open((err) => (err ? reject(new Error(`cannot open ${path}: ${err.message}`)) : resolve())),
  );
  return new SerialApplianceClient({ path, link: port, clock: systemClock, timeoutMs });
}

/** Switch every configured heater output off. Never throws: each output's outcome is in the result. */
export async function safeOff(config: SafeOffRig, opts: SafeOffOptions = {}): Promise<SafeOffResult[]> {
  if (config.kind === 'simulated') {
    const root = opts.simWires;
    if (!root || !existsSync(root)) return [];
    return simWiredHeaters(config).map((h) => {
      try {
        const level = prepareLineOff(root, h.line, h.activeLow, true);
        return { heater: h.id, target: `sim wire ${h.line} -> ${level}${h.activeLow ? ' (active-low)' : ''}`, ok: true };
      } catch (err) {
        return { heater: h.id, target: `sim wire ${h.line}`, ok: false, error: (err as Error).message };
      }
    });
  }
  const out: SafeOffResult[] = [];
  // GPIO first: synchronous, no port to open, nothing to wait for. Every line that resolves is cut, whatever
  // is wrong with the others.
  const gpio = resolveRigGpio(config);
  // A line two heaters share with opposite polarities has no off level anyone can name: it is left alone.
  const polarity = new Map<number, Set<boolean>>();
  for (const h of config.heaters) {
    const l = h.driver === 'gpio_relay' ? gpio.lines.get(heaterUse(h.id)) : undefined;
    if (l && h.driver === 'gpio_relay') polarity.set(l.sysfs, (polarity.get(l.sysfs) ?? new Set()).add(h.gpio.activeLow ?? false));
  }
  for (const h of config.heaters) {
    if (h.driver !== 'gpio_relay') continue;
    const activeLow = h.gpio.activeLow ?? false;
    const line = gpio.lines.get(heaterUse(h.id));
    const named = h.gpio.line !== undefined ? `GPIO${h.gpio.line}` : `${h.gpio.chip} offset ${h.gpio.offset}`;
    if (!line) {
      const why = errorFor(gpio.errors, heaterUse(h.id)) ?? 'its GPIO line does not resolve';
      out.push({ heater: h.id, target: named, ok: false, error: why });
      continue;
    }
    const target = `${line.name} (sysfs ${line.sysfs})`;
    if ((polarity.get(line.sysfs)?.size ?? 0) > 1) {
      out.push({
        heater: h.id,
        target,
        ok: false,
        error: 'the line is used twice, active-high and active-low, so its off level is unknown',
      });
      continue;
    }
    try {
      const level = sysfsLineOff(gpio.root, line.sysfs, activeLow);
      out.push({ heater: h.id, target: `${target} -> ${level}${activeLow ? ' (active-low)' : ''}`, ok: true });
    } catch (err) {
      out.push({ heater: h.id, target, ok: false, error: (err as Error).message });
    }
  }
  const timeoutMs = opts.serialTimeoutMs ?? 1000;
  for (const h of config.heaters) {
    if (h.driver !== 'serial_appliance') continue;
    const target = `serial ${h.path} PWR,0`;
    try {
      const client = await (opts.openSerial ?? ((p, b) => defaultOpenSerial(p, b, timeoutMs)))(h.path, h.baudRate ?? 115200);
      try {
        await client.request('PWR', 0);
      } finally {
        await client.close().catch(() => {});
      }
      out.push({ heater: h.id, target, ok: true });
    } catch (err) {
      out.push({ heater: h.id, target, ok: false, error: (err as Error).message });
    }
  }
  return out;
}
