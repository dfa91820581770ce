/**
 * Scaling a recipe and checking it against the kitchen's stock. Deterministic: a scale outside the recipe's own
 * envelope (`yield.scaling.minScale`–`maxScale`) is refused, quantities scale linearly unless an ingredient says
 * `scaling: "fixed"`, and stock is compared after unit conversion (schemas/vocab/units.json; mass and volume never
 * convert without a density, so such a pair is reported as unchecked, never guessed).
 */
import { convert, parseUnitsTable, type UnitsTable } from '../../core/units.js';
import { ProblemError } from '../../platform/http/problems.js';
import { readData } from '../../schemas/data.js';
import type { Json } from '../index/entry.js';
import type { StockItem } from './context.js';

let units: UnitsTable | undefined;
export function unitsTable(): UnitsTable {
  units ??= parseUnitsTable(readData('vocab/units.json'));
  return units;
}

export interface Qty {
  value: number;
  unit: string;
}

export interface ScaledIngredient {
  ref: string;
  ingredientId?: string;
  name: string;
  qty?: Qty;
  /** Whole pieces, when the recipe counts them (1 onion). */
  pieces?: number;
}

export interface Scaled {
  scale: number;
  /** Servings the scaled recipe makes (the recipe's `yield.servings` × scale), when it says. */
  servings?: number;
  envelope: { minScale: number; maxScale: number };
  ingredients: ScaledIngredient[];
}

const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);

/** Quantities to a thousandth: 300 g × 4/3 is 400 g, not 399.999999999 g. */
const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The recipe's servings (`yield.servings`), if it states them. */
export function recipeServings(doc: Json): number | undefined {
  const s = obj(doc.yield)?.servings;
  return typeof s === 'number' && s > 0 ? s : undefined;
}

/** The scale range the recipe allows; 1×–1× when it says nothing (an unstated envelope is not a licence). */
export function scaleEnvelope(doc: Json): { minScale: number; maxScale: number } {
  const s = obj(obj(doc.yield)?.scaling);
  const min = typeof s?.minScale === 'number' && s.minScale > 0 ? s.minScale : 1;
  const max = typeof s?.maxScale === 'number' && s.maxScale >= min ? s.maxScale : Math.max(1, min);
  return { minScale: min, maxScale: max };
}

function displayName(i: Json): string {
  const d = obj(i.display);
  const en = typeof d?.en === 'string' ? d.en : undefined;
  const ref = typeof i.ref === 'string' ? i.ref : '';
  const id = typeof i.ingredientId === 'string' ? i.ingredientId.replace(/^cw\.ing\./, '').replace(/_/g, ' ') : '';
  return en ?? (id || ref);
}

/** The scale asked for: `scale`, else `servings` over the recipe's own servings, else 1. */
export function scaleFor(doc: Json, input: { scale?: number; servings?: number }): number {
  if (input.scale !== undefined) return input.scale;
  const base = recipeServings(doc);
  if (input.servings !== undefined && base) return Math.round((input.servings / base) * 10000) / 10000;
  return 1;
}

/** Scale every ingredient; refuses (`no-feasible-plan`) a scale outside the recipe's envelope. */
export function scaleRecipe(doc: Json, scale: number): Scaled {
  const envelope = scaleEnvelope(doc);
  const id = typeof doc.id === 'string' ? doc.id : 'the recipe';
  if (!(scale > 0) || scale < envelope.minScale - 1e-9 || scale > envelope.maxScale + 1e-9)
    throw new ProblemError(
      'no-feasible-plan',
      `${id} scales from ${envelope.minScale}× to ${envelope.maxScale}× (yield.scaling); ${scale}× is outside that envelope`,
      { scale, envelope },
    );
  const ingredients: ScaledIngredient[] = [];
  for (const raw of Array.isArray(doc.ingredients) ? doc.ingredients : []) {
    const i = obj(raw);
    if (!i) continue;
    const fixed = i.scaling === 'fixed' || i.scaling === 'none';
    const f = fixed ? 1 : scale;
    const q = obj(i.qty);
    const out: ScaledIngredient = {
      ref: typeof i.ref === 'string' ? i.ref : '',
      name: displayName(i),
      ...(typeof i.ingredientId === 'string' ? { ingredientId: i.ingredientId } : {}),
    };
    if (q && typeof q.value === 'number' && typeof q.unit === 'string') out.qty = { value: round3(q.value * f), unit: q.unit };
    if (q && typeof q.pieces === 'number') out.pieces = round3(q.pieces * f);
    ingredients.push(out);
  }
  const servings = recipeServings(doc);
  return { scale, ...(servings ? { servings: round3(servings * scale) } : {}), envelope, ingredients };
}

