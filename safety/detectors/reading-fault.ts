/**
 * Reading faults: the sensor itself says something is wrong (open or shorted thermocouple), or the value
 * cannot be a temperature of this sensor (not finite, outside its physical range). A bus error is not a trip
 * by itself: one glitch leaves the reading stale, and the stale-reading detector decides.
 */
import { type DetectorTrip, fmt } from './types.js';

export interface ReadingFaultInput {
  sensor: string;
  tempC: number | null;
  fault?: string;
  detail?: string;
  rangeC: { min: number; max: number };
}

const HINTS: Record<string, string> = {
  open_circuit: 'Check the thermocouple is plugged into its amplifier and its wires are not broken, then reset.',
  short: 'Check the thermocouple wires for damaged insulation touching the pot or each other, then reset.',
  out_of_range: 'Check the sensor is the configured type and sits in the contents, then reset.',
  non_numeric: 'The sensor returned garbage: check its wiring and connector, then reset.',
};

export function checkReadingFault(i: ReadingFaultInput): DetectorTrip | null {
  const detail = i.detail ? ` (${i.detail})` : '';
  if (i.fault === 'open_circuit' || i.fault === 'short') {
    return {
      reason: 'sensor_fault',
      subject: i.sensor,
      message: `sensor ${i.sensor}: ${i.fault === 'short' ? 'thermocouple short circuit' : 'thermocouple open circuit'}${detail}`,
      hint: HINTS[i.fault] as string,
    };
  }
  if (i.fault === 'out_of_range' || i.fault === 'non_numeric') {
    return {
      reason: 'out_of_range_reading',
      subject: i.sensor,
      message: `sensor ${i.sensor}: ${i.fault.replace('_', ' ')} reading${detail}`,
      hint: HINTS[i.fault] as string,
    };
  }
  if (i.fault === undefined && (i.tempC === null || !Number.isFinite(i.tempC))) {
    return {
      reason: 'out_of_range_reading',
      subject: i.sensor,
      message: `sensor ${i.sensor}: no numeric value`,
      hint: HINTS.non_numeric as string,
    };
  }
  if (i.tempC !== null && (i.tempC < i.rangeC.min || i.tempC > i.rangeC.max)) {
    return {
      reason: 'out_of_range_reading',
      subject: i.sensor,
      reading: i.tempC,
      message: `sensor ${i.sensor} reads ${fmt(i.tempC)}, outside its range ${fmt(i.rangeC.min)}..${fmt(i.rangeC.max)}`,
      hint: HINTS.out_of_range as string,
    };
  }
  return null;
}
