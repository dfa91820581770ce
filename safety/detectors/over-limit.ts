/**
 * Over-limit: a reading above the effective maximum (device ∩ pack ∩ recipe, strictest wins) for what the
 * heater heats. Equal to the maximum is still allowed; anything above trips.
 */
import { type DetectorTrip, fmt } from './types.js';

export interface OverLimitInput {
  heater: string;
  sensor: string;
  tempC: number;
  maxC: number;
  /** Which limit set the maximum (a pack limit id, "device:<heater>", "recipe", "sensor-range"). */
  limitId: string;
}

export function checkOverLimit(i: OverLimitInput): DetectorTrip | null {
  if (!(i.tempC > i.maxC)) return null;
  return {
    reason: 'over_limit',
    subject: i.limitId,
    reading: i.tempC,
    limit: i.maxC,
    message: `${i.sensor} reads ${fmt(i.tempC)}, above the limit ${i.limitId} (${fmt(i.maxC)}) for heater ${i.heater}: heat cut`,
    hint: `Let the ${i.heater} cool below ${fmt(i.maxC)} and check the vessel is not empty, the sensor sits in the contents, and the heater relay switches off, then reset.`,
  };
}
