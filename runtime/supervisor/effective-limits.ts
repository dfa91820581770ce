/**
 * The effective maximum temperature for one heater in one step: every limit set (device configuration and
 * pack, via safety/limits.ts, strictest wins), the heater's own hard maximum, the top of its sensors' range,
 * and the recipe's narrowing (which can only lower it). The lowest value wins, and we keep which one it was.
 * On the device, a max_temp limit on a medium applies to any heating of that medium, whatever ops it names.
 */
import type { HeaterOutput, TemperatureSensor } from '../../drivers/types.js';
import { controlActive } from '../../safety/controls.js';
import { effectiveMaxTempC, mediumMaxTempC } from '../../safety/limits.js';
import type { SafetyLimits } from '../../safety/types.js';

export interface EffectiveMax {
  maxC: number;
  /** A pack limit id, `device:<heater>`, `sensor-range:<sensor>` or `recipe`. */
  limitId: string;
  action: string;
}

/** A heater may carry its device's hard maximum (drivers set it from configuration). */
type WithHardMax = HeaterOutput & { hardMaxC?: number };

export function effectiveMaxFor(
  limitSets: readonly SafetyLimits[],
  heater: HeaterOutput,
  sensors: ReadonlyMap<string, TemperatureSensor>,
  sel: { op: string; medium?: string; recipeMaxC?: number },
): EffectiveMax {
  const candidates: EffectiveMax[] = [];
  const media = new Set([heater.medium, sel.medium ?? heater.medium]);
  for (const medium of media) {
    const m = effectiveMaxTempC(limitSets, { op: sel.op, medium });
    if (m) candidates.push({ maxC: m.maxC, limitId: m.limitId, action: m.action });
    // A limit on a medium holds whenever that medium is heated, whatever the op: oil heated by a `heat` or
    // `simmer` step is still oil (the default pack scopes its 200 °C oil limit to fry and deep_fry ops).
    const mediumLimit = controlActive('medium-limit-any-op') ? mediumMaxTempC(limitSets, medium) : null;
    if (mediumLimit) candidates.push({ maxC: mediumLimit.maxC, limitId: mediumLimit.limitId, action: mediumLimit.action });
  }
  const hard = (heater as WithHardMax).hardMaxC;
  if (typeof hard === 'number' && Number.isFinite(hard))
    candidates.push({ maxC: hard, limitId: `device:${heater.id}`, action: 'cut_heat' });
  for (const id of heater.sensors) {
    const s = sensors.get(id);
    if (s) candidates.push({ maxC: s.rangeC.max, limitId: `sensor-range:${id}`, action: 'cut_heat' });
  }
  if (typeof sel.recipeMaxC === 'number' && Number.isFinite(sel.recipeMaxC)) {
    candidates.push({ maxC: sel.recipeMaxC, limitId: 'recipe', action: 'cut_heat' });
  }
  let best: EffectiveMax = { maxC: Number.POSITIVE_INFINITY, limitId: 'none', action: 'cut_heat' };
  for (const c of candidates) if (c.maxC < best.maxC) best = c;
  return best;
}
