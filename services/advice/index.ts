/**
 * Advice as operations `(ctx, input, principal) → result`, thrown ProblemError for a refusal: `advise`
 * (AdviceRequest → AdviceResponse), `ask` ({text, lang} → AdviceResponse) and `applyAdvice` ({responseId,
 * optionId} → a planned session; a person still confirms it). REST, MCP and A2A call these same functions.
 * On the index the context carries only the catalog and `store` is absent: nothing of the request is kept.
 * On a hub the context adds the inventory, the household, the devices and the mode, and the response is kept
 * (for `apply`) in the hub's store.
 */
import { randomUUID } from 'node:crypto';
import type { Principal } from '../../platform/http/auth.js';
import { ProblemError } from '../../platform/http/problems.js';
import type { Json } from '../index/entry.js';
import type { PlanningContext } from '../planning/context.js';
import { interpret } from './ask.js';
import { effective } from './constraints.js';
import { personalize, recover, store } from './rules-care.js';
import { cookFrom, feed } from './rules-cook.js';
import {
  type AdviceOption,
  type AdviceRequest,
  type AdviceResponse,
  ENGINE_VERSION,
  INTENTS,
  type Intent,
  intentOf,
  type SafetyNote,
} from './types.js';

export type { AdviceRequest, AdviceResponse } from './types.js';
export { INTENTS, intentOf } from './types.js';

export interface StoredAdvice {
  response: AdviceResponse;
  /** Who asked (the token's principal id). */
  by: string;
}

/** Where a hub keeps its answers for `apply` (runtime/hub/planning/advice-store.ts). */
export interface AdviceStore {
  put(s: StoredAdvice): void;
  get(responseId: string): StoredAdvice | undefined;
}

export interface SessionMaker {
  create(input: { recipes: { recipeId: string; servings?: number }[]; serveAt: string; mode: string }, by: Principal): Json;
}

export interface AdviceContext {
  planning: PlanningContext;
  /** Absent on the index: stateless, nothing kept. */
  store?: AdviceStore;
  /** Absent on the index: there is nothing to apply to. */
  sessions?: SessionMaker;
  /** Principal keys an agent's mandate must be signed with (for apply). */
  verifyMandate?(mandate: unknown, by: Principal): { principal: string; hash: string };
}

const obj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});

/** `advise`: an AdviceRequest (its `intent`, or the path's) to an AdviceResponse. */
export function advise(ctx: AdviceContext, input: AdviceRequest & { intent?: string }, principal: Principal | null): AdviceResponse {
  const name = input.intent ?? '';
  const intent = intentOf(name);
  if (!intent)
    throw new ProblemError('not-found', `no advice intent ${JSON.stringify(name)}; intents: ${INTENTS.join(', ')}`, {
      intents: [...INTENTS],
    });
  const context = obj(input.context);
  const query = obj(input.query);
  const lang = typeof context.lang === 'string' ? context.lang : 'en';
  const eff = effective(ctx.planning, context, query);
  let options: AdviceOption[] = [];
  let safety: SafetyNote = { verdict: 'safe' };
  let warnings: Record<string, string>[] | undefined;
  switch (intent) {
    case 'cook_from':
      options = cookFrom(ctx.planning, eff, query, lang);
      break;
    case 'feed':
      options = feed(ctx.planning, eff, query, lang);
      break;
    case 'recover':
    case 'store':
    case 'personalize': {
      const o =
        intent === 'recover'
          ? recover(ctx.planning, eff, query, lang)
          : intent === 'store'
            ? store(ctx.planning, query, lang)
            : personalize(ctx.planning, context, query, lang);
      options = o.options;
      safety = o.safety;
      warnings = o.warnings;
      break;
    }
  }
  if (intent === 'cook_from' || intent === 'feed') {
    const conditions = [...new Set(options.flatMap((o) => o.safety.conditions ?? []))];
    safety = conditions.length > 0 ? { verdict: 'safe_with_conditions', conditions } : { verdict: 'safe' };
  }
  const response: AdviceResponse = {
    $kind: 'AdviceResponse',
    svc: '0.2.0',
    ...(typeof input.id === 'string' ? { requestId: input.id } : {}),
    responseId: `adv-${randomUUID()}`,
    intent,
    status: safety.verdict === 'refused' ? 'refused' : options.length > 0 ? 'answered' : 'no_options',
    safety,
    options,
    ...(warnings ? { warnings } : {}),
    context: { source: ctx.store ? 'hub' : 'request', used: ['catalog', ...eff.used] },
    engine: {
      version: ENGINE_VERSION,
      components: ['matcher', 'dry-run', 'substitutions', 'storage-table', 'playbooks', 'portioner'],
      llm: { used: false },
    },
    generatedAt: ctx.planning.now().toISOString(),
  };
  if (ctx.store && principal) ctx.store.put({ response, by: principal.id });
  return response;
}

