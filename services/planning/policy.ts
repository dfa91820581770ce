/**
 * The household's and the operating mode's rules, as pure functions every surface applies the same way:
 * the verification level a household accepts, its allergens and diets, what `away` refuses (any heat step) and
 * how `saver` ranks (cheapest first, then quickest).
 */
import { ProblemError } from '../../platform/http/problems.js';
import type { PlanItem, Refusal } from '../../safety/types.js';
import { getOp } from '../../schemas/vocab.js';
import { durationSeconds, type Json, LEVELS, type Level, type RecipeFacts } from '../index/entry.js';
import type { Household } from './context.js';

/** The operating modes of a hub (docs/hub.md#operating-modes). */
export const MODES = ['normal', 'eco', 'saver', 'quiet', 'away', 'guest', 'fasting'] as const;
export type Mode = (typeof MODES)[number];

/** The start of every refusal `away` causes; the session service answers it as `policy-deny`. */
export const AWAY_REFUSAL = 'operating mode away';

const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);

export function levelRank(level: string): number {
  return LEVELS.indexOf(level as Level);
}

/** Refuses (`verification-level`) a recipe below the household's minimum level. */
export function checkLevel(facts: Pick<RecipeFacts, 'id' | 'level'>, household: Household): void {
  const min = household.minLevel;
  if (min && levelRank(facts.level) < levelRank(min))
    throw new ProblemError(
      'verification-level',
      `recipe ${facts.id} is verified at ${facts.level}; this household accepts ${min} or higher`,
      { recipeId: facts.id, level: facts.level, minLevel: min },
    );
}

/** Every allergen a recipe declares, lower case (`safety.allergens.*`, `allergensEU`, `ingredients[].allergens`). */
export function allergensOf(doc: Json): Set<string> {
  const out = new Set<string>();
  const add = (v: unknown) => {
    if (Array.isArray(v)) for (const a of v) if (typeof a === 'string') out.add(a.toLowerCase());
  };
  const a = obj(doc.safety)?.allergens;
  if (Array.isArray(a)) add(a);
  else if (obj(a)) for (const [k, v] of Object.entries(obj(a) as Json)) if (k !== 'mayContain') add(v);
  add(doc.allergensEU);
  if (Array.isArray(doc.ingredients)) for (const i of doc.ingredients) add(obj(i)?.allergens);
  return out;
}

/** The diets a recipe claims (`safety.dietary[].claim`); a vegan claim is also a vegetarian one. */
export function dietsOf(doc: Json): Set<string> {
  const out = new Set<string>();
  const d = obj(doc.safety)?.dietary;
  for (const c of Array.isArray(d) ? d : []) {
    const claim = obj(c)?.claim;
    if (typeof claim === 'string') out.add(claim.toLowerCase());
  }
  if (out.has('vegan')) out.add('vegetarian');
  return out;
}

/** What in a recipe the household's constraints rule out: allergens it holds, diets it does not claim. */
export function householdConflicts(doc: Json, household: Household): { allergens: string[]; diets: string[] } {
  const has = allergensOf(doc);
  const diets = dietsOf(doc);
  return {
    allergens: household.excludeAllergens.filter((a) => has.has(a.toLowerCase())),
    diets: household.diets.filter((d) => !diets.has(d.toLowerCase())),
  };
}

/** Refuses (`policy-deny`) a recipe the household's allergens or diets rule out. */
export function checkHousehold(id: string, doc: Json, household: Household): void {
  const c = householdConflicts(doc, household);
  if (c.allergens.length > 0 || c.diets.length > 0)
    throw new ProblemError(
      'policy-deny',
      `recipe ${id} does not suit this household: ${[
        ...c.allergens.map((a) => `contains ${a}`),
        ...c.diets.map((d) => `no ${d} claim`),
      ].join(', ')}`,
      { recipeId: id, conflicts: c },
    );
}

export const isHeatOp = (op: string): boolean => getOp(op)?.family === 'heat';

/** The process nodes of a recipe whose op heats (vocabulary family `heat`). */
export function heatNodes(doc: Json): string[] {
  const nodes = obj(doc.process)?.nodes;
  const out: string[] = [];
  for (const n of Array.isArray(nodes) ? nodes : []) {
    const node = obj(n);
    if (node && typeof node.op === 'string' && isHeatOp(node.op)) out.push(typeof node.id === 'string' ? node.id : node.op);
  }
  return out;
}

/** `away` refuses any plan with a heat step; other modes refuse nothing here. */
export function modeRefusal(mode: string, plan: readonly PlanItem[]): Refusal | undefined {
  if (mode !== 'away') return undefined;
  const heat = plan.find((p) => isHeatOp(p.op));
  if (!heat) return undefined;
  return {
    reason: 'safety_limit',
    node: heat.node,
    detail: `${AWAY_REFUSAL}: nothing heats while the household is away (step ${heat.node}, ${heat.op}); a person sets another mode first`,
  };
}

/** The recipe's stated cost (`cost.total`), when it has one. */
export function costOf(doc: Json): number | undefined {
  const t = obj(doc.cost)?.total;
  return typeof t === 'number' && Number.isFinite(t) ? t : undefined;
}

/** The recipe's total time in seconds (`process.totalTime` or the facts' `totalTime`). */
export function timeOf(doc: Json, facts?: Pick<RecipeFacts, 'totalTime'>): number | undefined {
  const iso = typeof obj(doc.process)?.totalTime === 'string' ? (obj(doc.process)?.totalTime as string) : facts?.totalTime;
  return iso ? durationSeconds(iso) : undefined;
}

/** `saver` order: cheapest first (unknown cost last), then quickest (unknown time last). */
export function saverCompare(
  a: { cost: number | undefined; timeS: number | undefined },
  b: { cost: number | undefined; timeS: number | undefined },
): number {
  const cmp = (x?: number, y?: number) => (x === y ? 0 : x === undefined ? 1 : y === undefined ? -1 : x - y);
  return cmp(a.cost, b.cost) || cmp(a.timeS, b.timeS);
}
