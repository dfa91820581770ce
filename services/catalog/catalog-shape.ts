/**
 * Catalog fields for generated recipes (`hearth catalog generate --shape catalog`): the fields of the
 * reference's catalog export, so the recipe API can be measured at scale on the same shape. Nutrition per
 * serving, cost buckets and total, EU/US allergens with a status, reviewed diet claims with basis and notes
 * (from the ingredient screen, kosher type in the note), difficulty, source collection (one in three
 * facts-only, without step wording), licence, images and a few Cooking with Kids recipes. Synthetic values.
 */
import { type ScreenDiet, screenBreakers, wordsOf } from '../recipe-api/select/screens.js';

type Json = Record<string, unknown>;

interface Rand {
  next: () => number;
  int: (min: number, max: number) => number;
  pick: <T>(list: readonly T[]) => T;
}

const US9: Record<string, string> = {
  milk: 'milk',
  eggs: 'eggs',
  fish: 'fish',
  crustaceans: 'shellfish',
  nuts: 'tree_nuts',
  peanuts: 'peanuts',
  cereals_gluten: 'wheat',
  soybeans: 'soy',
  sesame: 'sesame',
};
const COLLECTIONS = [
  { collection: 'archive', name: 'Synthetic family archive', license: 'CC-BY-4.0', facts: false },
  { collection: 'world', name: 'synthetic-recipes.example', license: 'LicenseRef-source-credited', facts: true },
  { collection: 'abuhaty', name: 'Synthetic Abu Haty', license: 'LicenseRef-source-credited', facts: true },
];
const CATEGORIES = ['Soups', 'Quick Meals', 'Baking & Pastries', 'Main Dishes', 'Eastern Desserts', 'Salads', 'Beverages'];
const NOTE_KOSHER = (type: string) =>
  `Kosher-compatible by ingredients (${type}). Not certified: meat must be kosher-slaughtered; processed items, cheese and wine need a hechsher.`;

function claims(doc: Json): Json[] {
  const names = ((doc.ingredients as Json[]) ?? []).map((i) => String(i.ingredientId ?? i.ref).replace(/^cw\.ing\./, ''));
  const titles = (doc.dish as Json).names as Record<string, string>;
  const s = { ingredientWords: wordsOf(names), titleWords: wordsOf([titles.en ?? '']) };
  const ok = (d: ScreenDiet) => screenBreakers(d, s).length === 0;
  const out: Json[] = [];
  const claim = (c: string, note?: string) =>
    out.push({ claim: c, basis: 'ingredients', ruleset: 'synthetic-diet-1', ...(note ? { note } : {}) });
  if (ok('vegetarian')) claim('vegetarian');
  if (ok('vegan')) claim('vegan');
  if (ok('pork_free') && ok('alcohol_free')) claim('halal');
  if (ok('pork_free') && ok('shellfish_free')) {
    const meat = !ok('pescatarian');
    const dairy = !ok('dairy_free');
    if (!(meat && dairy)) claim('kosher', NOTE_KOSHER(meat ? 'meat' : dairy ? 'dairy' : 'pareve'));
  }
  if (ok('gluten_free')) claim('gluten_free');
  if (ok('dairy_free')) claim('dairy_free');
  if (ok('nut_free')) claim('nut_free');
  return out;
}

/** Add the catalog fields to a generated recipe (returned without `hash`; the caller hashes). */
export function withCatalogFields(base: Json, index: number, r: Rand): Json {
  const doc: Json = structuredClone(base);
  delete doc.hash;
  const dish = doc.dish as Json;
  dish.difficulty = r.pick(['easy', 'easy', 'medium', 'medium', 'hard'] as const);
  dish.tags = [...((dish.tags as string[]) ?? []), r.pick(CATEGORIES)];
  dish.images = [{ url: `https://images.example/${doc.id as string}.jpg`, role: 'banner' }];
  const kcal = r.int(60, 900);
  const protein = r.int(0, 45);
  const fat = r.int(0, 50);
  const carbs = r.int(0, 95);
  doc.nutrition = {
    perServing: { kcal, protein, fat, carbs, fiber: r.int(0, 12), sugar: r.int(0, Math.max(1, Math.min(carbs, 40))) },
    basis: 'synthetic estimate per serving (not measured)',
  };
  const buckets = { protein: r.int(0, 80) / 10, produce: r.int(1, 40) / 10, grains: r.int(0, 30) / 10, spices: r.int(1, 10) / 10 };
  doc.cost = { buckets, total: Math.round(Object.values(buckets).reduce((a, b) => a + b, 0) * 100) / 100 };
  const safety = doc.safety as Json;
  const eu14 = ((safety.allergens as Json).eu14 as string[]) ?? [];
  safety.allergens = {
    eu14,
    us9: eu14.map((a) => US9[a]).filter(Boolean),
    mayContain: [],
    'x-status': eu14.length ? 'contains' : 'none_found',
    'x-ruleset': 'synthetic-allergen-1',
  };
  // Nine in ten recipes carry a reviewed diet list; the rest are left to the screen.
  if (r.next() < 0.9) safety.dietary = claims(doc);
  const src = COLLECTIONS[index % COLLECTIONS.length] as (typeof COLLECTIONS)[number];
  doc.source = { name: src.name, url: `https://${src.collection}.example/recipes/${doc.id as string}`, collection: src.collection };
  doc.license = src.license;
  if (src.facts) {
    doc['x-cookwala-text'] = 'facts';
    for (const t of Object.values(doc.text as Record<string, Json>)) delete t.steps;
  }
  if (index % 40 === 7) {
    doc['x-kids'] = { ages: r.pick(['3-5', '6-8', '9+'] as const), group: 'snack', noCook: false, minutes: 20, tools: ['bowl'] };
    dish.tags = [...(dish.tags as string[]), 'Kids', 'Cooking with Kids'];
  }
  return doc;
}
