/**
 * The skills the hub's A2A endpoint performs, each through the same service functions and scope rules as the
 * REST routes and the MCP tools (runtime/mcp/tools.ts `TOOL_SCOPES`), with the same refusals: an agent only
 * prepares a confirmation (a person completes it) and a start needs a person sensed at the appliance.
 *
 * A message names its skill in a data part: `{"skill": "plan_meal", "input": {...}}`. Anything else (text, a
 * data part without a known skill) gets a refusal that says how to ask. Recipe and inventory text travel as
 * data, never as instructions.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { ProblemSlug } from '../../core/problems.js';
import type { Principal } from '../../platform/http/auth.js';
import { ProblemError } from '../../platform/http/problems.js';
import type { Json } from '../../services/index/entry.js';
import { previewPlan } from '../../services/planning/plan.js';
import type { OrderLine } from '../hub/kitchen.js';
import { orderSchema } from '../hub/kitchen-routes.js';
import { createSessionSchema, rulesSchema } from '../hub/routes.js';
import type { Session } from '../hub/types.js';
import { type HubMcpDeps, TOOL_SCOPES } from '../mcp/tools.js';

/** What a skill needs of the hub: the services REST and MCP use. */
export type SkillDeps = Pick<HubMcpDeps, 'sessions' | 'kitchen' | 'catalog' | 'planning' | 'now'>;

/** A refusal or failure in the recipe API's shape: the problem slug and a sentence. */
export interface SkillProblem {
  error: ProblemSlug;
  detail: string;
  [k: string]: unknown;
}

/** What a skill answers; the executor turns it into A2A task states. */
export type SkillOutcome =
  /** Done: the task completes with this artifact. */
  | { kind: 'done'; summary: string; data: Json }
  /** A person must act on the hub before the agent can go on (the task waits in `input-required`). */
  | { kind: 'input'; summary: string; data: Json; sessionId: string }
  /** The session cooks: the task is `working` and follows the session until it ends. */
  | { kind: 'follow'; summary: string; data: Json; sessionId: string }
  /** Refused (scope, input, a service's refusal): the task is `rejected`. */
  | { kind: 'refused'; problem: SkillProblem };

/** The skills this endpoint performs (and the card advertises); issue 16's skills join when their services exist. */
export const A2A_SKILLS = ['plan_meal', 'cook_recipe', 'restock_kitchen'] as const;
export type SkillId = (typeof A2A_SKILLS)[number];

/** Scopes each skill needs: the scopes of the MCP tools it performs. */
export const SKILL_SCOPES: Record<SkillId, readonly string[]> = {
  plan_meal: [TOOL_SCOPES.plan_preview, TOOL_SCOPES.create_session].filter((s): s is string => s !== null),
  cook_recipe: [TOOL_SCOPES.confirm_session, TOOL_SCOPES.start_session].filter((s): s is string => s !== null),
  restock_kitchen: [TOOL_SCOPES.get_inventory].filter((s): s is string => s !== null),
};

type AddFormats = (ajv: Ajv) => Ajv;
const formatsExport = addFormatsModule as unknown as AddFormats & { default?: AddFormats };
const addFormats: AddFormats = typeof formatsExport.default === 'function' ? formatsExport.default : formatsExport;
const ajv = addFormats(new Ajv({ allErrors: false, strict: false }));

const str = (max: number) => ({ type: 'string', minLength: 1, maxLength: max });

const INPUT_SCHEMAS: Record<SkillId, object> = {
  plan_meal: {
    type: 'object',
    additionalProperties: false,
    required: ['serveAt'],
    properties: {
      recipes: createSessionSchema.properties.recipes,
      query: str(200),
      serveAt: createSessionSchema.properties.serveAt,
      mode: createSessionSchema.properties.mode,
    },
  },
  cook_recipe: {
    type: 'object',
    additionalProperties: false,
    required: ['sessionId'],
    properties: { sessionId: str(100), acknowledgedRules: rulesSchema },
  },
  restock_kitchen: {
    type: 'object',
    additionalProperties: false,
    properties: { lines: orderSchema.properties.lines, note: orderSchema.properties.note },
  },
};
const validators = new Map<SkillId, ValidateFunction>(A2A_SKILLS.map((id) => [id, ajv.compile(INPUT_SCHEMAS[id])]));

/** How to ask, for a message the endpoint cannot map onto a skill. */
export const HELP =
  'Name a skill in a data part: {"skill": "plan_meal" | "cook_recipe" | "restock_kitchen", "input": {...}}. ' +
  'plan_meal {serveAt, recipes?: [{recipeId, servings?}], query?, mode?}; cook_recipe {sessionId, acknowledgedRules?}; ' +
  'restock_kitchen {lines?: [{item, quantity, unit}], note?}.';

/** The skill and input a message asks for, or the refusal that explains how to ask. */
export function routeMessage(parts: readonly { kind: string; value: unknown }[]): { skill: SkillId; input: unknown } | SkillProblem {
  for (const p of parts) {
    if (p.kind !== 'data' || typeof p.value !== 'object' || p.value === null || Array.isArray(p.value)) continue;
    const doc = p.value as Record<string, unknown>;
    if (!('skill' in doc)) continue;
    if (typeof doc.skill !== 'string' || !(A2A_SKILLS as readonly string[]).includes(doc.skill)) {
      return { error: 'bad-request', detail: `this hub has no skill ${JSON.stringify(doc.skill).slice(0, 80)}. ${HELP}` };
    }
    return { skill: doc.skill as SkillId, input: doc.input ?? {} };
  }
  const text = parts.some((p) => p.kind === 'text');
  return {
    error: 'bad-request',
    detail: `${text ? 'This hub does not act on free text. ' : 'The message names no skill. '}${HELP}`,
  };
}

