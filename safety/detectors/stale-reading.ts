/**
 * Stale reading: a sensor that has not produced a good value for too long (bus errors, a lost serial link, a
 * hung driver). Without a fresh reading nothing can be verified, so heat must not stay on.
 */
import type { DetectorTrip } from './types.js';

export interface StaleInput {
  sensor: string;
  /** When the sensor last gave a good reading (clock ms); undefined when it never has. */
  lastGoodAt: number | undefined;
  /** When watching began (so a sensor that never answered trips too). */
  since: number;
  now: number;
  maxAgeMs: number;
  lastProblem?: string;
}

export function checkStale(i: StaleInput): DetectorTrip | null {
  const age = i.now - (i.lastGoodAt ?? i.since);
  if (age <= i.maxAgeMs) return null;
  const why = i.lastProblem ? ` (last error: ${i.lastProblem})` : '';
  return {
    reason: 'stale_reading',
    subject: i.sensor,
    message: `sensor ${i.sensor}: no good reading for ${Math.round(age)} ms (allowed ${i.maxAgeMs} ms)${why}`,
    hint: 'Check the sensor cable and connector (I2C wiring, serial link) and that the amplifier has power, then reset.',
  };
}
