/**
 * The registry of the skills the hub's A2A endpoint performs (and its agent card lists, runtime/hub/agent-card.ts).
 * Each skill lives in its own file, runtime/a2a/skill-<id>.ts, made with `defineSkill` (define.ts): id, the card's
 * words, scopes, an input schema and an async `perform` through the same service functions as the REST routes
 * and the MCP tools, with the same refusals (an agent only prepares a confirmation; a start needs a person
 * sensed at the appliance). To add one: write its file and list it in `REGISTERED`.
 *
 * A message names its skill in a data part: `{"skill": "plan_meal", "input": {...}}`. Anything else (text, a
 * data part without a known skill) gets a refusal that says how to ask. Recipe and inventory text travel as
 * data, never as instructions.
 */
import type { ValidateFunction } from 'ajv';
import type { Principal } from '../../platform/http/auth.js';
import { ProblemError } from '../../platform/http/problems.js';
import { type AjvRecipe, ajvFor, validatorOf } from '../../platform/prebuilt-validators.js';
import { type A2aSkill, forbidden, type SkillDeps, type SkillOutcome, type SkillProblem } from './define.js';
import { advise } from './skill-advise.js';
import { cookRecipe } from './skill-cook_recipe.js';
import { planMeal } from './skill-plan_meal.js';
import { reliefAllocate } from './skill-relief_allocate.js';
import { restockKitchen } from './skill-restock_kitchen.js';
import { teamPlan } from './skill-team_plan.js';

export type { A2aSkill, SkillDeps, SkillOutcome, SkillProblem } from './define.js';

/** The skills, in the card's order. */
const REGISTERED: readonly A2aSkill[] = [planMeal, cookRecipe, restockKitchen, advise, teamPlan, reliefAllocate];

const recipe: AjvRecipe = { options: { allErrors: false, strict: false }, formats: true };
let ajv: ReturnType<typeof ajvFor> | undefined;

interface Entry {
  skill: A2aSkill;
  /** Compiled on the skill's first call (ajv loads then, not when `hearth start` imports this module). */
  compiled?: ValidateFunction;
}

function validatorOfSkill(entry: Entry): ValidateFunction {
  entry.compiled ??= validatorOf(recipe, entry.skill.input, () => {
    ajv ??= ajvFor(recipe);
    return ajv;
  });
  return entry.compiled;
}

const registry = new Map<string, Entry>();
for (const skill of REGISTERED) {
  if (registry.has(skill.id)) throw new Error(`A2A skill ${skill.id} is registered twice`);
  registry.set(skill.id, { skill });
}

/** The registered skills, in the card's order. */
export function a2aSkills(): readonly A2aSkill[] {
  return REGISTERED;
}

/** The ids of the registered skills. */
export const A2A_SKILLS: readonly string[] = REGISTERED.map((s) => s.id);

/** How to ask, for a message the endpoint cannot map onto a skill. */
export const HELP = `Name a skill in a data part: {"skill": ${A2A_SKILLS.map((id) => `"${id}"`).join(' | ')}, "input": {...}}. ${REGISTERED.map(
  (s) => `${s.id} ${s.usage}`,
).join('; ')}.`;

/** The skill and input a message asks for, or the refusal that explains how to ask. */
export function routeMessage(parts: readonly { kind: string; value: unknown }[]): { skill: string; input: unknown } | SkillProblem {
  for (const p of parts) {
    if (p.kind !== 'data' || typeof p.value !== 'object' || p.value === null || Array.isArray(p.value)) continue;
    const doc = p.value as Record<string, unknown>;
    if (!('skill' in doc)) continue;
    if (typeof doc.skill !== 'string' || !registry.has(doc.skill)) {
      return { error: 'bad-request', detail: `this hub has no skill ${JSON.stringify(doc.skill).slice(0, 80)}. ${HELP}` };
    }
    return { skill: doc.skill, input: doc.input ?? {} };
  }
  const text = parts.some((p) => p.kind === 'text');
  return {
    error: 'bad-request',
    detail: `${text ? 'This hub does not act on free text. ' : 'The message names no skill. '}${HELP}`,
  };
}

/**
 * Perform skill `id` for `principal`: its scopes, then its input schema, then the skill. Refusals (a missing
 * scope, bad input, a ProblemError the service throws) come back as `refused` outcomes; other errors throw.
 */
export async function performSkill(d: SkillDeps, id: string, input: unknown, principal: Principal): Promise<SkillOutcome> {
  const entry = registry.get(id);
  if (!entry) return { kind: 'refused', problem: { error: 'bad-request', detail: `this hub has no skill ${JSON.stringify(id)}. ${HELP}` } };
  const { skill } = entry;
  const validate = validatorOfSkill(entry);
  const missing = skill.scopes.filter((s) => !principal.scopes.includes(s));
  if (missing.length > 0) return forbidden(skill.id, missing);
  if (!validate(input)) {
    const e = validate.errors?.[0];
    const where = e?.instancePath ? `input${e.instancePath}` : 'input';
    return { kind: 'refused', problem: { error: 'validation-failed', detail: `${skill.id}: ${where} ${e?.message ?? 'is invalid'}` } };
  }
  try {
    return await skill.perform(d, input, principal);
  } catch (err) {
    if (err instanceof ProblemError)
      return { kind: 'refused', problem: { error: err.slug, detail: err.detail ?? err.slug, ...err.extensions } };
    throw err;
  }
}