function missingScopes(p: Principal, need: readonly string[]): string[] {
  return need.filter((s) => !p.scopes.includes(s));
}

function forbidden(skill: string, missing: string[]): SkillOutcome {
  return {
    kind: 'refused',
    problem: {
      error: 'forbidden',
      detail: `the skill ${skill} needs the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
      requiredScope: missing[0],
      requiredScopes: missing,
    },
  };
}

/** Perform one skill for `principal`. Service refusals come back as `refused` outcomes; other errors throw. */
export function performSkill(d: SkillDeps, skill: SkillId, input: unknown, principal: Principal): SkillOutcome {
  const missing = missingScopes(principal, SKILL_SCOPES[skill]);
  if (missing.length > 0) return forbidden(skill, missing);
  const validate = validators.get(skill);
  if (validate && !validate(input)) {
    const e = validate.errors?.[0];
    const where = e?.instancePath ? `input${e.instancePath}` : 'input';
    return { kind: 'refused', problem: { error: 'validation-failed', detail: `${skill}: ${where} ${e?.message ?? 'is invalid'}` } };
  }
  try {
    if (skill === 'plan_meal') return planMeal(d, input as PlanInput, principal);
    if (skill === 'cook_recipe') return cookRecipe(d, input as CookInput, principal);
    return restock(d, input as RestockInput, principal);
  } catch (err) {
    if (err instanceof ProblemError)
      return { kind: 'refused', problem: { error: err.slug, detail: err.detail ?? err.slug, ...err.extensions } };
    throw err;
  }
}

interface PlanInput {
  recipes?: { recipeId: string; servings?: number }[];
  query?: string;
  serveAt: string;
  mode?: string;
}

/** plan_meal: the recipes named (or the best search hit), dry-run on this kitchen, and a planned session. */
function planMeal(d: SkillDeps, a: PlanInput, p: Principal): SkillOutcome {
  const cat = d.catalog();
  let recipes = a.recipes;
  if (!recipes) {
    if (!a.query) throw new ProblemError('validation-failed', 'plan_meal: give recipes or a query');
    const hit = cat.search.search({ q: a.query, limit: 1 }).items[0];
    if (!hit) throw new ProblemError('not-found', `no recipe on this hub matches ${JSON.stringify(a.query)}`);
    recipes = [{ recipeId: hit.id }];
  }
  // The plan preview of MCP's plan_preview and POST /svc/v1/plan-preview: scaled, dry-run, stock, household, mode.
  const previews = recipes.map((r) =>
    previewPlan(d.planning, { recipeId: r.recipeId, serveAt: a.serveAt, ...(r.servings !== undefined ? { servings: r.servings } : {}) }),
  );
  const session = d.sessions.create({ recipes, serveAt: a.serveAt, mode: a.mode ?? 'assisted' }, p);
  const rules = session.confirmation.requiredRules;
  return {
    kind: 'done',
    summary: `Planned session ${session.id} (${recipes.map((r) => r.recipeId).join(', ')}) for ${a.serveAt}. To cook it, send cook_recipe {sessionId}${rules.length > 0 ? ` with acknowledgedRules ${rules.join(', ')}` : ''}; a person confirms it.`,
    data: { session: session as unknown as Json, previews },
  };
}

interface CookInput {
  sessionId: string;
  acknowledgedRules?: string[];
}

const sessionData = (s: Session): Json => ({ session: s as unknown as Json });

/**
 * cook_recipe: confirm (an agent only prepares it: the task waits for a person), then start (a person must be
 * sensed at the appliance) and follow the session until it ends. Sent again on the same task once a person
 * has confirmed, it starts.
 */
function cookRecipe(d: SkillDeps, a: CookInput, p: Principal): SkillOutcome {
  let s = d.sessions.get(a.sessionId);
  if (s.state === 'running' || s.state === 'paused') {
    return { kind: 'follow', summary: `Session ${s.id} is ${s.state}; following it.`, data: sessionData(s), sessionId: s.id };
  }
  if (!s.confirmation.confirmedBy || s.state !== 'planned') {
    const r = d.sessions.confirm(s.id, a.acknowledgedRules ?? s.confirmation.acknowledgedRules, p);
    s = r.session;
    if (!r.completed) {
      return {
        kind: 'input',
        summary: `A person must confirm session ${s.id} on a paired interface (hub task ${r.task?.id ?? 'open'}); an agent can only prepare it. Then send cook_recipe {sessionId} again on this task.`,
        data: { ...sessionData(s), ...(r.task ? { task: r.task as unknown as Json } : {}) },
        sessionId: s.id,
      };
    }
  }
  s = d.sessions.start(s.id, p);
  return { kind: 'follow', summary: `Session ${s.id} started.`, data: sessionData(s), sessionId: s.id };
}

interface RestockInput {
  lines?: OrderLine[];
  note?: string;
}

/** restock_kitchen: the inventory (with what expires soon) and, when lines are given, an order intent a person approves. */
function restock(d: SkillDeps, a: RestockInput, p: Principal): SkillOutcome {
  const inventory = d.kitchen.inventory();
  if (!a.lines) {
    return {
      kind: 'done',
      summary: `${inventory.items.length} inventory items, ${inventory.expiringSoon.length} expiring soon. Send lines to create an order intent.`,
      data: { inventory: inventory as unknown as Json },
    };
  }
  const need = TOOL_SCOPES.create_order_intent as string;
  if (!p.scopes.includes(need)) return forbidden('restock_kitchen with lines', [need]);
  const order = d.kitchen.createOrder(a.lines, a.note, p);
  return {
    kind: 'done',
    summary: `Order intent ${order.id} created (${order.state}); only a person approves it.`,
    data: { inventory: inventory as unknown as Json, orderIntent: order as unknown as Json },
  };
}
