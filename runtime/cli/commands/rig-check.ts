/** The implementation of `hearth rig check`: loaded only when that command runs. */
import { describeResolved } from '../../../drivers/buses/gpio-resolve.js';
import { createRig, loadRigConfig, type RigConfig } from '../../../drivers/rig.js';
import { resolveRigGpio } from '../../../drivers/rig-config-gpio.js';
import { CliError } from '../errors.js';

export interface RigCheck {
  file: string;
  kind: RigConfig['kind'];
  device: string;
  sensors: Array<{ id: string; svcSensor?: string; medium?: string; tempC?: number | null; fault?: string; detail?: string }>;
  heaters: Array<{ id: string; medium?: string; sensors?: string[] }>;
  inputs: Record<string, boolean | null>;
  /** With --probe on a hardware rig: each GPIO line's mapping (`GPIO17 → gpiochip0 line 17 (pinctrl-bcm2711), sysfs 529`). */
  gpio?: Array<{ use: string; mapping: string; sysfs: number }>;
  probed: boolean;
}

/** `onGpio`: called with the GPIO mapping lines once resolved, before the rig is opened (so they show even when a device does not answer). */
export async function checkRig(file: string, probe: boolean, onGpio?: (lines: string[]) => void): Promise<RigCheck> {
  let config: RigConfig;
  try {
    config = loadRigConfig(file);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  const rig = await createRig(config);
  const result: RigCheck = { file, kind: config.kind, device: rig.id, sensors: [], heaters: [], inputs: {}, probed: probe };
  if (!probe) {
    if (config.kind === 'hardware') {
      for (const s of config.sensors) result.sensors.push({ id: s.id, svcSensor: s.svcSensor, medium: s.medium });
      for (const h of config.heaters) {
        if (h.driver === 'serial_appliance') result.sensors.push({ id: h.sensor.id, svcSensor: h.sensor.svcSensor, medium: h.medium });
        result.heaters.push({ id: h.id, medium: h.medium, sensors: h.driver === 'gpio_relay' ? h.sensors : [h.sensor.id] });
      }
      if (config.presence) result.inputs.presence = null;
      if (config.estop) result.inputs.estop = null;
    } else {
      for (const s of rig.sensors.values()) result.sensors.push({ id: s.id, svcSensor: s.svcSensor, medium: s.medium });
      for (const h of rig.heaters.values()) result.heaters.push({ id: h.id, medium: h.medium, sensors: [...h.sensors] });
      result.inputs = { presence: null, estop: null };
    }
    return result;
  }
  if (config.kind === 'hardware') {
    // The lines first: a rig whose lines do not resolve on this board is not opened at all.
    const gpio = resolveRigGpio(config);
    if (gpio.errors.length > 0) throw new CliError(`${file}: ${gpio.errors.join('; ')}`, 1);
    result.gpio = [...gpio.lines].map(([use, r]) => ({ use, mapping: describeResolved(r), sysfs: r.sysfs }));
    onGpio?.(gpioLines(result));
  }
  try {
    await rig.open();
  } catch (err) {
    throw new CliError(`${file}: ${(err as Error).message}`, 1);
  }
  try {
    for (const s of rig.sensors.values()) {
      const r = await s.read();
      result.sensors.push({
        id: s.id,
        svcSensor: s.svcSensor,
        medium: s.medium,
        tempC: r.tempC,
        ...(r.fault ? { fault: r.fault, detail: r.detail } : {}),
      });
    }
    for (const h of rig.heaters.values()) result.heaters.push({ id: h.id, medium: h.medium, sensors: [...h.sensors] });
    if (rig.presence) result.inputs.presence = await rig.presence.read();
    if (rig.estop) result.inputs.estop = await rig.estop.read();
  } finally {
    await rig.close();
  }
  return result;
}

const gpioLines = (r: RigCheck): string[] => (r.gpio ?? []).map((g) => `  ${g.use}: ${g.mapping}`);

/** `printedGpio`: the mapping lines were printed already (by `onGpio`). */
export function formatRigCheck(r: RigCheck, printedGpio = false): string {
  const lines = [`${r.file}: ${r.kind} rig "${r.device}" is valid${r.probed ? ' and every device answered' : ''}`];
  for (const s of r.sensors) {
    const value = !r.probed ? '' : s.fault ? `: FAULT ${s.fault}${s.detail ? ` (${s.detail})` : ''}` : `: ${s.tempC} °C`;
    lines.push(`  sensor ${s.id} (${s.svcSensor}, ${s.medium})${value}`);
  }
  if (!printedGpio) lines.push(...gpioLines(r));
  for (const h of r.heaters) lines.push(`  heater ${h.id} (${h.medium}) watched by ${h.sensors?.join(', ')}`);
  for (const [k, v] of Object.entries(r.inputs)) lines.push(`  input ${k}${v === null ? '' : `: ${v ? 'active' : 'inactive'}`}`);
  return `${lines.join('\n')}\n`;
}
