/**
 * The scope each root field of the hub's GraphQL schema needs: the same as the REST route or MCP tool that does
 * the same thing (`null`: any paired token, as for the search and the emergency stop). Every request already
 * carries a valid token (HTTP: 401 before GraphQL; WebSocket: closed 4403 at connection_init without one).
 * Input objects are checked against the REST bodies' own JSON Schemas, so limits (lengths, counts, formats)
 * are the same everywhere.
 */
import type { ValidateFunction } from 'ajv';
import type { Principal } from '../../platform/http/auth.js';
import { ProblemError } from '../../platform/http/problems.js';
import { validationErrors } from '../../platform/http/validation.js';
import { type AjvRecipe, ajvFor, validatorOf } from '../../platform/prebuilt-validators.js';

export const GRAPHQL_SCOPES: Record<string, string | null> = {
  'Query.search': null,
  'Query.session': 'read',
  'Query.sessions': 'read',
  'Query.tasks': 'read',
  'Query.task': 'read',
  'Query.inventory': 'read',
  'Query.orders': 'read',
  'Query.order': 'read',
  'Query.executor': 'read',
  'Query.execution': 'read',
  'Query.safetyStatus': 'read',
  'Query.mode': 'read',
  'Mutation.createSession': 'cook',
  'Mutation.confirmSession': 'cook',
  'Mutation.startSession': 'cook',
  'Mutation.pauseSession': 'cook',
  'Mutation.resumeSession': 'cook',
  'Mutation.abortSession': 'cook',
  'Mutation.respondToTask': 'cook',
  'Mutation.updateInventory': 'inventory',
  'Mutation.createOrderIntent': 'order:create',
  'Mutation.emergencyStop': null,
  'Subscription.taskUpdated': 'read',
  'Subscription.sessionUpdated': 'read',
  'Subscription.executionUpdated': 'read',
  'Subscription.safetyEvents': null,
  // Nested fields that reach other records.
  'Session.tasks': 'read',
  'Task.session': 'read',
};

export interface GraphqlContext {
  principal?: Principal | null;
}

/** The caller, checked for the scope `field` needs; a `forbidden` (or `unauthorized`) problem otherwise. */
export function need(ctx: GraphqlContext, field: string): Principal {
  const scope = GRAPHQL_SCOPES[field];
  if (scope === undefined) throw new Error(`${field} has no scope in GRAPHQL_SCOPES`);
  const p = ctx.principal;
  if (!p) throw new ProblemError('unauthorized', 'this request needs a bearer token');
  if (scope !== null && !p.scopes.includes(scope))
    throw new ProblemError('forbidden', `${field} needs the scope ${scope}`, { requiredScope: [scope] });
  return p;
}

const recipe: AjvRecipe = { options: { allErrors: true, strict: false }, formats: true };
// Loaded on the first check (not when this module is imported).
let ajv: ReturnType<typeof ajvFor> | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

/** GraphQL gives explicit nulls for optional fields a client set to null; REST bodies leave them out. */
export function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>)
        .filter(([, x]) => x !== null && x !== undefined)
        .map(([k, x]) => [k, dropNulls(x)]),
    );
  return v;
}

/** `value` (nulls dropped) checked against a REST body schema: the value, or a 422-type `validation-failed` problem. */
export function checked<T>(schema: object, value: unknown, what: string): T {
  let check = compiled.get(schema);
  if (!check) {
    check = validatorOf(recipe, schema, () => {
      ajv ??= ajvFor(recipe);
      return ajv;
    });
    compiled.set(schema, check);
  }
  const v = dropNulls(value);
  if (!check(v)) {
    const errors = validationErrors(check.errors ?? [], what);
    const first = errors[0];
    throw new ProblemError('validation-failed', first ? `${what} ${first.pointer || '/'}: ${first.message}` : `${what} failed validation`, {
      errors,
    });
  }
  return v as T;
}
