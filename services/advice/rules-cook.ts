/**
 * Advice that picks recipes: `cook_from` (what can I cook with what I have) and `feed` (feed N people). Each
 * option is a recipe of the catalog the kitchen can cook (the dry run on its devices, when it has any), inside
 * the recipe's scaling envelope, clear of the allergens and diets in force and at or above the minimum level;
 * its reasons name the recipe, the substitution rows and the capabilities it rests on.
 */
import { ProblemError } from '../../platform/http/problems.js';
import { isRecalled } from '../index/catalog.js';
import { indexEntry, type Json, type RecipeFacts } from '../index/entry.js';
import { kitchenOf, matchOne } from '../index/search/match.js';
import type { PlanningContext } from '../planning/context.js';
import { allergensOf, costOf, heatNodes, householdConflicts, levelRank, saverCompare, timeOf } from '../planning/policy.js';
import { checkStock, type ScaledIngredient, scaleEnvelope, scaleRecipe, stockFor } from '../planning/scale.js';
import type { Effective } from './constraints.js';
import { SUBSTITUTION_RULE, SUBSTITUTIONS } from './tables.js';
import type { AdviceOption, Evidence } from './types.js';

const obj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
/** Always at hand in a kitchen; never counted as missing. */
const STAPLES = new Set(['cw.ing.water', 'cw.ing.salt', 'cw.ing.black_pepper_ground']);

interface Candidate {
  facts: RecipeFacts;
  doc: Json;
  title: string;
  automation?: number;
  conditions: string[];
  evidence: Evidence[];
  cost?: number;
  timeS?: number;
}

/** Recipes that pass the level, allergens, diets, time, mode and (with devices) the dry run. */
function candidates(ctx: PlanningContext, eff: Effective, lang: string): Candidate[] {
  const cat = ctx.catalog();
  const actors = ctx.actors();
  const kitchen = actors.length > 0 ? kitchenOf({ actors }) : undefined;
  const now = ctx.now();
  const out: Candidate[] = [];
  for (const facts of cat.facts) {
    if (isRecalled(cat.recalls, facts.id, facts.hash)) continue;
    const doc = cat.docs.get(facts.id);
    if (!doc) continue;
    if (eff.minLevel && levelRank(facts.level) < levelRank(eff.minLevel)) continue;
    const c = householdConflicts(doc, { excludeAllergens: eff.excludeAllergens, diets: eff.diets });
    if (c.allergens.length > 0 || c.diets.length > 0) continue;
    // `away` refuses heat at the executor; advice offers nothing it would refuse.
    if (eff.mode === 'away' && heatNodes(doc).length > 0) continue;
    const timeS = timeOf(doc, facts);
    if (eff.timeAvailableS !== undefined && timeS !== undefined && timeS > eff.timeAvailableS) continue;
    const evidence: Evidence[] = [{ kind: 'recipe', ref: facts.id }];
    const conditions: string[] = [];
    let automation: number | undefined;
    if (kitchen) {
      const m = matchOne(doc, kitchen, now);
      if (!m) continue;
      automation = m.automationCoverage;
      if (m.presenceSteps.length > 0) conditions.push(`A person present for steps ${m.presenceSteps.join(', ')}`);
      if (m.humanSteps.length > 0) conditions.push(`A person does steps ${m.humanSteps.join(', ')}`);
      for (const a of actors) {
        const id = obj(a.actor).id;
        if (typeof id === 'string') evidence.push({ kind: 'capability', ref: id });
      }
    } else if (facts.supervision && facts.supervision !== 'none') conditions.push(`Supervision: ${facts.supervision}`);
    const allergens = [...allergensOf(doc)];
    if (allergens.length > 0) conditions.push(`Contains ${allergens.join(', ')}`);
    const cost = costOf(doc);
    out.push({
      facts,
      doc,
      title: indexEntry(facts, lang).title,
      conditions,
      evidence,
      ...(automation !== undefined ? { automation } : {}),
      ...(cost !== undefined ? { cost } : {}),
      ...(timeS !== undefined ? { timeS } : {}),
    });
  }
  return out;
}

const round2 = (x: number) => Math.round(x * 100) / 100;
const isSeasoning = (need: { value: number; unit: string } | undefined, scale: number) =>
  need !== undefined && need.value / scale <= (need.unit === 'ml' ? 15 : need.unit === 'g' ? 10 : 0);
const safetyOf = (conditions: string[]) =>
  conditions.length > 0 ? { verdict: 'safe_with_conditions' as const, conditions } : { verdict: 'safe' as const };

