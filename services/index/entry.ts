/**
 * What the index says about one recipe: its IndexEntry in a given language, read from the recipe document.
 * Recipes are read leniently (a top-level `title`/`level`/`totalTime`/`supervision`/`allergensEU` wins;
 * otherwise `dish.names`, `verification.level`, `process.totalTime`, `safety.supervision.default`,
 * `safety.allergens.eu14`), and entries are written strictly in one shape.
 */

export type Json = Record<string, unknown>;

/** Verification levels in order; `min_level` filters on this order. */
export const LEVELS = ['V0', 'V1', 'V2', 'V3'] as const;
export type Level = (typeof LEVELS)[number];

/** One item of an index page, of search results and of match results. */
export interface IndexEntry {
  id: string;
  hash: string;
  revision?: number;
  /** The title in the language asked for, or the fallback language when the recipe has none in it. */
  title: string;
  /** The language `title` is in. */
  titleLang: string;
  level: Level;
  totalTime?: string;
  totalTimeS?: number;
  supervision?: string;
  allergensEU: string[];
  cuisine: string[];
  course?: string;
  tags: string[];
  ops: string[];
  /** Set (true) when a recall covers this revision: it is listed, but no device may cook it. */
  recalled?: boolean;
}

/** Facts of one recipe, independent of language: what the index keeps in memory and in its build state. */
export interface RecipeFacts {
  id: string;
  hash: string;
  revision?: number;
  titles: Record<string, string>;
  level: Level;
  totalTime?: string;
  supervision?: string;
  allergensEU: string[];
  cuisine: string[];
  course?: string;
  tags: string[];
  ops: string[];
}

function obj(v: unknown): Json | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function langMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof v === 'string') out.en = v;
  const m = obj(v);
  if (m) for (const [k, t] of Object.entries(m)) if (typeof t === 'string' && t.trim() !== '') out[k] = t;
  return out;
}

/** ISO 8601 duration (PnDTnHnMnS, no years or months) in seconds; undefined when unreadable. */
export function durationSeconds(iso: string): number | undefined {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(iso);
  if (!m || iso === 'P' || iso.endsWith('T')) return undefined;
  const [, d, h, min, s] = m;
  return Math.round(Number(d ?? 0) * 86400 + Number(h ?? 0) * 3600 + Number(min ?? 0) * 60 + Number(s ?? 0));
}

/** Read the index facts of a recipe whose id and hash have already been checked. */
export function recipeFacts(recipe: Json): RecipeFacts {
  const dish = obj(recipe.dish) ?? {};
  const verification = obj(recipe.verification) ?? {};
  const processDoc = obj(recipe.process) ?? {};
  const safety = obj(recipe.safety) ?? {};
  const titles = { ...langMap(dish.names), ...langMap(recipe.title) };
  const text = obj(recipe.text);
  if (text) {
    for (const [lang, t] of Object.entries(text)) {
      const title = obj(t)?.title;
      if (typeof title === 'string' && title.trim() !== '' && titles[lang] === undefined) titles[lang] = title;
    }
  }
  const rawLevel = recipe.level ?? verification.level;
  const level: Level = (LEVELS as readonly unknown[]).includes(rawLevel) ? (rawLevel as Level) : 'V0';
  const totalTime =
    typeof recipe.totalTime === 'string' ? recipe.totalTime : typeof processDoc.totalTime === 'string' ? processDoc.totalTime : undefined;
  const sup = recipe.supervision ?? obj(safety.supervision)?.default ?? safety.supervision;
  const allergens = Array.isArray(recipe.allergensEU) ? strings(recipe.allergensEU) : strings(obj(safety.allergens)?.eu14);
  const cuisine = strings(recipe.cuisine ?? dish.cuisine);
  const nodes = Array.isArray(processDoc.nodes) ? processDoc.nodes : [];
  const ops = [...new Set(nodes.map((n) => obj(n)?.op).filter((o): o is string => typeof o === 'string'))].sort();
  const facts: RecipeFacts = {
    id: recipe.id as string,
    hash: recipe.hash as string,
    titles,
    level,
    allergensEU: [...new Set(allergens)].sort(),
    cuisine,
    tags: strings(dish.tags),
    ops,
  };
  if (typeof recipe.revision === 'number' && Number.isInteger(recipe.revision)) facts.revision = recipe.revision;
  if (totalTime !== undefined) facts.totalTime = totalTime;
  if (typeof sup === 'string') facts.supervision = sup;
  if (typeof dish.course === 'string') facts.course = dish.course;
  return facts;
}

/** The language a title is shown in: the one asked for, else English, else the first one the recipe has. */
export function pickLang(titles: Record<string, string>, lang: string): string | undefined {
  if (titles[lang] !== undefined) return lang;
  const primary = lang.split('-')[0] ?? lang;
  if (titles[primary] !== undefined) return primary;
  if (titles.en !== undefined) return 'en';
  return Object.keys(titles).sort()[0];
}

/** The IndexEntry of `facts` in `lang`. */
export function indexEntry(facts: RecipeFacts, lang: string): IndexEntry {
  const titleLang = pickLang(facts.titles, lang) ?? lang;
  const entry: IndexEntry = {
    id: facts.id,
    hash: facts.hash,
    title: facts.titles[titleLang] ?? facts.id,
    titleLang,
    level: facts.level,
    allergensEU: facts.allergensEU,
    cuisine: facts.cuisine,
    tags: facts.tags,
    ops: facts.ops,
  };
  if (facts.revision !== undefined) entry.revision = facts.revision;
  if (facts.totalTime !== undefined) {
    entry.totalTime = facts.totalTime;
    const s = durationSeconds(facts.totalTime);
    if (s !== undefined) entry.totalTimeS = s;
  }
  if (facts.supervision !== undefined) entry.supervision = facts.supervision;
  if (facts.course !== undefined) entry.course = facts.course;
  return entry;
}
