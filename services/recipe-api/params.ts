/**
 * Query parameters of the recipe API, declared once: the route table, the request checks and the generated
 * OpenAPI document all read these declarations.
 */

export type ParamType = 'string' | 'number' | 'integer' | 'boolean';

export interface Param {
  name: string;
  type: ParamType;
  description: string;
  enum?: readonly string[];
  required?: boolean;
  in?: 'query' | 'path';
}

/** An error answered as `{error, detail}` with its HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    detail: string,
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

const p = (name: string, type: ParamType, description: string, extra: Partial<Param> = {}): Param => ({
  name,
  type,
  description,
  ...extra,
});

/** Every list filter (spec §4.5), in the order the OpenAPI document lists them. */
export const FILTERS: readonly Param[] = [
  p('q', 'string', 'Words of the dish name, tags or ingredients; typos and accents are tolerated.'),
  p('cuisine', 'string', 'Comma list of country codes or names (EG, Egyptian, Spain...).'),
  p('course', 'string', 'Comma list of courses (main, dessert, soup, drink...).'),
  p('tag', 'string', 'Comma list of exact tags; all must match.'),
  p('method', 'string', 'Comma list of cooking methods or aliases (bake, fry, boil, simmer, no_cook...); any may match.'),
  p('style', 'string', 'hot, cold, no_cook or mixed.', { enum: ['hot', 'cold', 'no_cook', 'mixed'] }),
  p('operation', 'string', 'Comma list of operations (cut, mix, bake...) that must all appear.'),
  p('equipment', 'string', 'Comma list of equipment words (oven, bowl...); all must appear.'),
  p('basis', 'string', 'published keeps only recipes with a reviewed diet list; any (default) adds the ingredient screen.', {
    enum: ['published', 'any'],
  }),
  p('diet', 'string', 'Comma list of diets that must all hold (vegetarian, vegan, halal, kosher, kosher_pareve, gluten_free...).'),
  p('allergen_free', 'string', 'Comma list of allergens to exclude (milk, eggs, cereals_gluten, nuts, sesame, fish...).'),
  p('ingredient', 'string', 'Comma list of ingredients that must all appear.'),
  p('exclude_ingredient', 'string', 'Comma list of ingredients that must not appear.'),
  p('exclude_text', 'string', 'Comma list of words that must not appear in the title.'),
  p('kcal_min', 'number', 'Minimum kcal per serving.'),
  p('kcal_max', 'number', 'Maximum kcal per serving.'),
  p('protein_min', 'number', 'Minimum protein g per serving.'),
  p('protein_max', 'number', 'Maximum protein g per serving.'),
  p('carbs_max', 'number', 'Maximum carbohydrate g per serving.'),
  p('carbs_min', 'number', 'Minimum carbohydrate g per serving.'),
  p('fat_max', 'number', 'Maximum fat g per serving.'),
  p('fat_min', 'number', 'Minimum fat g per serving.'),
  p('fiber_min', 'number', 'Minimum fibre g per serving.'),
  p('sugar_max', 'number', 'Maximum sugar g per serving.'),
  p('sodium_max', 'number', 'Maximum sodium mg per serving.'),
  p('protein_density_min', 'number', 'Minimum share of energy from protein, 0 to 1.'),
  p('cost_tier', 'string', 'Comma list of budget, mid, premium (thirds of the catalog; no currency).'),
  p('cost_max', 'number', 'Maximum cost per serving in the catalog unit.'),
  p('time_max', 'number', 'Maximum total minutes.'),
  p('time_min', 'number', 'Minimum total minutes.'),
  p('servings_min', 'number', 'Minimum servings.'),
  p('servings_max', 'number', 'Maximum servings.'),
  p('ingredients_max', 'integer', 'Maximum number of ingredients.'),
  p('steps_max', 'integer', 'Maximum number of steps.'),
  p('difficulty', 'string', 'Comma list of easy, medium, hard.'),
  p('level', 'string', 'Verification level: V0 (described only), V1, V2, V3.'),
  p('collection', 'string', 'Source collection id.'),
  p('source', 'string', 'Source name (or part of it), collection id or website.'),
  p('category', 'string', 'Comma list of book categories (tags) or courses; any may match, plural or not.'),
  p('ingredient_any', 'string', 'Comma list of ingredients; at least one must appear.'),
  p('serves', 'number', 'Feeds at least this many (same as servings_min).'),
  p('serves_max', 'number', 'Feeds at most this many.'),
  p('servings_exact', 'number', 'Exactly this many servings.'),
  p('total_kcal_min', 'number', 'Minimum kcal of the whole recipe.'),
  p('total_kcal_max', 'number', 'Maximum kcal of the whole recipe.'),
  p('total_protein_min', 'number', 'Minimum protein g of the whole recipe.'),
  p('total_protein_max', 'number', 'Maximum protein g of the whole recipe.'),
  p('has_protein', 'boolean', 'true: has protein; false: the data says zero protein.'),
  p('has_nutrition', 'boolean', 'Only recipes with (true) or without (false) nutrition data.'),
  p('has_video', 'boolean', "true: only recipes with the creator's video link."),
  p('prep_time_max', 'number', 'Maximum hands-on minutes.'),
  p('prep_time_min', 'number', 'Minimum hands-on minutes.'),
  p('cook_time_max', 'number', 'Maximum unattended minutes (total minus hands-on).'),
  p('cook_time_min', 'number', 'Minimum unattended minutes.'),
  p('country', 'string', 'Country or nationality name or code (same as cuisine).'),
  p('kids', 'boolean', 'true: kid-friendly (Cooking with Kids recipes first, then inferred ones); lists cautions.'),
  p('kids_age', 'string', 'Age band 3-5, 6-8, 9+ or an age in years; implies kids=true.'),
  p('has_notes', 'boolean', 'true: only recipes with published notes, history or tips.'),
  p('no_allergens', 'boolean', 'true: no major allergen declared or in the ingredient names (not a guarantee).'),
  p('diabetic_friendly', 'boolean', 'true: diabetic.status friendly (a reviewed claim or the nutrition rule; an estimate).'),
  p('has_image', 'boolean', 'true: only recipes with a photo.'),
];

