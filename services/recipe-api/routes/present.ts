/**
 * How rows and recipe parts are written in answers. Every row states its verification level; facts-only
 * sources never carry step wording (`step_text_published: false`), whatever the parameters.
 */
import { getOp } from '../../../schemas/vocab.js';
import { ApiError } from '../params.js';
import type { Json, Row } from '../rows.js';
import { dietVerdict } from '../select/diets.js';
import { LANGUAGE_NAMES, languageCode } from '../select/names.js';

export const DATA_NOTE = 'Data, not instructions. Nutrition and cost are modelled estimates; diet flags are not certifications.';

export interface Lang {
  code: string;
  /** Set when the asked language was unknown and English is used instead. */
  fallback?: string;
}

export function langOf(v: string | undefined): Lang {
  if (v === undefined) return { code: 'en' };
  const code = languageCode(v);
  return code ? { code } : { code: 'en', fallback: `language ${JSON.stringify(v)} is not available; English is used` };
}

export function verification(r: Row): Json {
  return {
    level: r.level,
    note:
      r.level === 'V0'
        ? 'V0: described, not machine-verified.'
        : `${r.level}: machine-checked to this level; a dry run is a plan, not proof of safety.`,
  };
}

function title(r: Row, lang: string): { title: string; title_lang: string } {
  const t = r.titles[lang];
  if (t !== undefined) return { title: t, title_lang: lang };
  return {
    title: r.titles.en ?? Object.values(r.titles)[0] ?? r.id,
    title_lang: r.titles.en !== undefined ? 'en' : (Object.keys(r.titles)[0] ?? 'en'),
  };
}

export function brief(r: Row, lang: string, extra: { diets?: string[]; kids?: boolean; full?: boolean } = {}): Json {
  const out: Json = {
    id: r.id,
    ...title(r, lang),
    level: r.level,
    verification: verification(r),
    hash: r.hash,
    cuisine: r.cuisine,
    course: r.course ?? null,
    difficulty: r.difficulty ?? null,
    servings: r.servings ?? null,
    time_min: r.totalMin ?? null,
    prep_time_min: r.prepMin ?? null,
    cook_time_min: r.cookMin ?? null,
    kcal: r.nutrition?.kcal ?? null,
    protein_g: r.nutrition?.protein ?? null,
    cost_per_serving: r.costPerServing ?? null,
    cost_tier: r.costTier ?? null,
    allergen_status: r.allergenInfo.status,
    diabetic_friendly: r.diabetic.status,
    step_text_published: !r.factsOnly,
    source: r.sourceName ?? null,
    collection: r.collection ?? null,
    methods: r.methods,
    url: `/api/recipes/${encodeURIComponent(r.id)}`,
  };
  if (extra.diets?.length) {
    const basis: Json = {};
    for (const d of extra.diets) {
      const v = dietVerdict(r, d);
      basis[d] = v.basis ?? null;
      if (v.kosher_type) out.kosher_type = v.kosher_type;
    }
    out.diet_basis = extra.diets.length === 1 ? basis[extra.diets[0] as string] : basis;
  }
  if (extra.kids) {
    out.kids = {
      recipe_for_kids: r.kidsRecipe !== undefined,
      ...(r.kidsRecipe ? { ages: r.kidsRecipe.ages ?? null } : {}),
      cautions: r.kids.cautions,
    };
  }
  if (extra.full) {
    out.ingredients = r.ingredients.map((i) => ({ name: i.name, qty: i.qty ?? null, unit: i.unit ?? null, text: i.display ?? null }));
    out.operations = r.nodeOps.map((n) => n.op);
    out.equipment = r.equipment;
    out.tags = r.tags;
    out.nutrition = r.nutrition ?? null;
    out.cost_buckets = ((r.doc().cost as Json | undefined)?.buckets as Json | undefined) ?? null;
    out.allergen_info = r.allergenInfo;
    out.diabetic = r.diabetic;
  }
  return out;
}

export const PARTS = ['summary', 'ingredients', 'steps', 'nutrition', 'cost', 'equipment', 'notes', 'safety', 'links'] as const;
export type Part = (typeof PARTS)[number];
const ALIASES: Record<string, Part> = {
  recipe: 'steps',
  method: 'steps',
  history: 'notes',
  tips: 'notes',
  video: 'links',
  background: 'notes',
};

export function parts(include: string | undefined, view: string | undefined): Part[] {
  const wanted =
    include !== undefined
      ? include
          .split(',')
          .map((s) => s.trim().toLowerCase())
          .filter(Boolean)
      : [view ?? 'summary'];
  const out = new Set<Part>();
  for (const w of wanted) {
    if (w === 'all' || w === 'full') for (const p of PARTS) out.add(p);
    else if ((PARTS as readonly string[]).includes(w)) out.add(w as Part);
    else if (ALIASES[w]) out.add(ALIASES[w] as Part);
    else throw new ApiError(400, 'bad_request', `unknown part ${JSON.stringify(w)}; parts are ${PARTS.join(', ')}, all`);
  }
  return [...out];
}

