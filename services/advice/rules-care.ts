/**
 * Advice about food already in hand: `recover` (fix a mistake, rescue a meal: the danger-zone rule and the
 * recovery playbooks), `store` (how long and how, from the storage table) and `personalize` (portions per person
 * from Mifflin–St Jeor or the children's energy table, and the recipe's modelled nutrition). Every number comes
 * from tables.ts, whose rows name their source.
 */
import { ProblemError } from '../../platform/http/problems.js';
import { recipeOf } from '../index/catalog.js';
import { durationSeconds, indexEntry, type Json } from '../index/entry.js';
import type { PlanningContext } from '../planning/context.js';
import { allergensOf } from '../planning/policy.js';
import type { Effective } from './constraints.js';
import { cookFrom } from './rules-cook.js';
import { ACTIVITY, CHILD_KCAL, COOLING, DANGER_ZONE, MEAL_SHARE, REHEAT_MIN_CORE_C, SOURCES, STORAGE, type StorageRow } from './tables.js';
import type { AdviceOption, SafetyNote } from './types.js';

const obj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function recipe(ctx: PlanningContext, id: unknown) {
  if (typeof id !== 'string') throw new ProblemError('validation-failed', 'this intent needs query.recipeId');
  const r = recipeOf(ctx.catalog(), id);
  if (!r) throw new ProblemError('not-found', `no recipe ${JSON.stringify(id)} here`);
  return r;
}

export interface Outcome {
  options: AdviceOption[];
  safety: SafetyNote;
  warnings?: Record<string, string>[];
}

