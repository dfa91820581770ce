/** The listings of spec §4.5: methods, diets (and their review), certifications, countries, ingredients, categories, sources, languages, facets, operations, devices. */
import { allOps } from '../../../schemas/vocab.js';
import { tokens } from '../../index/search/text.js';
import type { Catalog } from '../catalog.js';
import { integer, type Query, str } from '../params.js';
import type { Json, Row } from '../rows.js';
import { DIET_NAMES, DIETS, dietVerdict } from '../select/diets.js';
import { countryName, LANGUAGE_NAMES } from '../select/names.js';
import { EU_ALLERGENS } from '../select/screens.js';
import { DATA_NOTE, opInfo } from './present.js';
import type { Operation } from './route-types.js';

function counts<T extends string>(rows: Row[], keys: (r: Row) => T[]): { name: T; count: number }[] {
  const m = new Map<T, number>();
  for (const r of rows) for (const k of new Set(keys(r))) m.set(k, (m.get(k) ?? 0) + 1);
  return [...m.entries()].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1));
}

const METHOD_OTHER_NAMES: Record<string, string[]> = {
  bake: ['baking', 'oven'],
  fry: ['frying', 'pan-fry', 'saute'],
  deep_fry: ['deep frying'],
  roast: ['roasting'],
  grill: ['grilling', 'bbq'],
  boil: ['boiling', 'poach'],
  simmer: ['stew', 'braise'],
  steam: ['steaming'],
  toast: ['toasting'],
  chill: ['chilled'],
  freeze: ['frozen'],
  marinate: ['marinating'],
  ferment: ['fermenting'],
  no_cook: ['no-cook', 'raw'],
};

const SCHEMES_NOTE =
  'No recipe in this catalog is certified. The only certificate records are examples signed by a fictional authority; they prove nothing about any real food.';

function certifications(cat: Catalog, q: Query): Json {
  const scheme = str(q, 'scheme')?.toLowerCase();
  const ref = str(q, 'ref')?.toLowerCase();
  const records = cat.certifications.filter((c) => {
    if (scheme && String(c.scheme).toLowerCase() !== scheme) return false;
    if (
      ref &&
      !JSON.stringify(c.subject ?? {})
        .toLowerCase()
        .includes(ref) &&
      !String(c.id).toLowerCase().includes(ref)
    )
      return false;
    return true;
  });
  const certifiedClaims = cat.rows.flatMap((r) =>
    [...r.claims.values()]
      .filter((c) => c.basis === 'certified' && (!scheme || c.claim === scheme))
      .map((c) => ({ id: r.id, claim: c.claim })),
  );
  return {
    note: SCHEMES_NOTE,
    example_records_only: true,
    records: records.map((c) => ({
      id: c.id,
      scheme: c.scheme,
      subject: c.subject,
      authority: c.authority,
      status: c.status,
      validFrom: c.validFrom ?? null,
      validUntil: c.validUntil ?? null,
      example: true,
    })),
    certified_recipe_claims: certifiedClaims,
  };
}

