/**
 * Safe-off: drive every heater output a rig configuration names to its physical off level, from the rig
 * configuration alone (no database, no network, no running Hearth). `hearth safe-off` runs it, `hearth start`
 * runs it before anything that can fail, and the systemd unit runs it before start and after stop.
 *
 * - GPIO relays: through sysfs directly (no `onoff`): export the line if needed, clear the kernel's
 *   `active_low`, set the direction to the off level (which drives the wire without a glitch), write the
 *   off level to `value` and read it back. The level comes from drivers/buses/output-level.ts.
 * - Serial appliances: open the port, send `PWR,0` and wait for the appliance's answer.
 * - The simulated rig: its outputs live inside the process that runs it, so there is nothing outside a
 *   process to switch; the result says so.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { offLevel } from './buses/output-level.js';
import { systemClock } from './clock.js';
import type { RigConfig } from './rig-config.js';

export interface SafeOffResult {
  heater: string;
  /** What was driven: `gpio 17 -> 1`, `serial /dev/ttyUSB0 PWR,0`. */
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
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Drive one sysfs GPIO line to the wire level that de-energizes its load; throws with the reason. */
export function sysfsLineOff(root: string, line: number, activeLow: boolean): 0 | 1 {
  const level = offLevel(activeLow);
  const dir = join(root, `gpio${line}`);
  if (!existsSync(dir)) {
    writeFileSync(join(root, 'export'), String(line));
    // udev may take a moment to make the new line's files writable.
    for (let i = 0; i < 50 && !existsSync(join(dir, 'value')); i++) sleepSync(20);
  }
  if (existsSync(join(dir, 'active_low'))) writeFileSync(join(dir, 'active_low'), '0');
  if (existsSync(join(dir, 'direction'))) writeFileSync(join(dir, 'direction'), level === 1 ? 'high' : 'low');
  writeFileSync(join(dir, 'value'), String(level));
  const read = readFileSync(join(dir, 'value'), 'utf8').trim();
  if (read !== String(level)) throw new Error(`wrote ${level} but the line reads ${read}`);
  return level;
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
export async function safeOff(config: RigConfig, opts: SafeOffOptions = {}): Promise<SafeOffResult[]> {
  if (config.kind === 'simulated') return [];
  const out: SafeOffResult[] = [];
  const root = config.gpioSysfsRoot ?? '/sys/class/gpio';
  // GPIO first: synchronous, no port to open, nothing to wait for.
  for (const h of config.heaters) {
    if (h.driver !== 'gpio_relay') continue;
    const activeLow = h.gpio.activeLow ?? false;
    try {
      const level = sysfsLineOff(root, h.gpio.line, activeLow);
      out.push({ heater: h.id, target: `gpio ${h.gpio.line} -> ${level}${activeLow ? ' (active-low)' : ''}`, ok: true });
    } catch (err) {
      out.push({ heater: h.id, target: `gpio ${h.gpio.line}`, ok: false, error: (err as Error).message });
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