/** `ask`: free text to an intent (by rules), then `advise`. The guess and its assumptions come back in `interpreted`. */
export function ask(
  ctx: AdviceContext,
  input: { text: string; lang?: string; context?: Json },
  principal: Principal | null,
): AdviceResponse & { interpreted: Json } {
  const i = interpret(ctx.planning, input.text, input.lang ?? 'en', { ...obj(input.context) });
  const r = advise(ctx, i.request, principal);
  return { ...r, interpreted: { intent: i.intent, query: i.request.query ?? {}, assumed: i.assumed } };
}

const APPLICABLE = new Set(['recipe', 'recipe_with_changes', 'production_plan', 'portion_plan', 'storage_plan']);

/**
 * `applyAdvice`: the chosen option as a planned session (cooking its recipes, in batches for a production plan).
 * A person still confirms the session before it starts; an agent applies only under a valid mandate with
 * `plan_meals` signed by its principal.
 */
export function applyAdvice(
  ctx: AdviceContext,
  input: { responseId: string; optionId: string; serveAt?: string; mandate?: unknown },
  principal: Principal,
): Json {
  if (!ctx.store || !ctx.sessions) throw new ProblemError('not-found', 'advice is applied on a hub; the index keeps no answers');
  const stored = ctx.store.get(input.responseId);
  if (!stored) throw new ProblemError('not-found', `no advice ${input.responseId} on this hub (answers are kept for 24 h)`);
  const option = stored.response.options.find((o) => o.id === input.optionId);
  if (!option) throw new ProblemError('not-found', `advice ${input.responseId} has no option ${JSON.stringify(input.optionId)}`);
  if (!APPLICABLE.has(option.kind) || !option.recipeIds?.length)
    throw new ProblemError('conflict', `option ${option.id} (${option.kind}) is advice to follow, not a plan to cook`, {
      kind: option.kind,
    });
  if (option.safety.verdict === 'unsafe_discard') throw new ProblemError('policy-deny', `option ${option.id} is unsafe`);
  let mandate: { principal: string; hash: string } | undefined;
  if (principal.kind === 'agent') {
    if (input.mandate === undefined)
      throw new ProblemError('policy-deny', 'an agent applies advice only under a mandate signed by its principal (scope plan_meals)', {
        mandateReason: 'malformed',
      });
    if (!ctx.verifyMandate) throw new ProblemError('policy-deny', 'this hub verifies no mandates');
    mandate = ctx.verifyMandate(input.mandate, principal);
  }
  const plan = obj(option.productionPlan);
  const menu = Array.isArray(plan.menu) ? (plan.menu as Json[]) : [];
  const recipes: { recipeId: string; servings?: number }[] = [];
  if (menu.length > 0) {
    for (const m of menu) {
      const batches = Math.max(1, Number(m.batches) || 1);
      for (let b = 0; b < batches; b++)
        recipes.push({ recipeId: String(m.recipeId), servings: Math.round((Number(m.servings) / batches) * 10) / 10 });
    }
  } else for (const id of option.recipeIds) recipes.push({ recipeId: id, ...(option.servings ? { servings: option.servings } : {}) });
  if (recipes.length > 10)
    throw new ProblemError('no-feasible-plan', `the plan needs ${recipes.length} cooking runs; a session holds at most 10`);
  const serveAt = input.serveAt ?? new Date(ctx.planning.now().getTime() + 2 * 3600_000).toISOString();
  const session = ctx.sessions.create({ recipes, serveAt, mode: 'assisted' }, principal);
  return {
    ...session,
    advice: { responseId: input.responseId, optionId: option.id, intent: stored.response.intent as Intent },
    ...(mandate ? { mandate } : {}),
  };
}
