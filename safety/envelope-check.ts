/**
 * Envelope check of a temperature trace (semantics §4): did the step stay inside its operation's band once it
 * got there, and did it settle on its target?
 */
import { getOp, opEnvelope } from '../schemas/vocab.js';
import type { Band } from './types.js';

export type EnvelopeReason =
  | 'ok'
  | 'no_thermal_envelope'
  | 'unknown_op'
  | 'target_outside_envelope'
  | 'never_reached_envelope'
  | 'left_envelope'
  | 'missed_target';

export interface EnvelopeCheckResult {
  envelopeOk: boolean;
  targetOk: boolean | null;
  reason: EnvelopeReason;
}

/** Media whose band follows the boiling point: it moves down 1 °C per 300 m of altitude. */
const ALTITUDE_MEDIA = new Set(['water', 'steam']);

/** The op's temperature band at an altitude, or undefined when the op has no thermal envelope. */
export function thermalBand(op: string, altitudeM = 0): Band | undefined {
  const env = opEnvelope(op);
  if (!env?.tempC) return undefined;
  const drop = ALTITUDE_MEDIA.has(env.medium) && Number.isFinite(altitudeM) && altitudeM > 0 ? altitudeM / 300 : 0;
  return { min: env.tempC.min - drop, max: env.tempC.max - drop };
}

function inBand(v: number, b: Band): boolean {
  return Number.isFinite(v) && v >= b.min && v <= b.max;
}

/** Milliseconds or seconds of a reading's `t`: a number as is, an RFC 3339 string as epoch ms; NaN otherwise. */
function timeOf(t: unknown): number {
  if (typeof t === 'number') return t;
  return typeof t === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(t) ? Date.parse(t) : Number.NaN;
}

/** The readings sorted by `t` when every `t` is readable and of one type; otherwise in the order given. */
function inTimeOrder<R extends { t: unknown }>(readings: readonly R[]): readonly R[] {
  if (readings.length < 2) return readings;
  const kind = typeof readings[0]?.t;
  const times = readings.map((r) => (typeof r?.t === kind ? timeOf(r.t) : Number.NaN));
  if (times.some((x) => !Number.isFinite(x))) return readings;
  for (let i = 1; i < times.length; i++) {
    if ((times[i] as number) < (times[i - 1] as number)) {
      return readings
        .map((r, j) => ({ r, at: times[j] as number }))
        .sort((a, b) => a.at - b.at)
        .map((x) => x.r);
    }
  }
  return readings;
}

export function checkTemperature(input: {
  op: string;
  readings: { t: number | string; tempC: number }[];
  target?: { value: number; tolerance: number } | null;
  altitudeM?: number;
}): EnvelopeCheckResult {
  if (typeof input.op !== 'string' || getOp(input.op) === undefined) return { envelopeOk: false, targetOk: null, reason: 'unknown_op' };
  const band = thermalBand(input.op, input.altitudeM ?? 0);
  if (!band) return { envelopeOk: true, targetOk: null, reason: 'no_thermal_envelope' };
  const target = input.target ?? null;
  if (target !== null && !inBand(target.value, band)) return { envelopeOk: false, targetOk: false, reason: 'target_outside_envelope' };
  // A non-numeric reading (a string, null, NaN) is never in band: fail closed.
  const temps = inTimeOrder(Array.isArray(input.readings) ? input.readings : []).map((r) =>
    typeof r?.tempC === 'number' ? r.tempC : Number.NaN,
  );
  const first = temps.findIndex((v) => inBand(v, band));
  if (first < 0) return { envelopeOk: false, targetOk: target === null ? null : false, reason: 'never_reached_envelope' };
  let envelopeOk = true;
  for (let i = first; i < temps.length; i++) {
    if (!inBand(temps[i] as number, band)) {
      envelopeOk = false;
      break;
    }
  }
  let targetOk: boolean | null = null;
  if (target !== null) {
    const tol = Number.isFinite(target.tolerance) && target.tolerance >= 0 ? target.tolerance : 0;
    // Some reading at or after the first in-band one is within tolerance and every later one stays within:
    // the settled tail, so it is enough to find where the within-tolerance tail starts.
    let start = temps.length;
    while (start > first && Math.abs((temps[start - 1] as number) - target.value) <= tol) start--;
    targetOk = start < temps.length;
  }
  const reason: EnvelopeReason = !envelopeOk ? 'left_envelope' : targetOk === false ? 'missed_target' : 'ok';
  return { envelopeOk, targetOk, reason };
}