const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/^cw\.ing\./, '')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
const singular = (w: string) =>
  w.length > 3 && w.endsWith('es') && !w.endsWith('ses') ? w.slice(0, -2) : w.length > 2 && w.endsWith('s') ? w.slice(0, -1) : w;
const words = (s: string) => norm(s).split('_').filter(Boolean).map(singular);

/** The stock item that is this ingredient: same id, same ingredient id, or a name naming the ingredient. */
export function stockFor(ing: ScaledIngredient, stock: readonly StockItem[]): StockItem | undefined {
  const keys = new Set([ing.ref, ing.ingredientId ?? ''].filter(Boolean).map(norm));
  const exact = stock.find((s) => keys.has(norm(s.id)) || keys.has(norm(s.name)));
  if (exact) return exact;
  const ingWords = new Set([...words(ing.ref), ...words(ing.ingredientId ?? '')]);
  // A stock name whose every word is a word of the ingredient ("onion" for cw.ing.onion_yellow; "olive oil").
  return stock.find((s) => {
    const w = words(s.name);
    return w.length > 0 && w.every((x) => ingWords.has(x));
  });
}

const COUNT_UNITS = new Set(['1', 'pcs', 'pc', 'piece', 'pieces', 'each', 'unit', 'units']);

export interface StockLine {
  ref: string;
  ingredientId?: string;
  name: string;
  need?: Qty;
  needPieces?: number;
  stockId?: string;
  have?: Qty;
  /** The stock's quantity could not be compared (mass against volume, unknown unit). */
  unchecked?: boolean;
}

export interface StockCheck {
  have: StockLine[];
  /** In stock but not enough: `need` is the whole quantity the scaled recipe needs. */
  short: StockLine[];
  missing: StockLine[];
}

/** Which of the scaled ingredients the stock covers, which it covers only in part and which are missing. */
export function checkStock(ingredients: readonly ScaledIngredient[], stock: readonly StockItem[]): StockCheck {
  const out: StockCheck = { have: [], short: [], missing: [] };
  for (const ing of ingredients) {
    const line: StockLine = {
      ref: ing.ref,
      name: ing.name,
      ...(ing.ingredientId ? { ingredientId: ing.ingredientId } : {}),
      ...(ing.qty ? { need: ing.qty } : {}),
      ...(ing.pieces !== undefined ? { needPieces: ing.pieces } : {}),
    };
    const item = stockFor(ing, stock);
    if (!item || item.quantity <= 0) {
      out.missing.push(line);
      continue;
    }
    line.stockId = item.id;
    line.have = { value: item.quantity, unit: item.unit };
    let enough: boolean | undefined;
    if (COUNT_UNITS.has(item.unit.toLowerCase())) {
      if (ing.pieces !== undefined) enough = item.quantity >= ing.pieces - 1e-9;
      else if (ing.qty && COUNT_UNITS.has(ing.qty.unit)) enough = item.quantity >= ing.qty.value - 1e-9;
    } else if (ing.qty) {
      try {
        enough = convert(item.quantity, item.unit, ing.qty.unit, unitsTable()) >= ing.qty.value - 1e-9;
      } catch {
        enough = undefined;
      }
    }
    if (enough === undefined) {
      line.unchecked = true;
      out.have.push(line);
    } else (enough ? out.have : out.short).push(line);
  }
  return out;
}