export const LANG = p('lang', 'string', 'Language code, tag (ar-EG) or name (Arabic); falls back to English and says so.');
export const PAGING: readonly Param[] = [
  p(
    'sort',
    'string',
    'relevance, name, kcal, protein, total_kcal, total_protein, fat, carbs, fiber, sugar, cost, time, prep_time, cook_time, ingredients, steps, protein_density or random; prefix - for descending.',
  ),
  p('limit', 'integer', 'Results to return, 1 to 25 (default 10).'),
  p('offset', 'integer', 'Skip this many results.'),
  p('detail', 'string', 'brief (default) or full.', { enum: ['brief', 'full'] }),
];

export function filters(...without: string[]): Param[] {
  return FILTERS.filter((f) => !without.includes(f.name));
}

export type Query = Record<string, unknown>;

function raw(q: Query, name: string): string | undefined {
  const v = q[name];
  if (v === undefined) return undefined;
  if (Array.isArray(v)) throw new ApiError(400, 'bad_request', `query parameter ${name} must be given once`);
  if (typeof v !== 'string') return String(v);
  return v;
}

export function str(q: Query, name: string): string | undefined {
  const v = raw(q, name)?.trim();
  if (v === undefined || v === '') return undefined;
  if (v.length > 500) throw new ApiError(400, 'bad_request', `${name} is longer than 500 characters`);
  return v;
}

export function list(q: Query, name: string): string[] | undefined {
  const v = str(q, name);
  if (v === undefined) return undefined;
  const out = v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return out.length ? out : undefined;
}

export function number(q: Query, name: string, min = Number.NEGATIVE_INFINITY, max = Number.POSITIVE_INFINITY): number | undefined {
  const v = str(q, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min || n > max)
    throw new ApiError(
      400,
      'bad_request',
      `${name} must be a number${Number.isFinite(min) ? ` from ${min}` : ''}${Number.isFinite(max) ? ` to ${max}` : ''}`,
    );
  return n;
}

export function integer(q: Query, name: string, min: number, max: number): number | undefined {
  const v = str(q, name);
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v) || Number(v) < min || Number(v) > max)
    throw new ApiError(400, 'bad_request', `${name} must be an integer from ${min} to ${max}`);
  return Number(v);
}

export function bool(q: Query, name: string): boolean | undefined {
  const v = str(q, name)?.toLowerCase();
  if (v === undefined) return undefined;
  if (v === 'true' || v === '1' || v === 'yes') return true;
  if (v === 'false' || v === '0' || v === 'no') return false;
  throw new ApiError(400, 'bad_request', `${name} must be true or false`);
}

export function oneOf<T extends string>(q: Query, name: string, allowed: readonly T[]): T | undefined {
  const v = str(q, name);
  if (v === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(v)) throw new ApiError(400, 'bad_request', `${name} must be one of ${allowed.join(', ')}`);
  return v as T;
}
