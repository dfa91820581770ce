/**
 * Recipe semantics beyond the schema: every op is known, a step's temperatures and pressures sit inside its
 * operation's envelope (a recipe narrows an envelope and never widens it), temperatures are numbers (a string
 * such as "185" is refused, never coerced), heat levels can hold the envelope, references resolve and a
 * declared hash matches. Issues carry JSON-pointer paths; the code is `semantics` (or `hash`).
 */
import { documentHash } from '../core/hash.js';
import { type ValidationIssue, type ValidationOutcome, validate } from '../schemas/index.js';
import { getOp, heatLevelBand } from '../schemas/vocab.js';
import type { Band } from './types.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function show(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

const VENDOR_OP = /^x-[a-z0-9-]+\.[a-z0-9_.-]+$/;

export function validateRecipeSemantics(recipe: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const add = (path: string, message: string, code = 'semantics') => issues.push({ code, path, message });
  if (!isObject(recipe)) return issues;
  const process = recipe.process;
  const nodes = isObject(process) && Array.isArray(process.nodes) ? process.nodes : [];
  const level = isObject(recipe.verification) ? recipe.verification.level : undefined;

  const refs = new Set<string>();
  if (Array.isArray(recipe.ingredients)) for (const i of recipe.ingredients) if (isObject(i) && typeof i.ref === 'string') refs.add(i.ref);
  const equipment = new Set<string>();
  if (Array.isArray(recipe.equipment)) for (const e of recipe.equipment) if (isObject(e) && typeof e.ref === 'string') equipment.add(e.ref);
  for (const n of nodes) if (isObject(n) && typeof n.output === 'string') refs.add(n.output);

  const seen = new Set<string>();
  nodes.forEach((n, i) => {
    const at = `/process/nodes/${i}`;
    if (!isObject(n)) return;
    if (typeof n.id === 'string') {
      if (seen.has(n.id)) add(`${at}/id`, `node id ${n.id} is used twice`);
      seen.add(n.id);
    }
    if (Array.isArray(n.inputs)) {
      n.inputs.forEach((ref, j) => {
        if (typeof ref === 'string' && !refs.has(ref))
          add(`${at}/inputs/${j}`, `input ${ref} is neither an ingredient ref nor a node output`);
      });
    }
    if (Array.isArray(n.equipment) && equipment.size > 0) {
      n.equipment.forEach((ref, j) => {
        if (typeof ref === 'string' && !equipment.has(ref)) add(`${at}/equipment/${j}`, `equipment ${ref} is not declared in equipment`);
      });
    }
    if (typeof n.op !== 'string') return;
    const op = getOp(n.op);
    if (!op) {
      if (!VENDOR_OP.test(n.op)) add(`${at}/op`, `unknown operation ${n.op}`);
      return;
    }
    if (op.executable === false && level !== undefined && level !== 'V0') {
      add(`${at}/op`, `${n.op} is not executable: only a V0 recipe may carry it (this one claims ${show(level)})`);
    }
    checkParams(n.params, `${at}/params`, n.op, op.envelope?.tempC, op.envelope?.pressureKPa, op.envelope?.medium, add);
    if (op.envelope?.tempC) checkUntil(n.until, `${at}/until`, n.op, op.envelope.medium, op.envelope.tempC, add);
  });

  if (typeof recipe.hash === 'string') {
    try {
      const h = documentHash(recipe);
      if (h !== recipe.hash) add('/hash', `declared hash ${recipe.hash} does not match the document (${h})`, 'hash');
    } catch (err) {
      add('/hash', `the document cannot be hashed: ${(err as Error).message}`, 'hash');
    }
  }
  return issues;
}

