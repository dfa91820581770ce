/**
 * Recipe semantics for recipe collections (the publish check of registry-and-directory.md §4): every process
 * node names a known operation, and every temperature, heat level and pressure it sets lies inside that
 * operation's envelope (semantics §2). A recipe that carries a `hash` must match its own document hash.
 * Unlike the dry run, which stops at the first refusal, this collects every problem so CI can show them all.
 */
import { documentHash } from '../../core/hash.js';
import { getOp, heatLevelBand } from '../../schemas/vocab.js';

export interface RecipeProblem {
  code: 'semantics' | 'hash';
  /** JSON pointer inside the recipe. */
  pointer: string;
  message: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const show = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : String(JSON.stringify(v) ?? v));

/** Every temperature a node's params name, in °C, with its pointer; non-numbers are reported. */
function temperatures(params: Obj, base: string, problems: RecipeProblem[]): { pointer: string; c: number }[] {
  const out: { pointer: string; c: number }[] = [];
  for (const name of ['tempC', 'oilTempC']) {
    if (params[name] === undefined) continue;
    if (finite(params[name])) out.push({ pointer: `${base}/${name}`, c: params[name] });
    else problems.push({ code: 'semantics', pointer: `${base}/${name}`, message: `${show(params[name])} is not a number of °C` });
  }
  const target = params.target;
  if (isObj(target) && (target.unit === 'degC' || target.unit === 'degF')) {
    if (!finite(target.value)) {
      problems.push({ code: 'semantics', pointer: `${base}/target/value`, message: `${show(target.value)} is not a number` });
    } else {
      out.push({ pointer: `${base}/target/value`, c: target.unit === 'degF' ? ((target.value - 32) * 5) / 9 : target.value });
    }
  }
  return out;
}

function checkNode(node: unknown, pointer: string, problems: RecipeProblem[]): void {
  if (!isObj(node) || typeof node.op !== 'string') {
    problems.push({ code: 'semantics', pointer, message: 'a process node must be an object with an "op"' });
    return;
  }
  const op = getOp(node.op);
  if (!op) {
    problems.push({ code: 'semantics', pointer: `${pointer}/op`, message: `${node.op} is not an operation of the vocabulary` });
    return;
  }
  const params = isObj(node.params) ? node.params : {};
  const env = op.envelope;
  const band = env?.tempC;
  for (const t of temperatures(params, `${pointer}/params`, problems)) {
    if (band && (t.c < band.min || t.c > band.max)) {
      problems.push({
        code: 'semantics',
        pointer: t.pointer,
        message: `${t.c} °C is outside the ${node.op} envelope ${band.min}–${band.max} °C`,
      });
    }
  }
  if (env?.medium === 'pan_surface' && params.heat !== undefined) {
    const hb = typeof params.heat === 'string' ? heatLevelBand(params.heat) : undefined;
    if (!hb)
      problems.push({ code: 'semantics', pointer: `${pointer}/params/heat`, message: `${show(params.heat)} is not a known heat level` });
    else if (band && (hb.max < band.min || hb.min > band.max)) {
      problems.push({
        code: 'semantics',
        pointer: `${pointer}/params/heat`,
        message: `heat ${show(params.heat)} (pan ${hb.min}–${hb.max} °C) cannot hold the ${node.op} envelope ${band.min}–${band.max} °C`,
      });
    }
  }
  if (params.pressureKPa !== undefined) {
    const pb = env?.pressureKPa;
    if (!finite(params.pressureKPa)) {
      problems.push({
        code: 'semantics',
        pointer: `${pointer}/params/pressureKPa`,
        message: `${show(params.pressureKPa)} is not a number of kPa`,
      });
    } else if (pb && (params.pressureKPa < pb.min || params.pressureKPa > pb.max)) {
      problems.push({
        code: 'semantics',
        pointer: `${pointer}/params/pressureKPa`,
        message: `${params.pressureKPa} kPa is outside the ${node.op} envelope ${pb.min}–${pb.max} kPa`,
      });
    }
  }
}

/** Problems of one recipe document (an empty list when it passes). */
export function recipeProblems(recipe: unknown): RecipeProblem[] {
  const problems: RecipeProblem[] = [];
  if (!isObj(recipe)) return [{ code: 'semantics', pointer: '', message: 'a recipe must be a JSON object' }];
  if (typeof recipe.id !== 'string' || recipe.id === '')
    problems.push({ code: 'semantics', pointer: '/id', message: 'a recipe needs an "id"' });
  const nodes = isObj(recipe.process) ? recipe.process.nodes : undefined;
  if (!Array.isArray(nodes) || nodes.length === 0) {
    problems.push({ code: 'semantics', pointer: '/process/nodes', message: 'a recipe needs a non-empty process.nodes list' });
  } else {
    nodes.forEach((n, i) => {
      checkNode(n, `/process/nodes/${i}`, problems);
    });
  }
  if (recipe.hash !== undefined) {
    let actual = '';
    try {
      actual = documentHash(recipe);
    } catch (err) {
      actual = `unhashable (${(err as Error).message})`;
    }
    if (actual !== recipe.hash)
      problems.push({ code: 'hash', pointer: '/hash', message: `hash is ${show(recipe.hash)} but the document hashes to ${actual}` });
  }
  return problems;
}

/** The recipes of a collection document: an array of recipes, `{recipes: [...]}`, or one recipe. */
export function recipesOf(collection: unknown): unknown[] | null {
  if (Array.isArray(collection)) return collection;
  if (isObj(collection) && Array.isArray(collection.recipes)) return collection.recipes;
  if (isObj(collection) && isObj(collection.process)) return [collection];
  return null;
}
