/**
 * One catalog recipe as the recipe API sees it: the facts every filter, sort and answer reads, derived once at
 * start from the document (spec §2.6 and §4.5 meaning rules). The document itself stays untouched.
 */
import { durationSeconds } from '../../safety/duration.js';
import {
  allergensInNames,
  allWords,
  claimConflicts,
  compoundItems,
  type KidsVerdict,
  kidsVerdict,
  type Screened,
  wordsOf,
} from './select/screens.js';
import { Strings } from './strings.js';

export { Strings };

export type Json = Record<string, unknown>;

export interface Ingredient {
  ref: string;
  /** Readable name: the English display without its quantity, else the ref with spaces. */
  name: string;
  words: string[];
  qty?: number;
  unit?: string;
  display?: string;
}

export interface Claim {
  claim: string;
  basis: string;
  note?: string;
  ruleset?: string;
}

export interface Nutrition {
  kcal?: number;
  protein?: number;
  fat?: number;
  carbs?: number;
  fiber?: number;
  sugar?: number;
  sodium?: number;
}

export interface AllergenInfo {
  status: 'contains' | 'none_found' | 'check_labels' | 'not_assessed';
  contains: string[];
  declared: string[];
  also_found_in_ingredient_names: string[];
  check_labels_for: string[];
  note: string;
}

export interface Diabetic {
  status: 'friendly' | 'borderline' | 'not_friendly' | 'unknown';
  basis: 'published' | 'estimate' | 'none';
  reasons: string[];
  rule: string;
}

export interface Row {
  idx: number;
  id: string;
  hash: string;
  level: string;
  /** The recipe document (read back from its file when the catalog did not keep it: see catalog.ts). */
  doc: () => Json;
  titles: Record<string, string>;
  cuisine: string[];
  course?: string;
  tags: string[];
  difficulty?: string;
  servings?: number;
  totalMin?: number;
  prepMin?: number;
  cookMin?: number;
  ingredients: Ingredient[];
  screened: Screened;
  /** Effective operation of each process node (the op hint of a legacy step). */
  nodeOps: { id: string; op: string }[];
  ops: string[];
  methods: string[];
  style: 'hot' | 'cold' | 'no_cook' | 'mixed';
  equipment: string[];
  nutrition?: Nutrition;
  costTotal?: number;
  costPerServing?: number;
  costTier?: 'budget' | 'mid' | 'premium';
  collection?: string;
  sourceName?: string;
  sourceUrl?: string;
  license?: string;
  factsOnly: boolean;
  /** The recipe carries a reviewed diet list (`safety.dietary`). */
  reviewed: boolean;
  claims: Map<string, Claim>;
  heldBack: { claim: string; conflicts: string[] }[];
  allergenInfo: AllergenInfo;
  diabetic: Diabetic;
  kids: KidsVerdict;
  kidsRecipe?: Json;
  hasNotes: boolean;
  videoUrl?: string;
  hasImage: boolean;
}

const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** Operation → cooking method. */
const METHOD_OF: Record<string, string> = {
  'cw.op.bake': 'bake',
  'cw.op.fry': 'fry',
  'cw.op.saute': 'fry',
  'cw.op.pan_fry': 'fry',
  'cw.op.shallow_fry': 'fry',
  'cw.op.deep_fry': 'deep_fry',
  'cw.op.roast': 'roast',
  'cw.op.grill': 'grill',
  'cw.op.broil': 'grill',
  'cw.op.boil': 'boil',
  'cw.op.poach': 'boil',
  'cw.op.blanch': 'boil',
  'cw.op.simmer': 'simmer',
  'cw.op.stew': 'simmer',
  'cw.op.braise': 'simmer',
  'cw.op.steam': 'steam',
  'cw.op.toast': 'toast',
  'cw.op.chill': 'chill',
  'cw.op.freeze': 'freeze',
  'cw.op.marinate': 'marinate',
  'cw.op.ferment': 'ferment',
  'cw.op.pressure_cook': 'pressure_cook',
  'cw.op.caramelize': 'fry',
  'cw.op.reduce': 'simmer',
  'cw.op.melt': 'melt',
  'cw.op.sear': 'fry',
};
const COLD_METHODS = new Set(['chill', 'freeze']);
const NOT_HEAT = new Set(['chill', 'freeze', 'marinate', 'ferment']);

