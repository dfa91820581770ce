/**
 * `plan_preview` and `match_kitchen` as operations of the hub (and, with a bare context, of the index): one
 * function each, `(ctx, input) → result`, throwing a ProblemError for a refusal. A preview scales the recipe inside
 * its envelope, dry-runs it on the kitchen's actors without and with a person, lists what the stock lacks, and
 * says what the household and the operating mode refuse; a match does the same for every recipe.
 */
import { ProblemError } from '../../platform/http/problems.js';
import { type Catalog, isRecalled, recipeOf } from '../index/catalog.js';
import { indexEntry, type Json } from '../index/entry.js';
import { kitchenOf, type MatchItem, matchOne, planPreview } from '../index/search/match.js';
import { type Household, NO_HOUSEHOLD, type PlanningContext } from './context.js';
import { checkLevel, costOf, householdConflicts, levelRank, modeRefusal, saverCompare, timeOf } from './policy.js';
import { checkStock, type Scaled, type StockCheck, scaleFor, scaleRecipe } from './scale.js';

export interface PreviewInput {
  recipeId: string;
  scale?: number;
  servings?: number;
  serveAt?: string;
  /** Extra actors (capabilities documents) besides the hub's own. */
  actors?: Json[];
}

const household = (ctx: PlanningContext): Household => ctx.household?.() ?? NO_HOUSEHOLD;

function kitchen(ctx: PlanningContext, extra: Json[] = []): Json {
  const actors = [...ctx.actors(), ...extra];
  return actors.length > 0 ? kitchenOf({ actors }) : { capabilities: { ops: [], sensors: [] } };
}

function found(cat: Catalog, id: string) {
  const r = recipeOf(cat, id);
  if (!r) throw new ProblemError('not-found', `no recipe ${JSON.stringify(id)} here`);
  if (isRecalled(cat.recalls, r.facts.id, r.facts.hash))
    throw new ProblemError('recalled', `recipe ${id} at ${r.facts.hash} is recalled`, { recipeId: id });
  return r;
}

/** A draft session for one recipe: scaled, dry-run, checked against stock, household and mode. */
export function previewPlan(ctx: PlanningContext, input: PreviewInput): Json {
  const cat = ctx.catalog();
  const { doc, facts } = found(cat, input.recipeId);
  const hh = household(ctx);
  checkLevel(facts, hh);
  const scale = scaleFor(doc, input);
  const scaled = scaleRecipe(doc, scale);
  const preview = planPreview(doc, kitchen(ctx, input.actors), ctx.now());
  const entry = indexEntry(facts, 'en');
  const totalS = entry.totalTimeS ?? timeOf(doc) ?? 0;
  const out: Json = {
    state: 'draft',
    recipes: [{ recipeId: facts.id, hash: facts.hash, scale, ...(scaled.servings ? { servings: scaled.servings } : {}) }],
    level: facts.level,
    scaled,
    totalTimeS: totalS,
    ...preview,
  };
  const cost = costOf(doc);
  if (cost !== undefined) out.cost = { total: Math.round(cost * scale * 100) / 100, currency: (doc.cost as Json).currency ?? null };
  if (input.serveAt !== undefined) {
    const serve = Date.parse(input.serveAt);
    if (Number.isNaN(serve)) throw new ProblemError('validation-failed', 'serveAt must be an RFC 3339 date-time');
    out.serveAt = input.serveAt;
    out.startBy = new Date(serve - totalS * 1000).toISOString();
  }
  const stock = ctx.inventory?.();
  if (stock) out.stock = checkStock(scaled.ingredients, stock);
  const conflicts = householdConflicts(doc, hh);
  if (conflicts.allergens.length > 0 || conflicts.diets.length > 0) out.household = { conflicts };
  const mode = ctx.mode?.();
  if (mode) {
    out.mode = mode;
    const accepted = preview.withPerson.state === 'accepted' ? preview.withPerson : preview.withoutPerson;
    const refusal = modeRefusal(mode, accepted.plan);
    if (refusal) out.modeRefusal = refusal;
  }
  return out;
}