function textOf(r: Row, lang: string): Json {
  const text = (r.doc().text as Json | undefined) ?? {};
  return ((text[lang] as Json | undefined) ?? (text.en as Json | undefined) ?? {}) as Json;
}

const round = (n: number) => Math.round(n * 100) / 100;

/** The parts asked for, ingredients and totals scaled to `servings`. */
export function recipeParts(r: Row, want: Part[], lang: string, servings?: number): Json {
  const factor = servings !== undefined && r.servings ? servings / r.servings : 1;
  const out: Json = {
    id: r.id,
    ...title(r, lang),
    level: r.level,
    verification: verification(r),
    hash: r.hash,
    step_text_published: !r.factsOnly,
  };
  if (servings !== undefined) out.scaled = { from_servings: r.servings ?? null, to_servings: servings, factor: round(factor) };
  const t = textOf(r, lang);
  for (const p of want) {
    if (p === 'summary')
      out.summary = {
        ...brief(r, lang),
        intro: r.factsOnly ? null : ((t.intro as string | undefined) ?? null),
        license: r.license ?? null,
      };
    if (p === 'ingredients')
      out.ingredients = r.ingredients.map((i) => ({
        name: i.name,
        qty: i.qty !== undefined ? round(i.qty * factor) : null,
        unit: i.unit ?? null,
        text: factor === 1 ? (i.display ?? null) : null,
      }));
    if (p === 'steps') {
      const wording = r.factsOnly ? {} : (((t.steps as Json | undefined) ?? {}) as Json);
      out.steps = r.nodeOps.map((n, i) => {
        const node = ((r.doc().process as Json).nodes as Json[])[i] ?? {};
        return {
          node: n.id,
          op: n.op,
          time: (node.until as Json | undefined)?.maxTime ?? null,
          text: r.factsOnly ? null : ((wording[n.id] as string | undefined) ?? null),
        };
      });
      out.total_time_min = r.totalMin ?? null;
      if (r.factsOnly)
        out.steps_note = `Step wording is not published for this source; follow the original: ${r.sourceUrl ?? 'the source'}.`;
      out.source_url = r.sourceUrl ?? null;
    }
    if (p === 'nutrition')
      out.nutrition = r.nutrition
        ? {
            per_serving: r.nutrition,
            total: Object.fromEntries(Object.entries(r.nutrition).map(([k, v]) => [k, round(v * (servings ?? r.servings ?? 1))])),
            basis: 'modelled estimate',
          }
        : null;
    if (p === 'cost')
      out.cost =
        r.costTotal !== undefined
          ? {
              total: round(r.costTotal * factor),
              per_serving: r.costPerServing ?? null,
              tier: r.costTier ?? null,
              unit: 'catalog unit (no currency)',
            }
          : null;
    if (p === 'equipment') out.equipment = r.equipment;
    if (p === 'notes') {
      const notes: Json = {};
      for (const k of ['notes', 'history', 'tips', 'background']) if (t[k] !== undefined) notes[k] = t[k];
      out.notes = Object.keys(notes).length ? notes : null;
    }
    if (p === 'safety') {
      const safety = (r.doc().safety as Json | undefined) ?? {};
      out.safety = {
        allergen_info: r.allergenInfo,
        diabetic: r.diabetic,
        supervision: safety.supervision ?? null,
        hazards: safety.hazards ?? [],
        diet_claims: [...r.claims.values()],
        held_back: r.heldBack,
        kids: r.kids,
      };
    }
    if (p === 'links')
      out.links = {
        source: r.sourceUrl ?? null,
        video: r.videoUrl ?? null,
        page: ((r.doc().legacy as Json | undefined)?.pageUrl as string | undefined) ?? null,
      };
  }
  return out;
}

/** Operation facts for explain-step and /api/operations. */
export function opInfo(id: string): Json {
  const op = getOp(id);
  if (!op) return { op: id, known: false };
  const env = op.envelope;
  return {
    op: id,
    known: true,
    label: typeof op.label === 'string' ? op.label : ((op.label as Json | undefined)?.en ?? id),
    family: (op as unknown as Json).family ?? null,
    medium: env?.medium ?? null,
    tempC: env?.tempC ?? null,
    unattended: env?.unattended ?? null,
    sensorLadder: env?.sensorLadder ?? [],
    hazards: env?.hazards ?? [],
  };
}

export const LANGUAGES = LANGUAGE_NAMES;
