/**
 * The dry run (semantics §3): walk a recipe's process nodes in order against a device's capabilities, the
 * presence of a person and the local SafetyLimits, and plan who does each step and how it is verified. The
 * first failing node refuses the whole recipe. Pure: no I/O, the clock is an input.
 */
import { getOp, heatLevelBand, isNonExecutable } from '../schemas/vocab.js';
import { durationSeconds } from './duration.js';
import { effectiveMaxTempC, effectivePressureMaxKPa } from './limits.js';
import { firstHoldingRung, trustedSensors } from './sensor-trust.js';
import type { DryRunResult, Envelope, PlanItem, ProcessNode, RefusalReason, SafetyLimits } from './types.js';

export interface DryRunInput {
  recipe: unknown;
  capabilities: unknown;
  humanPresent?: boolean;
  allowModel?: boolean;
  limits?: SafetyLimits | SafetyLimits[];
  now?: Date;
}

class Refuse {
  constructor(
    readonly reason: RefusalReason,
    readonly detail: string,
  ) {}
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function finite(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

function show(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

/** Process nodes of a recipe, or a refusal detail when the recipe has no usable process. */
function nodesOf(recipe: unknown): ProcessNode[] | string {
  if (!isObject(recipe)) return 'the recipe is not a JSON object';
  const process = recipe.process;
  if (!isObject(process) || !Array.isArray(process.nodes)) return 'the recipe has no process.nodes array';
  for (const [i, n] of process.nodes.entries()) {
    if (!isObject(n) || typeof n.id !== 'string' || typeof n.op !== 'string') return `process node ${i} needs a string id and op`;
    if (n.params !== undefined && !isObject(n.params)) return `process node ${n.id} has params that are not an object`;
  }
  return process.nodes as ProcessNode[];
}

/** Ops the device can execute: its declared ops minus any marked (by it or the vocabulary) as not executable. */
export function deviceOps(capabilities: unknown): Set<string> {
  const out = new Set<string>();
  if (!isObject(capabilities) || !isObject(capabilities.capabilities)) return out;
  const ops = capabilities.capabilities.ops;
  if (!Array.isArray(ops)) return out;
  for (const o of ops) {
    if (!isObject(o) || typeof o.op !== 'string') continue;
    if (o.executable === false || isNonExecutable(o.op)) continue;
    out.add(o.op);
  }
  return out;
}

/**
 * The limit sets to apply, or a refusal detail when one is unusable. A malformed pack or a max_temp/pressure
 * limit without a numeric max is never skipped silently (that would loosen the limits): it refuses the run.
 */
function limitSets(limits: DryRunInput['limits']): SafetyLimits[] | string {
  if (limits === undefined) return [];
  const list: unknown[] = Array.isArray(limits) ? limits : [limits];
  for (const [i, set] of list.entries()) {
    if (!isObject(set) || !Array.isArray(set.limits)) return `limit set ${i} has no limits array`;
    for (const l of set.limits as unknown[]) {
      if (!isObject(l) || typeof l.id !== 'string' || typeof l.kind !== 'string')
        return `limit set ${i} holds a limit without an id and kind`;
      if ((l.kind === 'max_temp' || l.kind === 'pressure') && !finite(l.max)) return `limit ${l.id} (${l.kind}) has no numeric max`;
    }
  }
  return list as SafetyLimits[];
}

/** °C of a target object in degC or degF; undefined when the target is not a temperature. */
function targetTemp(target: Record<string, unknown>): number | undefined {
  const unit = target.unit;
  if (unit !== 'degC' && unit !== 'degF') return undefined;
  if (!finite(target.value)) throw new Refuse('envelope_out_of_range', `target value ${show(target.value)} is not a number`);
  return unit === 'degF' ? ((target.value - 32) * 5) / 9 : target.value;
}

interface Temps {
  /** Every temperature the step names, in °C. */
  all: { name: string; c: number }[];
  /** The step's target temperature. */
  target?: number;
}

function stepTemps(node: ProcessNode): Temps {
  const p = node.params ?? {};
  const out: Temps = { all: [] };
  for (const name of ['tempC', 'oilTempC'] as const) {
    if (p[name] === undefined) continue;
    if (!finite(p[name])) throw new Refuse('envelope_out_of_range', `params.${name} ${show(p[name])} is not a number`);
    out.all.push({ name: `params.${name}`, c: p[name] });
    out.target ??= p[name];
  }
  if (p.target !== undefined) {
    if (!isObject(p.target)) throw new Refuse('envelope_out_of_range', 'params.target is not an object');
    const c = targetTemp(p.target);
    if (c !== undefined) {
      out.all.push({ name: 'params.target', c });
      out.target ??= c;
    }
  }
  return out;
}

/** Step 2: parameters inside the envelope, then inside the local limits. Returns the step's maximum. */
function checkParams(node: ProcessNode, env: Envelope | undefined, sets: SafetyLimits[]): { targetC?: number; maxC?: number } {
  const p = node.params ?? {};
  const temps = stepTemps(node);
  const band = env?.tempC;
  if (band) {
    for (const t of temps.all) {
      if (t.c < band.min || t.c > band.max) {
        throw new Refuse('envelope_out_of_range', `${t.name} ${t.c} °C is outside the ${node.op} envelope ${band.min}–${band.max} °C`);
      }
    }
  }
  let heatBand: { min: number; max: number } | undefined;
  if (env?.medium === 'pan_surface' && p.heat !== undefined) {
    heatBand = typeof p.heat === 'string' ? heatLevelBand(p.heat) : undefined;
    if (!heatBand) throw new Refuse('envelope_out_of_range', `heat level ${show(p.heat)} is not a known level`);
    if (band && (heatBand.max < band.min || heatBand.min > band.max)) {
      throw new Refuse(
        'envelope_out_of_range',
        `heat ${show(p.heat)} (pan ${heatBand.min}–${heatBand.max} °C) cannot hold the ${node.op} envelope ${band.min}–${band.max} °C`,
      );
    }
  }
  if (p.pressureKPa !== undefined) {
    if (!finite(p.pressureKPa)) throw new Refuse('envelope_out_of_range', `params.pressureKPa ${show(p.pressureKPa)} is not a number`);
    const pb = env?.pressureKPa;
    if (pb && (p.pressureKPa < pb.min || p.pressureKPa > pb.max)) {
      throw new Refuse(
        'envelope_out_of_range',
        `params.pressureKPa ${p.pressureKPa} is outside the ${node.op} envelope ${pb.min}–${pb.max} kPa`,
      );
    }
  }
  const sel = { op: node.op, medium: env?.medium };
  const lim = effectiveMaxTempC(sets, sel);
  if (lim) {
    for (const t of temps.all) {
      if (t.c > lim.maxC) throw new Refuse('safety_limit', `${t.name} ${t.c} °C is above limit ${lim.limitId} (max ${lim.maxC} °C)`);
    }
    if (heatBand && heatBand.min > lim.maxC) {
      throw new Refuse(
        'safety_limit',
        `heat ${show(p.heat)} starts at ${heatBand.min} °C, above limit ${lim.limitId} (max ${lim.maxC} °C)`,
      );
    }
  }
  if (finite(p.pressureKPa)) {
    const pl = effectivePressureMaxKPa(sets, sel);
    if (pl && p.pressureKPa > pl.maxKPa) {
      throw new Refuse('safety_limit', `params.pressureKPa ${p.pressureKPa} is above limit ${pl.limitId} (max ${pl.maxKPa} kPa)`);
    }
  }
  const maxes = [band?.max, lim?.maxC].filter(finite);
  return { targetC: temps.target, maxC: maxes.length > 0 ? Math.min(...maxes) : undefined };
}

/** A step's planned seconds: until.minTime, else params.durationS, else params.time (undefined when none). */
export function stepDuration(node: ProcessNode): number | undefined {
  const fromUntil = durationSeconds(node.until?.minTime);
  if (fromUntil !== undefined) return fromUntil;
  const p = node.params ?? {};
  if (finite(p.durationS) && p.durationS >= 0) return p.durationS;
  return durationSeconds(p.time);
}

function humanAllowed(node: ProcessNode): boolean {
  const allowed = isObject(node.assignment) && Array.isArray(node.assignment.allowed) ? node.assignment.allowed : ['any'];
  return allowed.includes('human') || allowed.includes('any');
}

export function dryRun(input: DryRunInput): DryRunResult {
  const plan: PlanItem[] = [];
  const nodes = nodesOf(input?.recipe);
  if (typeof nodes === 'string') return { state: 'refused', plan, refusal: { reason: 'invalid_input', node: '', detail: nodes } };
  const humanPresent = input.humanPresent === true;
  const allowModel = input.allowModel !== false;
  const now = input.now instanceof Date && !Number.isNaN(input.now.getTime()) ? input.now : new Date();
  const ops = deviceOps(input.capabilities);
  const trusted = trustedSensors(input.capabilities, now);
  const sets = limitSets(input.limits);
  if (typeof sets === 'string') return { state: 'refused', plan, refusal: { reason: 'invalid_input', node: '', detail: sets } };
  for (const node of nodes) {
    try {
      // 1. The op must be on the device, or a present person may take the step.
      if (!ops.has(node.op)) {
        if (humanPresent && humanAllowed(node)) {
          plan.push({ node: node.id, op: node.op, by: 'human', verifiedBy: 'human' });
          continue;
        }
        const why = isNonExecutable(node.op)
          ? 'no device can execute it'
          : getOp(node.op)
            ? 'the device does not offer it'
            : 'it is not in the vocabulary';
        throw new Refuse(
          'missing_capability',
          `${node.op} — ${why}${humanPresent ? ' and the step is not assigned to a person' : ' and nobody is present'}`,
        );
      }
      const env = getOp(node.op)?.envelope;
      // 2. Parameters inside the envelope and the local limits.
      const { targetC, maxC } = checkParams(node, env, sets);
      // 3. Presence.
      if (env?.unattended === false && !humanPresent) {
        throw new Refuse('needs_human_present', `${node.op} may not run unattended and nobody is present`);
      }
      // 4. Sensor ladder.
      const ladder = env?.sensorLadder ?? ['time'];
      const rung = firstHoldingRung(ladder, trusted, humanPresent, allowModel);
      if (rung === null) {
        throw new Refuse('missing_sensor_no_fallback', `${node.op} needs one of ${ladder.join(', ')} and none holds on this device`);
      }
      // 5. Plan the step.
      const item: PlanItem = {
        node: node.id,
        op: node.op,
        by: 'device',
        verifiedBy: rung.startsWith('cw.') || rung.startsWith('x-') ? 'sensor' : (rung as PlanItem['verifiedBy']),
        rung,
      };
      const fallbacks = ladder
        .slice(ladder.indexOf(rung) + 1)
        .filter((r) => firstHoldingRung([r], trusted, humanPresent, allowModel) !== null);
      if (fallbacks.length > 0) item.fallbacks = fallbacks;
      if (env) {
        item.medium = env.medium;
        item.unattended = env.unattended;
      }
      if (targetC !== undefined) item.targetC = targetC;
      if (maxC !== undefined) item.maxC = maxC;
      const d = stepDuration(node);
      if (d !== undefined) item.durationS = d;
      plan.push(item);
    } catch (err) {
      if (err instanceof Refuse) return { state: 'refused', plan, refusal: { reason: err.reason, node: node.id, detail: err.detail } };
      throw err;
    }
  }
  return { state: 'accepted', plan };
}
