/**
 * What a person acknowledges before a session may start, as rule ids `<policy set>/<rule>`:
 * `allergens/<allergen>` for every allergen a recipe declares, and `supervision/<op>` for every step whose
 * envelope forbids running unattended (the person stays at the appliance for it). The rules come from the
 * dry run with a person present, so they name exactly what the device will ask of that person.
 */
import { dryRun } from '../../../safety/dry-run.js';
import type { DryRunResult, SafetyLimits } from '../../../safety/types.js';
import { opEnvelope } from '../../../schemas/vocab.js';
import type { RecipeEntry } from '../../config/recipes.js';
import { recipeAllergens } from '../../executor/start-checks.js';

export const RULE_ID = '^[a-z0-9][a-z0-9_.-]{0,63}/[a-z0-9][a-z0-9_.:-]{0,63}$';

function slug(v: string): string {
  return v
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '_')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 64);
}

export interface RecipeCheck {
  recipeId: string;
  attended: DryRunResult;
  rules: string[];
  /** True when some step needs a person present (a heat step that may not run unattended, or a step a person does). */
  needsPerson: boolean;
}

export function checkRecipe(recipe: RecipeEntry, capabilities: unknown, limits: SafetyLimits[], now: Date): RecipeCheck {
  const attended = dryRun({ recipe: recipe.doc, capabilities, humanPresent: true, limits, now });
  const rules = new Set<string>();
  for (const a of recipeAllergens(recipe.doc)) {
    const s = slug(a);
    if (s !== '') rules.add(`allergens/${s}`);
  }
  let needsPerson = false;
  for (const item of attended.plan) {
    const unattended = item.unattended ?? opEnvelope(item.op)?.unattended;
    if (item.by === 'human' || unattended === false) {
      needsPerson = true;
      rules.add(`supervision/${slug(item.op.replace(/^cw\.op\./, ''))}`);
    }
  }
  return { recipeId: recipe.id, attended, rules: [...rules].sort(), needsPerson };
}
