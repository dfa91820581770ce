/** Kinds over the safety kernel: envelope (trace check or sensor ladder), dryrun, sensor_trust, plausibility. */

import { parseRfc3339 } from '../../core/time.js';
import { dryRun } from '../../safety/dry-run.js';
import { checkTemperature } from '../../safety/envelope-check.js';
import { ladderChoice, plausibility, trustedSensors } from '../../safety/sensor-trust.js';
import type { SafetyLimits } from '../../safety/types.js';
import { type KindHandler, VectorInputError } from '../types.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `input.now` when given (strict RFC 3339), else the runner's clock. */
function nowOf(input: Record<string, unknown>, fallback: () => Date): Date {
  if (input.now === undefined || input.now === null) return fallback();
  const t = parseRfc3339(input.now);
  if (!t) throw new VectorInputError(`input.now ${JSON.stringify(input.now)} is not an RFC 3339 time`);
  return new Date(Number(t.epochMicros / 1000n));
}

function flag(v: unknown, dflt: boolean): boolean {
  return typeof v === 'boolean' ? v : dflt;
}

/**
 * Two shapes: a trace check `{op, readings, target?, altitudeM?}` → `{envelopeOk, targetOk, reason}`, or a ladder
 * question `{op, sensors: [ids], allowModel, humanPresent}` → `{choice}` (the listed sensors are trusted).
 */
const envelope: KindHandler = (input, ctx) => {
  if (typeof input.op !== 'string') throw new VectorInputError('input.op must be a string');
  if (Array.isArray(input.readings)) {
    const target = isObject(input.target) ? (input.target as { value: number; tolerance: number }) : null;
    const altitudeM = typeof input.altitudeM === 'number' ? input.altitudeM : 0;
    const r = checkTemperature({ op: input.op, readings: input.readings as { t: number; tempC: number }[], target, altitudeM });
    return { envelopeOk: r.envelopeOk, targetOk: r.targetOk, reason: r.reason };
  }
  const sensors = (Array.isArray(input.sensors) ? input.sensors : []).map((s) => (typeof s === 'string' ? { sensor: s } : s));
  const capabilities = { capabilities: { ops: [{ op: input.op }], sensors } };
  const choice = ladderChoice({
    capabilities,
    op: input.op,
    humanPresent: flag(input.humanPresent, false),
    allowModel: flag(input.allowModel, true),
    now: nowOf(input, ctx.now),
  });
  return { choice };
};

/**
 * `{recipe, capabilities, humanPresent?, allowModel?, limits?, now?}` → `{state, reason, by}`: `by` per plan item,
 * on a refusal the plan as far as it got (semantics §3), as the CLI prints it.
 */
const dryrun: KindHandler = (input, ctx) => {
  const limits = input.limits === undefined || input.limits === null ? undefined : (input.limits as SafetyLimits | SafetyLimits[]);
  const r = dryRun({
    recipe: input.recipe,
    capabilities: input.capabilities,
    humanPresent: flag(input.humanPresent, false),
    allowModel: flag(input.allowModel, true),
    ...(limits === undefined ? {} : { limits }),
    now: nowOf(input, ctx.now),
  });
  return { state: r.state, reason: r.refusal?.reason ?? null, by: r.plan.map((p) => p.by) };
};

/** `{capabilities, op, humanPresent, allowModel, now}` → `{choice}`; without `op`, → `{trusted: [ids sorted]}`. */
const sensorTrust: KindHandler = (input, ctx) => {
  const now = nowOf(input, ctx.now);
  if (typeof input.op !== 'string') return { trusted: [...trustedSensors(input.capabilities, now)].sort() };
  return {
    choice: ladderChoice({
      capabilities: input.capabilities,
      op: input.op,
      humanPresent: flag(input.humanPresent, false),
      allowModel: flag(input.allowModel, true),
      now,
    }),
  };
};

/** `{readings: [{sensor, tempC}…], sensors: [{sensor, accuracy?}]}` → `{ok, reason}`; every pair must agree. */
const plausibilityKind: KindHandler = (input) => {
  if (!Array.isArray(input.readings) || input.readings.length < 2) throw new VectorInputError('input.readings needs at least two readings');
  const accuracyOf = new Map<unknown, number>();
  for (const s of Array.isArray(input.sensors) ? input.sensors : []) {
    if (isObject(s) && typeof s.accuracy === 'number') accuracyOf.set(s.sensor, s.accuracy);
  }
  const readings = input.readings.map((r) => {
    const o = isObject(r) ? r : {};
    const acc = accuracyOf.get(o.sensor);
    return acc === undefined ? { tempC: o.tempC } : { tempC: o.tempC, accuracyC: acc };
  });
  let worst: 'ok' | 'implausible' | 'non_numeric_reading' = 'ok';
  for (let i = 0; i < readings.length && worst !== 'non_numeric_reading'; i++) {
    for (let j = i + 1; j < readings.length; j++) {
      const r = plausibility(readings[i] as { tempC: unknown }, readings[j] as { tempC: unknown });
      if (r === 'non_numeric_reading') {
        worst = r;
        break;
      }
      if (r === 'implausible') worst = r;
    }
  }
  return { ok: worst === 'ok', reason: worst };
};

export const safetyKinds: Record<string, KindHandler> = { envelope, dryrun, sensor_trust: sensorTrust, plausibility: plausibilityKind };