/** `cook_from`: recipes the pantry covers (up to `allowMissing` missing, substitutions from the table). */
export function cookFrom(ctx: PlanningContext, eff: Effective, query: Json, lang: string): AdviceOption[] {
  const servings = typeof query.servings === 'number' && query.servings > 0 ? query.servings : undefined;
  const allowMissing = typeof query.allowMissing === 'number' ? query.allowMissing : 2;
  const allowSubs = query.allowSubstitutions !== false;
  const soon = ctx.now().getTime() + 3 * 86400_000;
  const scored: { option: AdviceOption; score: number; cost?: number; timeS?: number }[] = [];
  for (const c of candidates(ctx, eff, lang)) {
    const base = obj(c.doc.yield).servings;
    const scale = servings && typeof base === 'number' && base > 0 ? servings / base : 1;
    let ingredients: ScaledIngredient[];
    try {
      ingredients = scaleRecipe(c.doc, Math.round(scale * 10000) / 10000).ingredients;
    } catch (err) {
      if (err instanceof ProblemError) continue; // outside its envelope: another option fits better
      throw err;
    }
    const needed = ingredients.filter((i) => !STAPLES.has(i.ingredientId ?? ''));
    const stock = checkStock(needed, eff.pantry);
    const substituted: { from: string; to: string; ratio: number }[] = [];
    const missing: string[] = [];
    /** Seasonings and garnishes (≤ 10 g or 15 ml a batch): listed, never a reason to drop a recipe. */
    const minor: string[] = [];
    for (const line of [...stock.missing, ...stock.short]) {
      const from = line.ingredientId ?? line.ref;
      const sub = allowSubs
        ? SUBSTITUTIONS.find(
            (s) =>
              s.from === from &&
              stockFor({ ref: s.to, ingredientId: s.to, name: s.to }, eff.pantry) &&
              !(s.allergens ?? []).some((a) => eff.excludeAllergens.includes(a)),
          )
        : undefined;
      // An ingredient on several lines (vinegar in the rice and in the sauce) is one thing to buy: counted once.
      if (sub) {
        if (!substituted.some((x) => x.from === sub.from)) substituted.push({ from: sub.from, to: sub.to, ratio: sub.ratio });
      } else if (isSeasoning(line.need, scale)) minor.push(from);
      else if (!missing.includes(from)) missing.push(from);
    }
    for (let i = minor.length - 1; i >= 0; i--) {
      if (missing.includes(minor[i] as string) || minor.indexOf(minor[i] as string) !== i) minor.splice(i, 1);
    }
    if (missing.length > allowMissing) continue;
    const have = [...new Set(stock.have.map((l) => l.ingredientId ?? l.ref))];
    const usesFirst = stock.have
      .filter((l) => {
        const item = eff.pantry.find((p) => p.id === l.stockId);
        return item && ((item as { mustUse?: boolean }).mustUse || (item.expires !== undefined && Date.parse(item.expires) <= soon));
      })
      .map((l) => l.ingredientId ?? l.ref)
      .filter((id, i, all) => all.indexOf(id) === i);
    const evidence = [...c.evidence];
    if (substituted.length > 0) evidence.push({ kind: 'rule', ref: SUBSTITUTION_RULE });
    if (eff.used.includes('inventory')) evidence.push({ kind: 'inventory', ref: 'svc://inventory' });
    const confidence = round2(Math.max(0.2, 0.9 - 0.12 * missing.length - 0.05 * substituted.length - 0.02 * minor.length));
    const why = [
      `You have ${have.length} of its ${new Set(needed.map((i) => i.ingredientId ?? i.ref)).size} ingredients`,
      ...(usesFirst.length > 0 ? [`uses ${usesFirst.join(', ')} before it expires`] : []),
      ...(substituted.length > 0 ? [substituted.map((s) => `${s.to} for ${s.from}`).join(', ')] : []),
      ...(missing.length > 0 ? [`missing: ${missing.join(', ')}`] : []),
      ...(minor.length > 0 ? [`seasonings to check: ${minor.join(', ')}`] : []),
      ...(c.automation !== undefined ? [`the kitchen's devices do ${Math.round(c.automation * 100)}% of the steps`] : []),
    ];
    const option: AdviceOption = {
      id: `cook-${c.facts.id}`,
      rank: 0,
      kind: substituted.length > 0 || missing.length > 0 ? 'recipe_with_changes' : 'recipe',
      title: { [lang]: c.title },
      recipeIds: [c.facts.id],
      ...(servings ? { servings } : {}),
      coverage: {
        have,
        missing,
        ...(minor.length > 0 ? { seasoningsMissing: minor } : {}),
        substituted,
        ...(usesFirst.length > 0 ? { usesFirst } : {}),
        ...(c.automation !== undefined ? { automation: c.automation } : {}),
      },
      confidence,
      safety: safetyOf(c.conditions),
      evidence,
      explanation: { en: `${why.join('; ')}.` },
    };
    const score = usesFirst.length * 2 + have.length * 0.2 - missing.length - 0.3 * substituted.length + (c.automation ?? 0);
    scored.push({
      option,
      score,
      ...(c.cost !== undefined ? { cost: c.cost * scale } : {}),
      ...(c.timeS !== undefined ? { timeS: c.timeS } : {}),
    });
  }
  scored.sort(
    (a, b) => (eff.frugal ? saverCompare({ cost: a.cost, timeS: a.timeS }, { cost: b.cost, timeS: b.timeS }) : 0) || b.score - a.score,
  );
  return scored.slice(0, 5).map((s, i) => ({ ...s.option, rank: i + 1 }));
}