function minutes(d: unknown): number | undefined {
  if (typeof d !== 'string') return undefined;
  const s = durationSeconds(d);
  return s === undefined ? undefined : Math.round(s / 60);
}

function ingredientOf(v: unknown, t: Strings): Ingredient | undefined {
  const i = obj(v);
  const ref = str(i?.ref) ?? str(i?.ingredientId)?.replace(/^cw\.ing\./, '');
  if (!i || !ref) return undefined;
  const id = str(i.ingredientId)?.replace(/^cw\.ing\./, '');
  const base = t.of((id ?? ref).replace(/_\d+$/, '').replace(/_/g, ' '));
  const qty = obj(i.qty);
  const display = obj(i.display);
  const out: Ingredient = { ref: t.of(ref), name: base, words: t.wordsOf(base) };
  const value = num(qty?.value);
  if (value !== undefined) out.qty = value;
  const unit = str(qty?.unit);
  if (unit !== undefined) out.unit = t.of(unit);
  const en = str(display?.en);
  if (en !== undefined) out.display = t.of(en);
  return out;
}

function claimsOf(safety: Json | undefined, t: Strings): { reviewed: boolean; claims: Map<string, Claim> } {
  const list = safety?.dietary;
  const claims = new Map<string, Claim>();
  if (!Array.isArray(list)) return { reviewed: false, claims };
  for (const c of list) {
    const o = obj(c);
    const claim = str(o?.claim);
    if (!o || !claim) continue;
    const out: Claim = { claim: t.of(claim), basis: t.of(str(o.basis) ?? 'unstated') };
    if (str(o.note) !== undefined) out.note = t.of(o.note as string);
    if (str(o.ruleset) !== undefined) out.ruleset = t.of(o.ruleset as string);
    claims.set(out.claim, out);
  }
  return { reviewed: true, claims };
}

function allergenInfo(safety: Json | undefined, s: Screened, reviewed: boolean, t: Strings): AllergenInfo {
  const a = obj(safety?.allergens);
  const declared = t.list(strs(a?.eu14));
  const named = t.list(allergensInNames(s.ingredientWords).filter((x) => !declared.includes(x)));
  const compounds = t.list(compoundItems(s.ingredientWords));
  const contains = t.list([...declared, ...named]);
  const info = (status: AllergenInfo['status'], note: string): AllergenInfo => ({
    status,
    contains,
    declared,
    also_found_in_ingredient_names: named,
    check_labels_for: compounds,
    note,
  });
  if (contains.length > 0) return info('contains', 'Declared allergens plus those the ingredient names reveal. Not a guarantee.');
  if (!a || !reviewed) return info('not_assessed', 'Allergens of this recipe were not reviewed; this is not an allergen-free statement.');
  if (compounds.length > 0)
    return info('check_labels', 'Nothing found, but bought or compound items may hide an allergen: check their labels.');
  return info('none_found', 'No major allergen found in the reviewed recipe. Not a guarantee: check labels and cross-contact.');
}

const DIABETIC_RULE =
  'friendly: per serving sugar <= 5 g, carbohydrate <= 30 g and <= 40% of energy, at most 12 servings; not_friendly: sugar > 15 g or carbohydrate > 60 g; otherwise borderline. A reviewed claim wins. An estimate, not medical advice.';

function diabetic(claims: Map<string, Claim>, n: Nutrition | undefined, servings: number | undefined): Diabetic {
  if (claims.has('diabetic_friendly'))
    return { status: 'friendly', basis: 'published', reasons: ['reviewed claim diabetic_friendly'], rule: DIABETIC_RULE };
  if (!n || n.carbs === undefined || n.sugar === undefined)
    return { status: 'unknown', basis: 'none', reasons: ['no nutrition data'], rule: DIABETIC_RULE };
  const reasons = [`sugar ${n.sugar} g`, `carbohydrate ${n.carbs} g`];
  if (n.sugar > 15 || n.carbs > 60) return { status: 'not_friendly', basis: 'estimate', reasons, rule: DIABETIC_RULE };
  const share = n.kcal ? (n.carbs * 4) / n.kcal : undefined;
  if (share !== undefined) reasons.push(`carbohydrate ${Math.round(share * 100)}% of energy`);
  const ok = n.sugar <= 5 && n.carbs <= 30 && (share === undefined || share <= 0.4) && (servings === undefined || servings <= 12);
  return { status: ok ? 'friendly' : 'borderline', basis: 'estimate', reasons, rule: DIABETIC_RULE };
}

