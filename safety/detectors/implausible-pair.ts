/**
 * Implausible pair: two sensors in one medium that disagree by more than accuracyA + accuracyB + 1 °C
 * (semantics §5). One of them is wrong and we cannot tell which, so we stop.
 */
import { plausibility } from '../sensor-trust.js';
import { type DetectorTrip, fmt } from './types.js';

export interface PairReading {
  sensor: string;
  tempC: number;
  accuracyC: number;
}

export function checkImplausiblePair(a: PairReading, b: PairReading): DetectorTrip | null {
  if (plausibility(a, b) === 'ok') return null;
  const allowed = a.accuracyC + b.accuracyC + 1;
  return {
    reason: 'implausible_pair',
    subject: `${a.sensor}+${b.sensor}`,
    reading: Math.abs(a.tempC - b.tempC),
    limit: allowed,
    message: `sensors ${a.sensor} (${fmt(a.tempC)}) and ${b.sensor} (${fmt(b.tempC)}) disagree by ${fmt(Math.abs(a.tempC - b.tempC))}, more than ${fmt(allowed)}`,
    hint: 'One of the two sensors is wrong: check both sit in the contents and neither has come loose, then reset.',
  };
}
