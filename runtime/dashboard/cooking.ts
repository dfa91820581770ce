/**
 * What a cook reads on the dashboard, in words: the recipe's title, each step by its name in the operation
 * vocabulary (and the recipe's own sentence for it), the time left in the current step and in the whole
 * recipe, and, for every temperature sensor, the limit that is in force on it right now.
 *
 * Time left follows the executor: the recipe's `eta` at the status's `updatedAt` (device clock) is the time
 * left for everything; the current step's share is that minus the planned time of the steps after it.
 */
import { stepDuration } from '../../safety/dry-run.js';
import type { ProcessNode } from '../../safety/types.js';
import { getOp } from '../../schemas/vocab.js';
import type { AppContext } from '../app/context.js';
import { DEFAULT_STEP_S } from '../executor/step.js';
import type { ExecutionStatus } from '../executor/types.js';
import { effectiveMaxFor } from '../supervisor/effective-limits.js';

export interface CookingStep {
  node: string;
  /** The operation's name in the vocabulary ("Deep-fry"), never the op code. */
  name: string;
  /** The recipe's own sentence for the step, when it has one. */
  text?: string;
  plannedS: number;
}

export interface CookingView {
  recipe: string;
  title: string;
  steps: CookingStep[];
  /** Index of the current step in `steps`; -1 before the first and after the last. */
  current: number;
  stepLeftS: number | null;
  recipeLeftS: number | null;
}

export interface SensorLimit {
  maxC: number;
  /** The pack limit id, `device:<heater>`, `sensor-range:<sensor>` or `recipe`. */
  limitId: string;
  /** Why this is the limit, in words. */
  label: string;
}

type Doc = Record<string, unknown>;

function isObject(v: unknown): v is Doc {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** English text of a language map (or the first language there is). */
function words(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (!isObject(v)) return undefined;
  const en = v.en;
  if (typeof en === 'string') return en;
  const first = Object.values(v).find((x) => typeof x === 'string');
  return typeof first === 'string' ? first : undefined;
}

function textBlock(doc: Doc): Doc {
  const text = isObject(doc.text) ? doc.text : {};
  const en = text.en;
  if (isObject(en)) return en;
  const first = Object.values(text).find(isObject);
  return first ?? {};
}

/** The vocabulary's name of an op; for an op it does not know, its last segment in words (`x-a.slow_roast` → `Slow roast`). */
function opWords(op: string): string {
  const label = getOp(op)?.label;
  if (label) return label;
  const tail = op.split('.').at(-1) ?? op;
  const s = tail.replaceAll('_', ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The recipe id of an execution's `recipe` reference (`<catalog URL>#<id>` or a bare id). */
function recipeId(ref: string): string {
  const hash = ref.lastIndexOf('#');
  return hash >= 0 ? ref.slice(hash + 1) : ref;
}

export function cookingView(ctx: AppContext, status: ExecutionStatus | null): CookingView | null {
  if (!status) return null;
  const log = ctx.executor.repo.get(status.id)?.log as { recipe?: unknown } | undefined;
  if (typeof log?.recipe !== 'string') return null;
  const id = recipeId(log.recipe);
  const doc = ctx.recipes.get(id)?.doc;
  if (!doc) return null;
  const text = textBlock(doc);
  const stepTexts = isObject(text.steps) ? text.steps : {};
  const dish = isObject(doc.dish) ? doc.dish : {};
  const title = words(text.title) ?? words(dish.names) ?? id;
  const process = isObject(doc.process) ? doc.process : {};
  const nodes = (Array.isArray(process.nodes) ? process.nodes : []).filter(isObject) as unknown as ProcessNode[];
  const steps: CookingStep[] = nodes.map((n) => {
    const sentence = stepTexts[n.id];
    return {
      node: n.id,
      name: opWords(n.op),
      ...(typeof sentence === 'string' ? { text: sentence } : {}),
      plannedS: stepDuration(n) ?? DEFAULT_STEP_S,
    };
  });
  const current = status.step ? steps.findIndex((s) => s.node === status.step?.node) : -1;
  let recipeLeftS: number | null = null;
  let stepLeftS: number | null = null;
  const eta = status.eta ? Date.parse(status.eta) : Number.NaN;
  const at = Date.parse(status.updatedAt);
  if (Number.isFinite(eta) && Number.isFinite(at)) {
    recipeLeftS = Math.max(0, Math.round((eta - at) / 1000));
    if (current >= 0) {
      const later = steps.slice(current + 1).reduce((s, x) => s + x.plannedS, 0);
      stepLeftS = Math.max(0, recipeLeftS - later);
    }
  }
  return { recipe: id, title, steps, current, stepLeftS, recipeLeftS };
}

function limitWords(limitId: string, ctx: AppContext): string {
  if (limitId.startsWith('device:')) return 'the heater’s own maximum';
  if (limitId.startsWith('sensor-range:')) return 'the top of the sensor’s range';
  if (limitId === 'recipe') return 'the recipe’s maximum';
  for (const set of ctx.device.limitSets) {
    const l = (set.limits ?? []).find((x) => x.id === limitId);
    if (l?.message) return l.message;
  }
  return limitId;
}

/**
 * The limit in force on each temperature sensor: the strictest over the heaters it watches, for the op of the
 * current step (or none when idle), as the supervisor computes it.
 */
export function sensorLimits(ctx: AppContext, status: ExecutionStatus | null): Record<string, SensorLimit> {
  const op = status?.step?.op ?? '';
  const out: Record<string, SensorLimit> = {};
  for (const h of ctx.rig.heaters.values()) {
    const m = effectiveMaxFor(ctx.device.limitSets, h, ctx.rig.sensors, { op, medium: h.medium });
    if (!Number.isFinite(m.maxC)) continue;
    for (const sensor of h.sensors) {
      const prev = out[sensor];
      if (!prev || m.maxC < prev.maxC) out[sensor] = { maxC: m.maxC, limitId: m.limitId, label: limitWords(m.limitId, ctx) };
    }
  }
  return out;
}