function nutritionOf(doc: Json): Nutrition | undefined {
  const per = obj(obj(doc.nutrition)?.perServing);
  if (!per) return undefined;
  const out: Nutrition = {};
  for (const k of ['kcal', 'protein', 'fat', 'carbs', 'fiber', 'sugar', 'sodium'] as const) {
    const v = num(per[k]);
    if (v !== undefined) out[k] = v;
  }
  return Object.keys(out).length ? out : undefined;
}

function equipmentOf(v: unknown): string[] {
  const out: string[] = [];
  if (Array.isArray(v))
    for (const e of v) {
      const ref = str(obj(e)?.ref);
      if (ref) out.push(ref);
    }
  return out;
}

/** Derive the row of one validated recipe document (`t`: the catalog's shared texts). */
export function rowOf(doc: Json, idx: number, t: Strings = new Strings()): Row {
  const dish = obj(doc.dish) ?? {};
  const safety = obj(doc.safety);
  const process = obj(doc.process) ?? {};
  const titles: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj(dish.names) ?? obj(doc.title) ?? {})) if (typeof v === 'string') titles[t.of(k)] = v;
  // Plain loops here, not map/filter/flatMap chains: this runs once per document at start, and the chains made
  // V8's optimizing compile of rowOf large and, over arrays of changing element kinds, thrown away and redone.
  const ingredients: Ingredient[] = [];
  // The words of every ingredient name, from the catalog's words of each name (`t.wordsOf`, folded once per
  // distinct name): the same words in the same order as folding the names again for every row.
  const ingredientWords = new Set<string>();
  if (Array.isArray(doc.ingredients))
    for (const i of doc.ingredients) {
      const ing = ingredientOf(i, t);
      if (ing === undefined) continue;
      ingredients.push(ing);
      for (const w of ing.words) ingredientWords.add(w);
    }
  const screened: Screened = {
    ingredientWords,
    titleWords: wordsOf([titles.en ?? Object.values(titles)[0] ?? '']),
  };
  // Ingredient and title words together, made once for this row's screens (each screen used to make its own).
  const words = allWords(screened);
  const nodeOps: Row['nodeOps'] = [];
  if (Array.isArray(process.nodes))
    for (const n of process.nodes) {
      const o = obj(n);
      const id = str(o?.id);
      const op = str(o?.op);
      if (!o || !id || !op) continue;
      const hint = str(obj(o.params)?.opHint);
      nodeOps.push({ id: t.of(id), op: t.of(op === 'cw.op.legacy_step' && hint ? hint : op) });
    }
  const opSet = new Set<string>();
  for (const n of nodeOps) opSet.add(n.op);
  const ops = t.list([...opSet]);
  const methodSet = new Set<string>();
  for (const o of ops) {
    const m = METHOD_OF[o];
    if (m) methodSet.add(m);
  }
  const methods = [...methodSet];
  const heat = methods.some((m) => !NOT_HEAT.has(m));
  const cold = methods.some((m) => COLD_METHODS.has(m));
  const style = heat && cold ? 'mixed' : heat ? 'hot' : cold ? 'cold' : 'no_cook';
  if (style === 'no_cook') methods.push('no_cook');
  const servings = num(obj(doc.yield)?.servings);
  const totalMin = minutes(process.totalTime ?? doc.totalTime);
  const prepMin = minutes(process.activeTime);
  const { reviewed, claims } = claimsOf(safety, t);
  const nutrition = nutritionOf(doc);
  const costTotal = num(obj(doc.cost)?.total);
  const source = obj(doc.source);
  const text = obj(doc.text) ?? {};
  const en = obj(text.en) ?? {};
  const links = [...strs(obj(doc.links)?.video), str(obj(doc.media)?.video), str(source?.video)].filter((u): u is string => !!u);
  const videoUrl = [str(source?.url), ...links].find((u) => !!u && /^https:\/\/(www\.)?(youtube\.com|youtu\.be|vimeo\.com)\//.test(u));
  const heldBack: Row['heldBack'] = [];
  for (const c of claims.values()) {
    const conflicts = claimConflicts(c.claim, screened, words);
    if (conflicts.length) heldBack.push({ claim: c.claim, conflicts });
  }
  const info = allergenInfo(safety, screened, reviewed, t);
  const kidsRecipe = obj(doc['x-kids']);
  const row: Row = {
    idx,
    id: doc.id as string,
    hash: str(doc.hash) ?? '',
    level: t.of(str(obj(doc.verification)?.level) ?? str(doc.level) ?? 'V0'),
    doc: () => doc,
    titles,
    cuisine: t.list(strs(dish.cuisine)),
    tags: t.list(strs(dish.tags)),
    ingredients,
    screened,
    nodeOps,
    ops,
    methods: t.list(methods),
    style,
    equipment: t.list(equipmentOf(doc.equipment)),
    factsOnly: doc['x-cookwala-text'] === 'facts',
    reviewed,
    claims,
    heldBack,
    allergenInfo: info,
    diabetic: diabetic(claims, nutrition, servings),
    kids: kidsVerdict(
      screened,
      {
        ...(str(dish.difficulty) ? { difficulty: dish.difficulty as string } : {}),
        ingredientCount: ingredients.length,
        ...(str(dish.course) ? { course: dish.course as string } : {}),
        kidsRecipe: kidsRecipe !== undefined,
        allergens: info.contains,
      },
      words,
    ),
    hasNotes: ['notes', 'history', 'tips', 'background'].some((k) => en[k] !== undefined),
    hasImage: Array.isArray(dish.images) && dish.images.length > 0,
  };
  if (str(dish.course)) row.course = t.of(dish.course as string);
  if (str(dish.difficulty)) row.difficulty = t.of(dish.difficulty as string);
  if (servings !== undefined) row.servings = servings;
  if (totalMin !== undefined) row.totalMin = totalMin;
  if (prepMin !== undefined) row.prepMin = prepMin;
  if (totalMin !== undefined && prepMin !== undefined) row.cookMin = Math.max(0, totalMin - prepMin);
  if (nutrition) row.nutrition = nutrition;
  if (costTotal !== undefined) {
    row.costTotal = costTotal;
    row.costPerServing = Math.round((costTotal / (servings && servings > 0 ? servings : 1)) * 100) / 100;
  }
  if (str(source?.collection)) row.collection = t.of(source?.collection as string);
  if (str(source?.name)) row.sourceName = t.of(source?.name as string);
  if (str(source?.url)) row.sourceUrl = source?.url as string;
  if (str(doc.license)) row.license = t.of(doc.license as string);
  if (kidsRecipe) row.kidsRecipe = kidsRecipe;
  if (videoUrl) row.videoUrl = videoUrl;
  return row;
}

