/**
 * What an advice request asks for, joined with what the hub knows: the allergens to exclude (the request's
 * constraints, its diners' allergies and, on a hub, the household's), the diets, the minimum level, the time
 * available, the budget posture and the mode, and the pantry (the request's ingredients plus, on a hub, the
 * inventory). The index passes a context without inventory, household or mode, so only the request counts.
 */
import { durationSeconds, type Json, LEVELS, type Level } from '../index/entry.js';
import type { PlanningContext, StockItem } from '../planning/context.js';

export interface PantryItem extends StockItem {
  ingredientId?: string;
  mustUse?: boolean;
}

export interface Effective {
  excludeAllergens: string[];
  diets: string[];
  minLevel?: Level;
  timeAvailableS?: number;
  mode: string;
  /** `low` or `very_low` budgets (and the saver mode) rank cheaper plans first. */
  frugal: boolean;
  budget?: number;
  pantry: PantryItem[];
  /** What of the hub's own state went in (for the response's `context.used`). */
  used: string[];
}

const obj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strs = (v: unknown): string[] =>
  arr(v)
    .filter((x): x is string => typeof x === 'string')
    .map((x) => x.toLowerCase());

export function effective(ctx: PlanningContext, context: Json, query: Json): Effective {
  const constraints = obj(context.constraints);
  const used: string[] = [];
  const allergens = new Set([...strs(constraints.excludeAllergens)]);
  for (const d of arr(context.diners)) for (const a of strs(obj(d).allergies)) allergens.add(a);
  for (const m of arr(context.members)) for (const a of strs(obj(m).allergies)) allergens.add(a);
  const diets = new Set(strs(constraints.diets));
  let minLevel = LEVELS.includes(constraints.minLevel as Level) ? (constraints.minLevel as Level) : undefined;
  const hh = ctx.household?.();
  if (hh) {
    used.push('household');
    for (const a of hh.excludeAllergens) allergens.add(a.toLowerCase());
    for (const d of hh.diets) diets.add(d.toLowerCase());
    if (hh.minLevel && (!minLevel || LEVELS.indexOf(hh.minLevel) > LEVELS.indexOf(minLevel))) minLevel = hh.minLevel;
  }
  const hubMode = ctx.mode?.();
  if (hubMode) used.push('mode');
  const reqMode = obj(context.mode);
  const budget = obj(reqMode.budget);
  const mode = hubMode ?? (typeof reqMode.preset === 'string' ? reqMode.preset : 'normal');
  const frugal = mode === 'saver' || budget.mode === 'low' || budget.mode === 'very_low' || reqMode.preset === 'budget';
  const amount = Number(obj(budget.amount).amount);
  const pantry: PantryItem[] = [];
  arr(query.ingredients).forEach((raw, i) => {
    const it = obj(raw);
    const qty = obj(it.qty);
    const id = typeof it.ingredientId === 'string' ? it.ingredientId : typeof it.name === 'string' ? it.name : `item-${i}`;
    pantry.push({
      id,
      name: typeof it.name === 'string' ? it.name : id.replace(/^cw\.ing\./, '').replace(/_/g, ' '),
      quantity: typeof qty.value === 'number' ? qty.value : 1,
      unit: typeof qty.unit === 'string' ? qty.unit : 'pcs',
      ...(typeof it.ingredientId === 'string' ? { ingredientId: it.ingredientId } : {}),
      ...(typeof it.expires === 'string' ? { expires: it.expires } : {}),
      ...(it.mustUse === true ? { mustUse: true } : {}),
    });
  });
  const inv = ctx.inventory?.();
  if (inv) {
    used.push('inventory');
    pantry.push(...inv);
  }
  if (ctx.actors().length > 0) used.push('devices');
  const time = typeof constraints.timeAvailable === 'string' ? durationSeconds(constraints.timeAvailable) : undefined;
  return {
    excludeAllergens: [...allergens],
    diets: [...diets],
    ...(minLevel ? { minLevel } : {}),
    ...(time !== undefined ? { timeAvailableS: time } : {}),
    mode,
    frugal,
    ...(Number.isFinite(amount) && amount > 0 ? { budget: amount } : {}),
    pantry,
    used,
  };
}
