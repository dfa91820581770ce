/**
 * Which declared sensors count (semantics §3), which ladder rung holds for an op, and whether two readings of
 * one medium agree (semantics §5).
 */
import { opEnvelope } from '../schemas/vocab.js';

const RFC3339 = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2}))?$/;

/** Milliseconds of an RFC 3339 date or date-time, or NaN when unreadable. */
export function parseInstant(s: unknown): number {
  if (typeof s !== 'string' || !RFC3339.test(s)) return Number.NaN;
  return Date.parse(s.length === 10 ? `${s}T23:59:59.999Z` : s);
}

function sensorsOf(capabilities: unknown): unknown[] {
  if (typeof capabilities !== 'object' || capabilities === null) return [];
  const c = (capabilities as Record<string, unknown>).capabilities;
  if (typeof c !== 'object' || c === null) return [];
  const s = (c as Record<string, unknown>).sensors;
  return Array.isArray(s) ? s : [];
}

/**
 * Ids of the sensors (and their vision cues) that can be trusted at `now`: state absent or `ok`, calibration
 * absent or valid until a time not before `now`. An unreadable date makes the sensor untrusted.
 */
export function trustedSensors(capabilities: unknown, now: Date): Set<string> {
  const out = new Set<string>();
  const t = now.getTime();
  for (const s of sensorsOf(capabilities)) {
    if (typeof s !== 'object' || s === null) continue;
    const d = s as Record<string, unknown>;
    if (typeof d.sensor !== 'string' || d.sensor === '') continue;
    if (d.state !== undefined && d.state !== 'ok') continue;
    if (d.calibration !== undefined) {
      if (typeof d.calibration !== 'object' || d.calibration === null) continue;
      const until = (d.calibration as Record<string, unknown>).validUntil;
      if (until !== undefined) {
        const ms = parseInstant(until);
        if (Number.isNaN(ms) || ms < t) continue;
      }
    }
    out.add(d.sensor);
    if (Array.isArray(d.visionCues)) for (const cue of d.visionCues) if (typeof cue === 'string') out.add(cue);
  }
  return out;
}

/** The first rung of `ladder` that holds, or null. */
export function firstHoldingRung(
  ladder: readonly string[],
  trusted: ReadonlySet<string>,
  humanPresent: boolean,
  allowModel: boolean,
): string | null {
  for (const rung of ladder) {
    if (rung === 'model') {
      if (allowModel) return rung;
    } else if (rung === 'time') {
      return rung;
    } else if (rung === 'human') {
      if (humanPresent) return rung;
    } else if (trusted.has(rung)) {
      return rung;
    }
  }
  return null;
}

/** The sensor-ladder rung an op would be verified by on this device, or null (the step must be refused). */
export function ladderChoice(input: {
  capabilities: unknown;
  op: string;
  humanPresent: boolean;
  allowModel: boolean;
  now: Date;
}): string | null {
  const ladder = opEnvelope(input.op)?.sensorLadder ?? ['time'];
  return firstHoldingRung(ladder, trustedSensors(input.capabilities, input.now), input.humanPresent === true, input.allowModel !== false);
}

const DEFAULT_ACCURACY_C = 2;

function accuracy(a: unknown): number {
  return typeof a === 'number' && Number.isFinite(a) && a >= 0 ? a : DEFAULT_ACCURACY_C;
}

/** Two readings of one medium: implausible when they differ by more than accuracyA + accuracyB + 1 °C. */
export function plausibility(
  a: { tempC: unknown; accuracyC?: number },
  b: { tempC: unknown; accuracyC?: number },
): 'ok' | 'implausible' | 'non_numeric_reading' {
  if (typeof a.tempC !== 'number' || !Number.isFinite(a.tempC) || typeof b.tempC !== 'number' || !Number.isFinite(b.tempC)) {
    return 'non_numeric_reading';
  }
  return Math.abs(a.tempC - b.tempC) > accuracy(a.accuracyC) + accuracy(b.accuracyC) + 1 ? 'implausible' : 'ok';
}