/** Cost tiers are relative within the catalog: thirds of the cost per serving. */
export function assignCostTiers(rows: Row[]): { budgetMax: number; midMax: number } | undefined {
  const costs = rows
    .map((r) => r.costPerServing)
    .filter((c): c is number => c !== undefined)
    .sort((a, b) => a - b);
  if (costs.length === 0) return undefined;
  const budgetMax = costs[Math.floor((costs.length - 1) / 3)] as number;
  const midMax = costs[Math.floor(((costs.length - 1) * 2) / 3)] as number;
  for (const r of rows) {
    if (r.costPerServing === undefined) continue;
    r.costTier = r.costPerServing <= budgetMax ? 'budget' : r.costPerServing <= midMax ? 'mid' : 'premium';
  }
  return { budgetMax, midMax };
}

/** Kosher type from the claim note ("... (pareve)"): meat, dairy or pareve; undefined when the note does not say. */
export function kosherType(c: Claim | undefined): 'meat' | 'dairy' | 'pareve' | undefined {
  const m = /\((meat|dairy|pareve|parve)\)/i.exec(c?.note ?? '');
  if (!m) return undefined;
  const t = (m[1] as string).toLowerCase();
  return t === 'parve' ? 'pareve' : (t as 'meat' | 'dairy' | 'pareve');
}