/** `feed`: a production plan for `people`, each dish scaled inside its envelope (in batches beyond it). */
export function feed(ctx: PlanningContext, eff: Effective, query: Json, lang: string): AdviceOption[] {
  const people = typeof query.people === 'number' && query.people > 0 ? query.people : undefined;
  if (!people) throw new ProblemError('validation-failed', 'feed needs query.people (how many to feed)');
  const dishCount = typeof query.dishCount === 'number' && query.dishCount > 0 ? Math.min(query.dishCount, 5) : 1;
  const dishes: { c: Candidate; servings: number; scale: number; batches: number; cost?: number; timeS?: number }[] = [];
  for (const c of candidates(ctx, eff, lang)) {
    const base = obj(c.doc.yield).servings;
    if (typeof base !== 'number' || base <= 0) continue;
    const env = scaleEnvelope(c.doc);
    const total = people / base;
    const batches = Math.max(1, Math.ceil(total / env.maxScale - 1e-9));
    const scale = Math.round((total / batches) * 1000) / 1000;
    if (scale < env.minScale) continue;
    const timeS = c.timeS !== undefined ? c.timeS * batches : undefined;
    if (eff.timeAvailableS !== undefined && timeS !== undefined && timeS > eff.timeAvailableS) continue;
    dishes.push({
      c,
      servings: people,
      scale,
      batches,
      ...(c.cost !== undefined ? { cost: round2(c.cost * total) } : {}),
      ...(timeS !== undefined ? { timeS } : {}),
    });
  }
  dishes.sort(
    (a, b) =>
      (eff.frugal ? saverCompare({ cost: a.cost, timeS: a.timeS }, { cost: b.cost, timeS: b.timeS }) : 0) ||
      (b.c.automation ?? 0) - (a.c.automation ?? 0) ||
      (a.c.facts.id < b.c.facts.id ? -1 : 1),
  );
  const plan = (menu: typeof dishes, id: string, rank: number): AdviceOption => {
    const costs = menu.map((d) => d.cost);
    const costTotal = costs.every((x) => x !== undefined) ? round2(costs.reduce<number>((s, x) => s + (x ?? 0), 0)) : undefined;
    const met = [`${people} servings of each dish`];
    const relaxed: string[] = [];
    if (eff.excludeAllergens.length > 0) met.push(`free of ${eff.excludeAllergens.join(', ')}`);
    if (eff.budget !== undefined && costTotal !== undefined)
      (costTotal <= eff.budget ? met : relaxed).push(`budget ≤ ${eff.budget} (plan ${costTotal})`);
    if (menu.length < dishCount) relaxed.push(`${menu.length} of ${dishCount} dishes: no more recipes fit`);
    const conditions = [...new Set(menu.flatMap((d) => d.c.conditions))];
    return {
      id,
      rank,
      kind: 'production_plan',
      title: { [lang]: menu.map((d) => d.c.title).join(' + ') },
      recipeIds: menu.map((d) => d.c.facts.id),
      servings: people,
      productionPlan: {
        menu: menu.map((d) => ({ recipeId: d.c.facts.id, servings: d.servings, scale: d.scale, batches: d.batches })),
        ...(costTotal !== undefined ? { costTotal } : {}),
        constraintsMet: met,
        constraintsRelaxed: relaxed,
      },
      confidence: round2(Math.max(0.3, 0.8 - 0.1 * relaxed.length)),
      safety: safetyOf(['Hot-hold served dishes at ≥ 57 °C', ...conditions]),
      evidence: menu.flatMap((d) => d.c.evidence),
      explanation: {
        en: menu
          .map((d) => `${d.c.title}: ${d.batches} batch(es) at ${d.scale}× (the recipe allows up to ${scaleEnvelope(d.c.doc).maxScale}×)`)
          .join('; '),
      },
    };
  };
  if (dishes.length === 0) return [];
  const options = [plan(dishes.slice(0, dishCount), 'menu-a', 1)];
  if (dishCount > 1 || dishes.length > 1)
    for (const [i, d] of dishes.slice(0, 3).entries()) options.push(plan([d], `single-${d.c.facts.id}`, i + 2));
  return options;
}
