/**
 * The checks a start request goes through, in the order semantics §6 states: Core version, recipe known,
 * recipe hash, recall, mandate, allergens, a latched safety stop (refused as safety_limit), then the dry run with the device's SafetyLimits and the *sensed*
 * presence of a person; last, one execution at a time (`busy`). The first failure is the refusal.
 */

import type { KeyRecord } from '../../core/keys.js';
import { verifyMandate } from '../../core/mandate.js';
import type { Principal } from '../../platform/http/auth.js';
import { dryRun } from '../../safety/dry-run.js';
import type { Capabilities, PlanItem, Refusal, SafetyLimits } from '../../safety/types.js';
import type { RecipeEntry } from '../config/recipes.js';
import type { RecallDoc } from '../store/recalls.js';
import { CORE_VERSION_PATTERN, type ExecuteRequest } from './types.js';

export interface StartCheckInput {
  req: ExecuteRequest;
  principal: Principal | null;
  recipe: RecipeEntry | undefined;
  recall(recipeId: string, hash: string): RecallDoc | undefined;
  capabilities: Capabilities;
  limits: SafetyLimits[];
  humanPresent: boolean;
  busyWith?: string;
  /** A latched safety stop (the supervisor's trip message): nothing may heat until a person resets it. */
  latched?: string;
  now: Date;
  /** The principal keys a mandate must be signed with (runtime/store/principal-keys.ts). */
  mandateKeys: readonly KeyRecord[];
  /** Wall-clock time for a mandate's expiry (the device clock may be simulated). */
  wallNow: Date;
}

/** The extension field a principal signs to acknowledge a recipe's allergens for an agent's start. */
export const MANDATE_ALLERGEN_ACK = 'x-acknowledgedAllergens';

export type StartCheckResult =
  | { kind: 'unknown_recipe' }
  | { kind: 'refused'; refusal: Refusal; plan: PlanItem[] }
  | { kind: 'accepted'; plan: PlanItem[] };

/** Every allergen a recipe declares, lower-cased: `safety.allergens.*`, `allergensEU`, `ingredients[].allergens`. */
export function recipeAllergens(doc: Record<string, unknown>): Set<string> {
  const out = new Set<string>();
  const add = (v: unknown) => {
    if (Array.isArray(v)) for (const a of v) if (typeof a === 'string') out.add(a.toLowerCase());
  };
  const safety = doc.safety as { allergens?: unknown } | undefined;
  if (safety && typeof safety.allergens === 'object' && safety.allergens !== null) {
    if (Array.isArray(safety.allergens)) add(safety.allergens);
    else for (const v of Object.values(safety.allergens)) add(v);
  }
  add(doc.allergensEU);
  if (Array.isArray(doc.ingredients))
    for (const i of doc.ingredients) if (i && typeof i === 'object') add((i as { allergens?: unknown }).allergens);
  return out;
}

/** The recipe id a request names: a bare id, `<catalog URL>#<id>` or `cw:<authority>:<id>`. */
export function requestedRecipeId(ref: string): string {
  const hash = ref.lastIndexOf('#');
  if (hash >= 0) return ref.slice(hash + 1);
  if (ref.startsWith('cw:')) return ref.slice(ref.lastIndexOf(':') + 1);
  return ref;
}

export function startChecks(i: StartCheckInput): StartCheckResult {
  const refuse = (reason: Refusal['reason'], detail: string, plan: PlanItem[] = []): StartCheckResult => ({
    kind: 'refused',
    refusal: { reason, node: '', detail: detail.slice(0, 500) },
    plan,
  });
  if (!CORE_VERSION_PATTERN.test(i.req.core))
    return refuse('unsupported_version', `this executor speaks Core 0.2.x, not ${JSON.stringify(i.req.core).slice(0, 40)}`);
  const recipe = i.recipe;
  if (!recipe) return { kind: 'unknown_recipe' };
  if (i.req.recipeHash !== recipe.hash)
    return refuse('recipe_hash_mismatch', `the device holds ${recipe.id} at ${recipe.hash}, not ${i.req.recipeHash}`);
  const recall = i.recall(recipe.id, recipe.hash);
  if (recall) return refuse('recipe_recalled', `recipe ${recipe.id} at this revision is recalled (${recall.id})`);
  const m = i.req.mandate;
  if (i.principal?.kind === 'agent' && !m) return refuse('not_authorized', 'an agent must present the mandate it acts under');
  if (m) {
    // A mandate is a document the principal signed, never the requester's say-so: signature by a registered key
    // of that principal, the presenting agent, expiry and scope (core/mandate.ts).
    const p = i.principal;
    const r = verifyMandate(m, i.mandateKeys, { scope: 'start_cooking', agent: p ? [p.id, p.name] : [], now: i.wallNow });
    if (!r.ok) return refuse('mandate_scope', `mandate refused (${r.reason}): ${r.detail}`);
    // The person acknowledges the recipe's allergens, as a session's confirmation would have them do.
    const acked = new Set(
      (Array.isArray(m[MANDATE_ALLERGEN_ACK]) ? (m[MANDATE_ALLERGEN_ACK] as unknown[]) : []).map((a) => String(a).toLowerCase()),
    );
    const unacked = [...recipeAllergens(recipe.doc)].filter((a) => !acked.has(a));
    if (unacked.length > 0)
      return refuse(
        'mandate_scope',
        `the principal has not acknowledged the allergens ${unacked.join(', ')} (${MANDATE_ALLERGEN_ACK} in the mandate); a person must confirm a session instead`,
      );
  }
  if (i.req.allergenBlocks && i.req.allergenBlocks.length > 0) {
    const has = recipeAllergens(recipe.doc);
    const hit = i.req.allergenBlocks.filter((a) => has.has(a.toLowerCase()));
    if (hit.length > 0) return refuse('allergen_block', `the recipe contains ${hit.join(', ')}`);
  }
  if (i.latched) return refuse('safety_limit', `a safety stop is latched (${i.latched}); a person must reset it before anything cooks`);
  const dry = dryRun({ recipe: recipe.doc, capabilities: i.capabilities, humanPresent: i.humanPresent, limits: i.limits, now: i.now });
  if (dry.state === 'refused') {
    const refusal = dry.refusal ?? { reason: 'missing_capability', node: '', detail: 'the dry run refused' };
    return { kind: 'refused', refusal: { ...refusal, detail: refusal.detail.slice(0, 500) }, plan: dry.plan };
  }
  if (i.busyWith) return refuse('busy', `the device is busy with execution ${i.busyWith}; stop it or wait`, dry.plan);
  return { kind: 'accepted', plan: dry.plan };
}
