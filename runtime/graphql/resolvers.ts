/**
 * Queries and mutations of the hub's GraphQL schema: each one calls the service function its REST route calls
 * (SessionService, KitchenService, respondToTask, emergencyStop, the executor), after the scope check of
 * scopes.ts; input objects pass the REST bodies' schemas. No cooking logic lives here.
 */
import { GraphQLScalarType, valueFromASTUntyped } from 'graphql';
import type { Principal } from '../../platform/http/auth.js';
import { ProblemError } from '../../platform/http/problems.js';
import { recipeNodeResolvers, type SearchArgs, searchConnection } from '../../services/index/search/graphql-search.js';
import type { Executor } from '../executor/executor.js';
import type { InventoryPatch } from '../hub/kitchen/index.js';
import { inventoryPatchSchema, type OrderInput, orderExtras, orderSchema } from '../hub/kitchen/index.js';
import { safetyState } from '../hub/safety/index.js';
import type { CreateSessionInput } from '../hub/sessions/index.js';
import { createSessionSchema, respondToTask, rulesSchema, type TaskAnswer } from '../hub/sessions/index.js';
import type { Task } from '../hub/types.js';
import type { HubMcpDeps } from '../mcp/tools.js';
import { emergencyStopResult } from './estop.js';
import { checked, type GraphqlContext, need } from './scopes.js';

export interface HubGraphqlDeps extends HubMcpDeps {
  executor: Pick<Executor, 'status' | 'activeId' | 'humanPresent'>;
}

type Id = { id: string };
type Ctx = GraphqlContext;

export const JsonScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value.',
  serialize: (v) => v,
  parseValue: (v) => v,
  parseLiteral: (ast, vars) => valueFromASTUntyped(ast, vars ?? undefined),
});

const abortSchema = { type: 'object', additionalProperties: false, properties: { reason: { type: 'string', maxLength: 500 } } } as const;
const respondSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['answer'],
  properties: { answer: { enum: ['yes', 'no'] }, acknowledgedRules: rulesSchema, note: { type: 'string', maxLength: 500 } },
} as const;

type SafetyView = ReturnType<typeof safetyState>;

/** A root resolver that checks the scope of `field` first. */
const r =
  <A, R>(field: string, fn: (a: A, p: Principal) => R) =>
  (_root: unknown, a: A, c: Ctx): R =>
    fn(a, need(c, field));

