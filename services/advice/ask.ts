/**
 * `ask`: free text onto an intent and a query, by rules (no language model): keywords pick the intent; numbers,
 * durations, recipe names (the catalog's titles) and ingredient names (the catalog's ingredient ids) fill the
 * query. Text it cannot place is refused with what it understands; the guess is returned with the answer.
 */
import { ProblemError } from '../../platform/http/problems.js';
import type { Json } from '../index/entry.js';
import type { PlanningContext } from '../planning/context.js';
import type { AdviceRequest, Intent } from './types.js';

const WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  hundred: 100,
};
const NUM = `(\\d+(?:\\.\\d+)?|${Object.keys(WORDS).join('|')})`;
const toNum = (s: string) => WORDS[s] ?? Number(s);

const RULES: { intent: Intent; re: RegExp }[] = [
  {
    intent: 'recover',
    re: /too (salty|spicy|hot)|burn(t|ed)|left (out|on the (counter|table|side))|since (lunch|breakfast|this morning|last night)|overnight|fix|rescue|save (it|this|the)|can i still/,
  },
  { intent: 'store', re: /\b(store|storing|keep|freez(e|er)|fridge|refrigerat|leftovers?|how long)\b/ },
  { intent: 'feed', re: new RegExp(`\\bfeed\\b|${NUM} (people|guests|persons|adults|kids|children)`) },
  { intent: 'personalize', re: /\bportion|personali[sz]e|each person|fit (each|every)/ },
  { intent: 'cook_from', re: /what (can|could|should) i (cook|make)|i have|with (my|what i have|these)|using (my|up)|cook from/ },
];

export interface Interpretation {
  intent: Intent;
  request: AdviceRequest;
  /** What the rules assumed, said back with the answer. */
  assumed: string[];
}

function catalogIngredients(ctx: PlanningContext): string[] {
  const ids = new Set<string>();
  for (const doc of ctx.catalog().docs.values())
    for (const i of Array.isArray(doc.ingredients) ? doc.ingredients : [])
      if (typeof (i as Json)?.ingredientId === 'string') ids.add((i as Json).ingredientId as string);
  return [...ids];
}

function recipeIn(ctx: PlanningContext, text: string): string | undefined {
  for (const f of ctx.catalog().facts) {
    const names = [f.id, ...Object.values(f.titles)].map((n) => n.toLowerCase());
    if (names.some((n) => n.length > 2 && text.includes(n))) return f.id;
  }
  return undefined;
}

export function interpret(ctx: PlanningContext, text: string, lang = 'en', context: Json = {}): Interpretation {
  const t = text.toLowerCase().replace(/\s+/g, ' ');
  const rule = RULES.find((r) => r.re.test(t));
  if (!rule)
    throw new ProblemError(
      'validation-failed',
      `could not tell what you want from this text${lang !== 'en' ? ` (only English is understood so far; lang ${lang})` : ''}: ask what you can cook with what you have, how to fix or rescue a dish, how to store it, how to feed a number of people, or how to portion a recipe per person`,
      { intents: RULES.map((r) => r.intent) },
    );
  const assumed: string[] = [];
  const query: Json = {};
  const intent = rule.intent;
  const recipeId = recipeIn(ctx, t);
  if (intent === 'cook_from') {
    const found = catalogIngredients(ctx).filter((id) => {
      const words = id.replace(/^cw\.ing\./, '').split('_');
      return words.some((w) => w.length > 2 && new RegExp(`\\b${w}s?\\b`).test(t)) && new RegExp(`\\b${words[0]}`).test(t);
    });
    query.ingredients = found.map((ingredientId) => ({ ingredientId }));
    const serves = new RegExp(`for ${NUM}`).exec(t);
    if (serves?.[1]) query.servings = toNum(serves[1]);
    if (found.length === 0) assumed.push('no ingredient named in the text is known to this catalog; matching on stock only');
  } else if (intent === 'feed') {
    const n = new RegExp(`(?:feed )?${NUM} (?:people|guests|persons|adults|kids|children)`).exec(t) ?? new RegExp(`feed ${NUM}`).exec(t);
    if (!n?.[1]) throw new ProblemError('validation-failed', 'how many people? say e.g. "feed 12 people"');
    query.people = toNum(n[1]);
    const h = new RegExp(`in ${NUM} hours?`).exec(t);
    if (h?.[1]) context.constraints = { ...((context.constraints as Json) ?? {}), timeAvailable: `PT${toNum(h[1])}H` };
  } else if (intent === 'store') {
    if (!recipeId) throw new ProblemError('validation-failed', 'which dish? name one of this catalog’s recipes');
    query.recipeId = recipeId;
    const d = new RegExp(`${NUM} days?`).exec(t);
    if (d?.[1]) query.duration = `P${toNum(d[1])}D`;
    if (/not cooked|haven'?t cooked|before cooking/.test(t)) query.notCookedYet = true;
  } else if (intent === 'personalize') {
    if (!recipeId) throw new ProblemError('validation-failed', 'which dish? name one of this catalog’s recipes');
    query.recipeIds = [recipeId];
  } else {
    const incident: Json = recipeId ? { recipeId } : {};
    if (/too salty/.test(t)) {
      incident.type = 'cw.incident.too_salty';
      const x = new RegExp(`${NUM} ?(?:x|times)`).exec(t);
      incident.observations = { salt_ratio: x?.[1] ? toNum(x[1]) : 2 };
      if (!x) assumed.push('assumed twice the salt the recipe asks for; say how much for a better answer');
    } else if (/too (spicy|hot)/.test(t)) incident.type = 'cw.incident.too_spicy';
    else if (/burn/.test(t)) incident.type = 'cw.incident.burnt';
    else {
      incident.type = 'cw.incident.time_temp_abuse';
      const hours = new RegExp(`${NUM} hours?`).exec(t);
      const mins = new RegExp(`${NUM} min(?:ute)?s?`).exec(t);
      let minutes = hours?.[1] ? toNum(hours[1]) * 60 : mins?.[1] ? toNum(mins[1]) : undefined;
      if (minutes === undefined) {
        minutes = /overnight|last night/.test(t) ? 480 : 180;
        assumed.push(
          `assumed ${minutes} minutes out of the fridge from “${/overnight|last night/.test(t) ? 'overnight' : 'since a meal'}”`,
        );
      }
      incident.observations = { minutesInDangerZone: minutes };
    }
    query.incident = incident;
  }
  return { intent, assumed, request: { $kind: 'AdviceRequest', intent, text, context: { lang, ...context }, query } };
}
