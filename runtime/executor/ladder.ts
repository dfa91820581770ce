/**
 * The sensor ladder at run time. The dry run chose a rung for each step and listed the rungs after it that also
 * held (PlanItem.fallbacks). When the chosen rung's sensor fails mid-step, the step falls to the first of those
 * that can still verify it safely, else the execution stops safely. Pure: the caller says which sensor failed
 * and whether the step lost its heat.
 *
 * A failed sensor makes the supervisor cut and latch heat, so a step that heats cannot go on with a rung that
 * needs heat (another sensor, a cue, a model estimate or time): the supervisor grants no heat while latched,
 * and none without a fresh reading of the heater's sensors. Only `human` remains for such a step: a person
 * checks and confirms it with the heat off. A step that does not heat may go on with a healthy sensor, a cue
 * (seen by the simulation, or confirmed by a person) or time. `model` never holds at run time here: this
 * executor has no estimate that does not come from the failed sensor.
 */
import type { PlanItem } from '../../safety/types.js';

export interface LadderSensor {
  id: string;
  svcSensor: string;
}

export interface FallbackInput {
  item: Pick<PlanItem, 'node' | 'op' | 'rung' | 'fallbacks'>;
  /** The rig sensor that failed. */
  failed: LadderSensor;
  /** The step heats (its heat is now cut and latched). */
  heats: boolean;
  /** Rig sensors and whether each gives good readings now. */
  sensors: readonly LadderSensor[];
  healthy(sensorId: string): boolean;
}

export type FallbackKind = 'sensor' | 'cue' | 'time' | 'human';

export type FallbackChoice =
  | { rung: string; kind: FallbackKind; sensor?: string; skipped: string[] }
  | { rung: null; skipped: string[]; why: string };

/** Does the step rely on this sensor (its rung names it)? Callers also count the sensors of the step's heater. */
export function rungUses(item: Pick<PlanItem, 'rung'>, sensor: LadderSensor): boolean {
  return item.rung === sensor.svcSensor;
}

export function runtimeFallback(i: FallbackInput): FallbackChoice {
  const skipped: string[] = [];
  for (const rung of i.item.fallbacks ?? []) {
    if (rung === 'human') return { rung, kind: 'human', skipped };
    if (i.heats) {
      skipped.push(`${rung} (the step needs heat, cut while ${i.failed.id} is failed)`);
      continue;
    }
    if (rung === 'model') {
      skipped.push('model (no estimate without the failed sensor)');
      continue;
    }
    if (rung === 'time') return { rung, kind: 'time', skipped };
    const other = i.sensors.find((s) => s.svcSensor === rung && s.id !== i.failed.id);
    if (other) {
      if (i.healthy(other.id)) return { rung, kind: 'sensor', sensor: other.id, skipped };
      skipped.push(`${rung} (sensor ${other.id} is not giving good readings)`);
      continue;
    }
    if (rung === i.failed.svcSensor) {
      skipped.push(`${rung} (the failed sensor)`);
      continue;
    }
    // A trusted cue or sensor this rig does not wire: the simulation sees it, a real rig asks a person.
    return { rung, kind: 'cue', skipped };
  }
  const tried = skipped.length > 0 ? `: ${skipped.join('; ')}` : '';
  return {
    rung: null,
    skipped,
    why: `node ${i.item.node} (${i.item.op}) has no rung after ${i.item.rung ?? 'its sensor'} that holds without ${i.failed.id}${tried}`,
  };
}