export function hubResolvers(d: HubGraphqlDeps) {
  const svc = d.sessions;
  const notFound = (what: string, id: string) => new ProblemError('not-found', `no ${what} ${id} on this hub`);
  const execution = (id: string) => {
    const s = d.executor.status(id);
    if (!s) throw notFound('execution', id);
    return s;
  };
  return {
    Query: {
      search: r('Query.search', (a: SearchArgs) => searchConnection(d.catalog(), a)),
      session: r('Query.session', (a: Id) => svc.get(a.id)),
      sessions: r('Query.sessions', () => svc.sessions.list()),
      tasks: r('Query.tasks', (a: { sessionId?: string | null }) => svc.tasks.list(a.sessionId ?? undefined)),
      task: (_: unknown, a: Id, c: Ctx) => {
        need(c, 'Query.task');
        const t = svc.tasks.get(a.id);
        if (!t) throw notFound('task', a.id);
        return t;
      },
      inventory: r('Query.inventory', () => d.kitchen.inventory()),
      orders: r('Query.orders', () => d.kitchen.orders()),
      order: r('Query.order', (a: Id) => d.kitchen.order(a.id)),
      executor: (_: unknown, __: unknown, c: Ctx) => {
        need(c, 'Query.executor');
        const active = d.executor.activeId;
        return {
          activeExecution: active ? (d.executor.status(active) ?? null) : null,
          humanPresent: d.executor.humanPresent(),
          safety: safetyState(d.safety),
        };
      },
      execution: r('Query.execution', (a: Id) => execution(a.id)),
      safetyStatus: r('Query.safetyStatus', () => safetyState(d.safety)),
      mode: r('Query.mode', () => d.kitchen.mode()),
    },
    Mutation: {
      createSession: (_: unknown, a: { input: unknown }, c: Ctx) =>
        svc.create(checked<CreateSessionInput>(createSessionSchema, a.input, 'input'), need(c, 'Mutation.createSession')),
      confirmSession: (_: unknown, a: { id: string; acknowledgedRules: string[] }, c: Ctx) => {
        const p = need(c, 'Mutation.confirmSession');
        const r = svc.confirm(a.id, checked<string[]>(rulesSchema, a.acknowledgedRules, 'acknowledgedRules'), p);
        return { session: r.session, completed: r.completed, task: r.task ?? null };
      },
      startSession: (_: unknown, a: Id, c: Ctx) => svc.start(a.id, need(c, 'Mutation.startSession')),
      pauseSession: r('Mutation.pauseSession', (a: Id) => svc.pause(a.id)),
      resumeSession: r('Mutation.resumeSession', (a: Id) => svc.resume(a.id)),
      abortSession: (_: unknown, a: { id: string; reason?: string | null }, c: Ctx) => {
        const p = need(c, 'Mutation.abortSession');
        const body = checked<{ reason?: string }>(abortSchema, { reason: a.reason }, 'arguments');
        return svc.abort(a.id, body.reason ?? 'aborted on request', p);
      },
      respondToTask: (_: unknown, a: { id: string } & Record<string, unknown>, c: Ctx) => {
        const p = need(c, 'Mutation.respondToTask');
        const { id, ...rest } = a;
        return respondToTask(svc, id, checked<TaskAnswer>(respondSchema, rest, 'arguments'), p);
      },
      updateInventory: (_: unknown, a: Record<string, unknown>, c: Ctx) => {
        need(c, 'Mutation.updateInventory');
        return d.kitchen.patchInventory(checked<InventoryPatch>(inventoryPatchSchema, a, 'arguments'));
      },
      createOrderIntent: (_: unknown, a: Record<string, unknown>, c: Ctx) => {
        const p = need(c, 'Mutation.createOrderIntent');
        // The arguments are the REST body: the same schema, the same mandate check (mandates.ts). The mandate is
        // passed on as sent (checked() drops nulls, which would change a signed document).
        const body = checked<OrderInput>(orderSchema, a, 'arguments');
        if (a.mandate !== null && a.mandate !== undefined) body.mandate = a.mandate;
        return d.kitchen.createOrder(body.lines, body.note, p, orderExtras(d.kitchen, d.mandateKeys?.() ?? [], p, body));
      },
      emergencyStop: (_: unknown, a: { reason?: string | null }, c: Ctx) =>
        emergencyStopResult(d, a.reason, need(c, 'Mutation.emergencyStop')),
    },
    Session: {
      tasks: (s: { id: string }, _: unknown, c: Ctx) => {
        need(c, 'Session.tasks');
        return svc.tasks.list(s.id);
      },
      document: (s: unknown) => s,
    },
    Task: {
      session: (t: Task, _: unknown, c: Ctx) => {
        need(c, 'Task.session');
        return svc.get(t.sessionId);
      },
      message: (t: Task, a: { lang?: string | null }) => {
        const m = t.message ?? {};
        const lang = a.lang ?? 'en';
        return m[lang] ?? m[lang.split('-')[0] ?? lang] ?? m.en ?? Object.values(m)[0] ?? '';
      },
      messages: (t: Task) => t.message ?? {},
      document: (t: unknown) => t,
    },
    OrderIntent: { document: (o: unknown) => o },
    Execution: { document: (e: unknown) => e },
    SafetyStatus: {
      heaters: (s: SafetyView) => Object.entries(s.heaters).map(([id, h]) => ({ id, power: h.power })),
    },
    RecipeNode: recipeNodeResolvers,
  };
}