function checkParams(
  params: unknown,
  at: string,
  op: string,
  band: Band | undefined,
  pressure: Band | undefined,
  medium: string | undefined,
  add: (path: string, message: string) => void,
): void {
  if (!isObject(params)) return;
  const temp = (path: string, v: unknown, what: string) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      add(path, `${what} must be a number of °C, not ${show(v)}`);
      return;
    }
    if (band && (v < band.min || v > band.max))
      add(
        path,
        `${what} ${v} °C is outside the ${op} envelope ${band.min}–${band.max} °C: a recipe may narrow an envelope, never widen it`,
      );
  };
  for (const name of ['tempC', 'oilTempC']) if (params[name] !== undefined) temp(`${at}/${name}`, params[name], `params.${name}`);
  const target = params.target;
  if (isObject(target) && (target.unit === 'degC' || target.unit === 'degF')) {
    if (target.unit === 'degF') {
      add(`${at}/target/unit`, 'temperatures are written in degC');
    } else {
      temp(`${at}/target/value`, target.value, 'the target');
    }
  }
  if (medium === 'pan_surface' && params.heat !== undefined) {
    const hb = typeof params.heat === 'string' ? heatLevelBand(params.heat) : undefined;
    if (!hb) add(`${at}/heat`, `heat level ${show(params.heat)} is not a known level`);
    else if (band && (hb.max < band.min || hb.min > band.max)) {
      add(`${at}/heat`, `heat ${show(params.heat)} (pan ${hb.min}–${hb.max} °C) cannot hold the ${op} envelope ${band.min}–${band.max} °C`);
    }
  }
  if (params.pressureKPa !== undefined) {
    const v = params.pressureKPa;
    if (typeof v !== 'number' || !Number.isFinite(v))
      add(`${at}/pressureKPa`, `params.pressureKPa must be a number of kPa, not ${show(v)}`);
    else if (pressure && (v < pressure.min || v > pressure.max))
      add(`${at}/pressureKPa`, `params.pressureKPa ${v} is outside the ${op} envelope ${pressure.min}–${pressure.max} kPa`);
  }
}

/** Schema and semantics together: the check `hearth validate` and the registry run on a recipe. */
export function validateRecipe(recipe: unknown): ValidationOutcome {
  const issues = [...validate.recipe(recipe).issues, ...validateRecipeSemantics(recipe)];
  return { valid: issues.length === 0, issues };
}

/** The sensor that reads each envelope medium directly. */
const MEDIUM_SENSOR: Record<string, string> = {
  oil: 'cw.sense.oil_temp',
  water: 'cw.sense.liquid_temp',
  pan_surface: 'cw.sense.pan_surface_temp',
  air: 'cw.sense.oven_temp',
  steam: 'cw.sense.chamber_temp',
  radiant: 'cw.sense.grill_temp',
};

const COMPARISONS = ['gte', 'gt', 'lte', 'lt', 'eq'] as const;

/**
 * End conditions on the sensor of the envelope's own medium must name thresholds inside the band: a step that
 * ends when the oil reaches 210 °C would take deep frying out of its envelope (or never end).
 */
function checkUntil(
  until: unknown,
  at: string,
  op: string,
  medium: string,
  band: Band,
  add: (path: string, message: string) => void,
): void {
  const sensor = MEDIUM_SENSOR[medium];
  if (!isObject(until) || sensor === undefined) return;
  for (const group of ['all', 'any'] as const) {
    const list = until[group];
    if (!Array.isArray(list)) continue;
    list.forEach((c, i) => {
      if (!isObject(c) || c.sensor !== sensor) return;
      for (const cmp of COMPARISONS) {
        if (c[cmp] === undefined) continue;
        const path = `${at}/${group}/${i}/${cmp}`;
        const v = c[cmp];
        if (typeof v !== 'number' || !Number.isFinite(v)) add(path, `the ${sensor} threshold must be a number of °C, not ${show(v)}`);
        else if (v < band.min || v > band.max)
          add(path, `the ${sensor} threshold ${v} °C is outside the ${op} envelope ${band.min}–${band.max} °C`);
      }
    });
  }
}