/** `recover`: time–temperature abuse (discard past the danger-zone limit), too salty, too spicy, burnt. */
export function recover(ctx: PlanningContext, eff: Effective, query: Json, lang: string): Outcome {
  const incident = obj(query.incident);
  const type = typeof incident.type === 'string' ? incident.type : '';
  const obs = obj(incident.observations);
  if (type === 'cw.incident.time_temp_abuse') {
    const minutes = num(obs.minutesInDangerZone);
    if (minutes === undefined) throw new ProblemError('validation-failed', 'time_temp_abuse needs observations.minutesInDangerZone');
    const hot = (num(obs.ambientC) ?? 20) > DANGER_ZONE.hotAmbientC;
    const limit = hot ? DANGER_ZONE.hotMaxMinutes : DANGER_ZONE.maxMinutes;
    const evidence = { kind: 'reference' as const, ref: DANGER_ZONE.rule, source: SOURCES[DANGER_ZONE.source] };
    if (minutes > limit) {
      const alternatives = cookFrom(ctx, eff, { allowMissing: 0 }, lang).slice(0, 2);
      return {
        safety: {
          verdict: 'unsafe_discard',
          reasons: [
            `Perishable food between 5 and 60 °C for ${minutes} min (> ${limit} min${hot ? ' above 32 °C' : ''}). Cooking does not make it safe.`,
          ],
          rulesApplied: [DANGER_ZONE.rule],
        },
        options: [
          {
            id: 'discard',
            rank: 1,
            kind: 'discard',
            title: { en: 'Discard it' },
            confidence: 1,
            safety: { verdict: 'unsafe_discard' },
            evidence: [evidence],
          },
          ...alternatives.map((o, i) => ({
            ...o,
            id: `alt-${i + 1}`,
            rank: i + 2,
            title: { en: `Cook instead: ${Object.values(o.title)[0]}` },
          })),
        ],
      };
    }
    return {
      safety: {
        verdict: 'safe_with_conditions',
        conditions: ['Refrigerate or cook now', `Cook to a safe core temperature`],
        rulesApplied: [DANGER_ZONE.rule],
      },
      options: [
        {
          id: 'use-now',
          rank: 1,
          kind: 'advice',
          title: { en: `Within the limit (${minutes} of ${limit} min): cook it now or refrigerate it at once` },
          confidence: 0.9,
          safety: { verdict: 'safe_with_conditions' },
          evidence: [evidence],
        },
      ],
    };
  }
  if (type === 'cw.incident.too_salty') {
    const added = num(obs.saltAddedG);
    const expected = num(obs.saltExpectedG);
    const ratio = num(obs.salt_ratio) ?? (added && expected ? added / expected : undefined);
    if (!ratio || ratio <= 1)
      throw new ProblemError('validation-failed', 'too_salty needs saltAddedG and saltExpectedG (or salt_ratio above 1)');
    const keep = Math.round((1 / ratio) * 100) / 100;
    const rid = typeof incident.recipeId === 'string' ? incident.recipeId : undefined;
    const node = typeof incident.nodeId === 'string' ? incident.nodeId : undefined;
    return {
      safety: { verdict: 'safe' },
      options: [
        {
          id: 'split',
          rank: 1,
          kind: 'patch_and_resume',
          title: {
            en: `Keep ${Math.round(keep * 100)}% of the batch and make it up to the full amount without salt; freeze the rest as a seasoning base`,
          },
          ...(rid ? { recipeIds: [rid] } : {}),
          patch: {
            ...(rid ? { base: { recipeId: rid } } : {}),
            ops: [
              { op: 'split_batch', target: node ?? 'current', params: { keepFraction: keep } },
              {
                op: 'note',
                text: { en: `Repeat the earlier steps for ${Math.round((1 - keep) * 100)}% of the batch without salt, then combine.` },
              },
            ],
            ...(node ? { resumeAt: node } : {}),
            validated: false,
          },
          impact: { quality: 'minor', servingsChange: 0 },
          confidence: 0.8,
          safety: { verdict: 'safe' },
          evidence: [{ kind: 'playbook', ref: 'cw.pb.too_salty_liquid#split_and_dilute' }],
          explanation: { en: `Salt is ${ratio.toFixed(1)}× the recipe's: keeping 1/${ratio.toFixed(1)} and topping it up brings it back.` },
        },
        {
          id: 'serve_side',
          rank: 2,
          kind: 'advice',
          title: { en: 'Serve with plenty of plain bread, rice or potatoes and salt nothing else' },
          confidence: 0.5,
          impact: { quality: 'noticeable' },
          safety: { verdict: 'safe' },
          evidence: [{ kind: 'playbook', ref: 'cw.pb.too_salty_liquid#serve_with_unsalted_starch' }],
        },
      ],
    };
  }
  const PLAYBOOKS: Record<string, { title: string; ref: string }[]> = {
    'cw.incident.too_spicy': [
      { title: 'Stir in yogurt, cream or coconut milk off the heat', ref: 'cw.pb.too_spicy#dairy' },
      { title: 'Add more of the unspiced base (tomato, stock, beans) and a little sugar or acid', ref: 'cw.pb.too_spicy#dilute' },
    ],
    'cw.incident.burnt': [
      { title: 'Move what is not burnt to a clean pot without scraping the bottom; taste before going on', ref: 'cw.pb.burnt#transfer' },
    ],
  };
  const book = PLAYBOOKS[type];
  if (!book)
    throw new ProblemError(
      'validation-failed',
      `no playbook for incident ${JSON.stringify(type)}; known: cw.incident.time_temp_abuse, too_salty, too_spicy, burnt`,
    );
  return {
    safety: { verdict: 'safe' },
    options: book.map((b, i) => ({
      id: b.ref.split('#')[1] ?? `p${i}`,
      rank: i + 1,
      kind: 'advice',
      title: { en: b.title },
      confidence: 0.6,
      safety: { verdict: 'safe' as const },
      evidence: [{ kind: 'playbook' as const, ref: b.ref }],
    })),
  };
}

function storageRow(doc: Json): StorageRow {
  const ids = JSON.stringify(doc.ingredients ?? []);
  const allergens = allergensOf(doc);
  const tags = JSON.stringify(obj(doc.dish).tags ?? []);
  const pick = (id: string) => STORAGE.find((r) => r.id === id) as StorageRow;
  if (allergens.has('eggs') && /egg/.test(ids)) return pick('cw.storage.egg_dishes');
  if (/chicken|poultry|turkey/.test(ids)) return pick('cw.storage.cooked_poultry');
  if (/beef|lamb|veal|meat/.test(ids)) return pick('cw.storage.cooked_meat');
  if (/deep-fry|fried/.test(tags)) return pick('cw.storage.fried');
  if (/rice|pasta|macaroni/.test(ids)) return pick('cw.storage.cooked_rice_pasta');
  if (/soup|stew|sauce|tomato/.test(ids + tags)) return pick('cw.storage.soups_stews');
  return pick('cw.storage.leftovers');
}