export const LIST_OPERATIONS: Operation[] = [
  {
    operationId: 'listMethods',
    method: 'GET',
    path: '/api/methods',
    summary: 'Cooking methods with recipe counts',
    description: 'Each method, how many recipes use it and its other names.',
    params: [],
    run: (cat) => ({
      items: counts(cat.rows, (r) => r.methods).map((m) => ({
        method: m.name,
        count: m.count,
        other_names: METHOD_OTHER_NAMES[m.name] ?? [],
      })),
    }),
  },
  {
    operationId: 'listDiets',
    method: 'GET',
    path: '/api/diets',
    summary: 'Diet categories with counts',
    description: 'What each diet means, how many recipes pass and how many carry a published (reviewed) claim. Nothing is a certification.',
    params: [],
    run: (cat) => ({
      note: 'Reviewed claims where a recipe has them, else an ingredient screen; halal and kosher only from reviewed claims. Not certifications.',
      items: DIETS.map((d) => {
        const passing = cat.rows.filter((r) => dietVerdict(r, d).ok);
        return {
          diet: d,
          meaning: DIET_NAMES[d],
          count: passing.length,
          published: passing.filter((r) => dietVerdict(r, d).basis === 'published').length,
          certified: 0,
        };
      }),
    }),
  },
  {
    operationId: 'reviewDietClaims',
    method: 'GET',
    path: '/api/diets/review',
    summary: 'Diet claims held back for review',
    description: 'Published claims that the title or ingredient names contradict; they are left out of diet results.',
    params: [],
    run: (cat) => {
      const items = cat.rows.filter((r) => r.heldBack.length).map((r) => ({ id: r.id, title: r.titles.en ?? r.id, held_back: r.heldBack }));
      return { total: items.length, items };
    },
  },
  {
    operationId: 'listCertifications',
    method: 'GET',
    path: '/api/certifications',
    summary: 'Published certifications',
    description:
      'Certificate records and recipes whose claim has basis certified. Only example records signed by a fictional authority exist; the answer says so.',
    params: [
      { name: 'scheme', type: 'string', description: 'halal, kosher, vegetarian...' },
      { name: 'ref', type: 'string', description: 'Part of a subject reference or record id.' },
    ],
    run: (cat, q) => certifications(cat, q),
  },
  {
    operationId: 'listCountries',
    method: 'GET',
    path: '/api/countries',
    summary: 'Countries with recipe counts',
    description: 'Every country with recipes; then search with country=.',
    params: [],
    run: (cat) => ({ items: counts(cat.rows, (r) => r.cuisine).map((c) => ({ code: c.name, name: countryName(c.name), count: c.count })) }),
  },
  {
    operationId: 'listIngredients',
    method: 'GET',
    path: '/api/ingredients',
    summary: 'Find ingredient names',
    description: 'How ingredients are recorded, with recipe counts; use the names with ingredient= or have=.',
    params: [
      { name: 'q', type: 'string', description: 'Part of an ingredient name.' },
      { name: 'limit', type: 'integer', description: '1 to 100 (default 25).' },
    ],
    run: (cat, q) => {
      const words = tokens(str(q, 'q') ?? '');
      const limit = integer(q, 'limit', 1, 100) ?? 25;
      const all = [...cat.ingredients.entries()]
        .filter(([name]) => words.every((w) => tokens(name).some((t) => t.startsWith(w))))
        .map(([name, rows]) => ({ name, count: rows.length }))
        .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1));
      return { total: all.length, items: all.slice(0, limit) };
    },
  },
  {
    operationId: 'listCategories',
    method: 'GET',
    path: '/api/categories',
    summary: 'Categories and courses with counts',
    description: 'Book categories (tags) and courses.',
    params: [],
    run: (cat) => ({ categories: counts(cat.rows, (r) => r.tags), courses: counts(cat.rows, (r) => (r.course ? [r.course] : [])) }),
  },
  {
    operationId: 'listSources',
    method: 'GET',
    path: '/api/sources',
    summary: 'Recipe sources',
    description: 'Every source with recipe counts, collection, licence and whether step wording is published.',
    params: [],
    run: (cat) => {
      const m = new Map<string, Json>();
      for (const r of cat.rows) {
        const key = r.sourceName ?? r.collection ?? 'unknown';
        const e = m.get(key) ?? {
          name: key,
          collection: r.collection ?? null,
          license: r.license ?? null,
          step_text_published: !r.factsOnly,
          count: 0,
        };
        e.count = (e.count as number) + 1;
        m.set(key, e);
      }
      return { items: [...m.values()].sort((a, b) => (b.count as number) - (a.count as number)) };
    },
  },
  {
    operationId: 'listLanguages',
    method: 'GET',
    path: '/api/languages',
    summary: 'Languages of recipe titles',
    description: 'Every language recipe titles are available in, with how many recipes have it.',
    params: [],
    run: (cat) => ({
      items: counts(cat.rows, (r) => Object.keys(r.titles)).map((l) => ({
        code: l.name,
        name: LANGUAGE_NAMES[l.name] ?? l.name,
        count: l.count,
      })),
    }),
  },
  {
    operationId: 'getFacets',
    method: 'GET',
    path: '/api/facets',
    summary: 'Every filter value',
    description: 'Cuisines, courses, tags, methods, diets, allergens, collections, common ingredients and numeric ranges, with counts.',
    params: [],
    run: (cat) => {
      const rangeOf = (get: (r: Row) => number | undefined) => {
        const v = cat.rows.map(get).filter((x): x is number => x !== undefined);
        return v.length ? { min: Math.min(...v), max: Math.max(...v), count: v.length } : null;
      };
      return {
        recipes: cat.rows.length,
        cuisines: counts(cat.rows, (r) => r.cuisine),
        courses: counts(cat.rows, (r) => (r.course ? [r.course] : [])),
        tags: counts(cat.rows, (r) => r.tags),
        methods: counts(cat.rows, (r) => r.methods),
        styles: counts(cat.rows, (r) => [r.style]),
        difficulty: counts(cat.rows, (r) => (r.difficulty ? [r.difficulty] : [])),
        levels: counts(cat.rows, (r) => [r.level]),
        collections: counts(cat.rows, (r) => (r.collection ? [r.collection] : [])),
        allergens: counts(cat.rows, (r) => r.allergenInfo.contains.filter((a) => EU_ALLERGENS.includes(a))),
        diets: DIETS.map((d) => ({ name: d, count: cat.rows.filter((r) => dietVerdict(r, d).ok).length })),
        ingredients: [...cat.ingredients.entries()]
          .map(([name, rows]) => ({ name, count: rows.length }))
          .sort((a, b) => b.count - a.count)
          .slice(0, 50),
        ranges: {
          kcal: rangeOf((r) => r.nutrition?.kcal),
          protein: rangeOf((r) => r.nutrition?.protein),
          time: rangeOf((r) => r.totalMin),
          cost_per_serving: rangeOf((r) => r.costPerServing),
          servings: rangeOf((r) => r.servings),
        },
        cost_tiers: cat.costTiers ?? null,
        note: DATA_NOTE,
      };
    },
  },
  {
    operationId: 'listOperations',
    method: 'GET',
    path: '/api/operations',
    summary: 'Cooking operations and safe temperature bands',
    description: 'Each operation with its medium, temperature band and whether it may run unattended.',
    params: [{ name: 'family', type: 'string', description: 'For example heat, cut, cool.' }],
    run: (_cat, q) => {
      const family = str(q, 'family');
      return {
        items: allOps()
          .filter((o) => !family || o.family === family)
          .map((o) => opInfo(o.id)),
      };
    },
  },
  {
    operationId: 'listDevices',
    method: 'GET',
    path: '/api/devices',
    summary: 'Kitchen device presets',
    description: 'Preset ids to pass to the dry run.',
    params: [],
    run: (cat) => ({
      items: [...cat.devices.entries()].map(([id, d]) => ({
        id,
        model: ((d.actor as Json | undefined)?.model as string | undefined) ?? id,
        ops: (((d.capabilities as Json | undefined)?.ops as Json[] | undefined) ?? []).map((o) => o.op),
      })),
    }),
  },
];