export interface MatchInput {
  actors?: Json[];
  /** Stock to match against instead of (on the index: as) the hub's inventory. */
  inventory?: { items: { id?: string; name: string; quantity: number; unit: string }[] };
  servings?: number;
  lang?: string;
  limit?: number;
}

export interface KitchenMatch extends MatchItem {
  scale: number;
  stock?: StockCheck;
  cost?: number;
}

/**
 * Every recipe this kitchen can cook, as `matchKitchen` does, plus the stock: recipes the stock covers rank first,
 * then fewer missing ingredients; in `saver` mode cheaper and quicker plans first. Recipes below the household's
 * level, with its allergens or without its diets, and (in `away`) any needing heat are left out and counted.
 */
export function matchWithStock(ctx: PlanningContext, input: MatchInput): Json {
  const cat = ctx.catalog();
  const k = kitchen(ctx, input.actors);
  const now = ctx.now();
  const hh = household(ctx);
  const mode = ctx.mode?.() ?? 'normal';
  const stock = input.inventory
    ? input.inventory.items.map((i, n) => ({ id: i.id ?? `item-${n}`, name: i.name, quantity: i.quantity, unit: i.unit }))
    : ctx.inventory?.();
  const items: KitchenMatch[] = [];
  const excluded: { recipeId: string; why: string }[] = [];
  for (const f of cat.facts) {
    if (isRecalled(cat.recalls, f.id, f.hash)) continue;
    const doc = cat.docs.get(f.id);
    if (!doc) continue;
    if (hh.minLevel && levelRank(f.level) < levelRank(hh.minLevel)) {
      excluded.push({ recipeId: f.id, why: `verification-level: ${f.level} < ${hh.minLevel}` });
      continue;
    }
    const c = householdConflicts(doc, hh);
    if (c.allergens.length > 0 || c.diets.length > 0) {
      excluded.push({
        recipeId: f.id,
        why: `household: ${[...c.allergens.map((a) => `contains ${a}`), ...c.diets.map((d) => `no ${d} claim`)].join(', ')}`,
      });
      continue;
    }
    const m = matchOne(doc, k, now);
    if (!m) continue;
    const preview = planPreview(doc, k, now);
    const plan = preview.withoutPerson.state === 'accepted' ? preview.withoutPerson.plan : preview.withPerson.plan;
    const refusal = modeRefusal(mode, plan);
    if (refusal) {
      excluded.push({ recipeId: f.id, why: refusal.detail });
      continue;
    }
    let scaled: Scaled | undefined;
    let scale = 1;
    try {
      scale = scaleFor(doc, input);
      scaled = scaleRecipe(doc, scale);
    } catch (err) {
      if (!(err instanceof ProblemError)) throw err;
      excluded.push({ recipeId: f.id, why: err.detail ?? 'outside its scaling envelope' });
      continue;
    }
    const cost = costOf(doc);
    items.push({
      entry: indexEntry(f, input.lang ?? 'en'),
      ...m,
      scale,
      ...(stock ? { stock: checkStock(scaled.ingredients, stock) } : {}),
      ...(cost !== undefined ? { cost: Math.round(cost * scale * 100) / 100 } : {}),
    });
  }
  const missing = (i: KitchenMatch) => (i.stock ? i.stock.missing.length + i.stock.short.length : 0);
  items.sort(
    (a, b) =>
      (mode === 'saver' ? saverCompare({ cost: a.cost, timeS: a.entry.totalTimeS }, { cost: b.cost, timeS: b.entry.totalTimeS }) : 0) ||
      missing(a) - missing(b) ||
      Number(b.unattended) - Number(a.unattended) ||
      b.automationCoverage - a.automationCoverage ||
      (a.entry.id < b.entry.id ? -1 : a.entry.id > b.entry.id ? 1 : 0),
  );
  const limit = input.limit ?? 20;
  return { total: items.length, mode, limit, items: items.slice(0, limit), excluded };
}