/** `store`: the method that keeps the dish for the duration asked, with cooling, portions, reheating and sources. */
export function store(ctx: PlanningContext, query: Json, lang: string): Outcome {
  const { doc, facts } = recipe(ctx, query.recipeId);
  const row = storageRow(doc);
  const days = typeof query.duration === 'string' ? (durationSeconds(query.duration) ?? 0) / 86400 : row.fridgeDays;
  const available = Array.isArray(query.storageAvailable) ? (query.storageAvailable as string[]) : ['fridge', 'freezer'];
  const servings = num(query.servings) ?? num(obj(doc.yield).servings) ?? 1;
  const mass = num(obj(obj(doc.yield).totalMass).value);
  const baseServings = num(obj(doc.yield).servings) ?? servings;
  const perPortion = mass ? Math.round(mass / baseServings) : undefined;
  const fridgeOk = available.includes('fridge') && days <= row.fridgeDays;
  const freezerOk = available.includes('freezer') && row.freezerMonths !== null && days <= row.freezerMonths * 30;
  const egg = row.id === 'cw.storage.egg_dishes';
  const evidence = [
    { kind: 'reference' as const, ref: row.id, source: SOURCES[row.source] },
    { kind: 'reference' as const, ref: 'cw.safety.cooling', source: SOURCES[COOLING.source] },
  ];
  const conditions = ['Cool to ≤ 5 °C within 6 h (≤ 21 °C within the first 2 h)', `Reheat to ≥ ${REHEAT_MIN_CORE_C} °C`];
  const plan = (method: 'fridge' | 'freezer', keepsFor: string, id: string, rank: number): AdviceOption => ({
    id,
    rank,
    kind: 'storage_plan',
    title: {
      [lang]: `${indexEntry(facts, lang).title}: ${method}, keeps ${keepsFor}${egg && query.notCookedYet ? '; cook the eggs fresh each day' : ''}`,
    },
    recipeIds: [facts.id],
    servings,
    storagePlan: {
      feasible: true,
      method,
      keepsFor,
      cooling: { method: 'shallow containers, uncovered until cool', maxDepthCm: COOLING.maxDepthCm, stages: COOLING.stages },
      portioning: { portions: Math.ceil(servings), ...(perPortion ? { massPerPortionG: perPortion } : {}) },
      ...(egg ? { separateComponents: ['eggs (cook fresh)'] } : {}),
      reheat: { minCoreC: REHEAT_MIN_CORE_C, onlyOnce: true },
      label: [
        indexEntry(facts, 'en').title,
        'date cooked',
        `use within ${keepsFor}`,
        `allergens: ${[...allergensOf(doc)].join(', ') || 'none declared'}`,
      ],
      discardIf: [`kept longer than ${keepsFor}`, 'sour smell, mould or bubbles before reheating'],
      ...(row.note ? { note: row.note } : {}),
    },
    confidence: 0.85,
    safety: { verdict: 'safe_with_conditions', conditions },
    evidence,
  });
  const options: AdviceOption[] = [];
  if (fridgeOk) options.push(plan('fridge', `P${row.fridgeDays}D`, 'fridge', options.length + 1));
  if (freezerOk && row.freezerMonths !== null) options.push(plan('freezer', `P${row.freezerMonths}M`, 'freezer', options.length + 1));
  if (options.length === 0)
    return {
      safety: {
        verdict: 'refused',
        reasons: [
          `${row.label} keep ${row.fridgeDays} days in a fridge${row.freezerMonths ? ` and ${row.freezerMonths} months frozen` : ''}; ${days} days is longer than any method available here`,
        ],
      },
      options: [],
    };
  return { safety: { verdict: 'safe_with_conditions', conditions }, options };
}

/** Daily energy need: Mifflin–St Jeor × activity for adults, the DGA table for children. */
function dailyKcal(m: Json): { kcal: number; rule: 'mifflin' | 'dga' } | undefined {
  const age = num(m.ageYears);
  const female = m.sex === 'female';
  if (age === undefined) return undefined;
  if (age < 18) {
    const row = CHILD_KCAL.find((r) => age <= r.maxAge) ?? CHILD_KCAL[CHILD_KCAL.length - 1];
    return row ? { kcal: female ? row.female : row.male, rule: 'dga' } : undefined;
  }
  const w = num(m.weightKg);
  const h = num(m.heightCm);
  if (w === undefined || h === undefined) return undefined;
  const bmr = 10 * w + 6.25 * h - 5 * age + (female ? -161 : 5);
  return { kcal: Math.round(bmr * (ACTIVITY[String(m.activity)] ?? 1.375)), rule: 'mifflin' };
}

/** `personalize`: grams per person of one recipe for one meal, and what to change for each. */
export function personalize(ctx: PlanningContext, context: Json, query: Json, lang: string): Outcome {
  const ids = Array.isArray(query.recipeIds) ? query.recipeIds : [query.recipeId];
  const { doc, facts } = recipe(ctx, ids[0]);
  const per = obj(obj(doc.nutrition).perServing);
  const kcalPerServing = num(per.kcal);
  const servings = num(obj(doc.yield).servings);
  const mass = num(obj(obj(doc.yield).totalMass).value);
  if (!kcalPerServing || !servings || !mass)
    throw new ProblemError('no-feasible-plan', `recipe ${facts.id} states no nutrition per serving, servings and total mass to portion by`);
  const gPerServing = mass / servings;
  const kcalPerG = kcalPerServing / gPerServing;
  const members = (Array.isArray(context.members) ? context.members : []).map(obj);
  const wanted = Array.isArray(query.personIds) ? new Set(query.personIds as string[]) : undefined;
  const allergens = allergensOf(doc);
  const people: Json[] = [];
  for (const m of members) {
    if (wanted && !wanted.has(String(m.id))) continue;
    const need = dailyKcal(m);
    if (!need) continue;
    const grams = Math.round((need.kcal * MEAL_SHARE) / kcalPerG / 10) * 10;
    const f = grams / gPerServing;
    const mods: string[] = [];
    const hits = (Array.isArray(m.allergies) ? (m.allergies as string[]) : []).filter((a) => allergens.has(a.toLowerCase()));
    if (hits.length > 0) mods.push(`Contains ${hits.join(', ')}: not for this person`);
    const sodiumMax = num(obj(m.targets).sodiumMgMax);
    const sodium = num(per.sodiumMg);
    if (sodiumMax !== undefined && sodium !== undefined && sodium * f > sodiumMax * MEAL_SHARE)
      mods.push('Serve before the final salting; season with lemon instead');
    people.push({
      personId: m.id,
      grams: hits.length > 0 ? 0 : grams,
      nutrition: {
        kcal: Math.round(kcalPerServing * f),
        ...(num(per.protein) ? { proteinG: Math.round((num(per.protein) ?? 0) * f) } : {}),
        ...(sodium ? { sodiumMg: Math.round(sodium * f) } : {}),
      },
      basis: need.rule === 'mifflin' ? 'nutrition.mifflin_st_jeor' : 'nutrition.dga_estimated_needs',
      ...(mods.length > 0 ? { modifications: mods } : {}),
    });
  }
  if (people.length === 0)
    throw new ProblemError('validation-failed', 'personalize needs context.members with age (and, for adults, weight and height)');
  const total = people.reduce((s, p) => s + Number(p.grams), 0);
  const factor = Math.round((total / mass) * 100) / 100;
  return {
    safety: { verdict: 'safe' },
    warnings: [{ en: 'Nutrition guidance only, not medical advice; the recipe’s nutrition is a modelled estimate.' }],
    options: [
      {
        id: 'portions',
        rank: 1,
        kind: 'portion_plan',
        title: { [lang]: `Cook ${factor}× ${indexEntry(facts, lang).title}` },
        recipeIds: [facts.id],
        servings: Math.max(0.5, Math.round(factor * servings * 10) / 10),
        portionPlan: { recipeId: facts.id, totalCookedG: total, cookQuantityFactor: factor, people },
        confidence: 0.75,
        safety: { verdict: 'safe' },
        evidence: [
          { kind: 'rule', ref: 'nutrition.mifflin_st_jeor', source: SOURCES.mifflin },
          { kind: 'reference', ref: 'nutrition.dga_estimated_needs', source: SOURCES.dga },
          { kind: 'recipe', ref: facts.id },
        ],
      },
    ],
  };
}
