/**
 * An emergency stop over GraphQL never waits on the lazy load of GraphQL (platform/graphql/mount.ts): while
 * GraphQL is not loaded yet, a POST whose document is an `emergencyStop` mutation is recognised with graphql's
 * own `parse` (only its parser module is imported, a small part of graphql-js) and run directly through the same
 * e-stop service as the resolver (estop.ts), with the answer GraphQL would give (the selected fields, aliases,
 * `__typename`).
 *
 * Recognised: one mutation operation (the one `operationName` names, or the only one) whose selection is the
 * single field `emergencyStop`, with at most a `reason` argument (a string literal, `null`, or a variable
 * declared `String`/`String!`), selecting fields of EmergencyStopResult, SafetyStatus and HeaterPower, with no
 * fragments or directives. Anything else (including an invalid document) goes to GraphQL as before, which
 * answers it exactly as it always did.
 */
import type { FieldNode, OperationDefinitionNode, SelectionSetNode, ValueNode } from 'graphql';
import type { Principal } from '../../platform/http/auth.js';
import { emergencyStopResult, type StopDeps } from './estop.js';

type Shape = { [field: string]: string | null };
/** The result types and their fields: a field's object type, or null for a scalar (JSON included). Kept equal to schema.ts by estop-direct.test.ts. */
export const STOP_TYPES: Record<string, Shape> = {
  EmergencyStopResult: { accepted: null, action: null, reason: null, warnings: null, safety: 'SafetyStatus', trip: null },
  SafetyStatus: { latched: null, trip: null, hint: null, heaters: 'HeaterPower' },
  HeaterPower: { id: null, power: null },
};

/** The value of a field as its resolver gives it (SafetyStatus.heaters is a list, as resolvers.ts maps it). */
function fieldValue(type: string, field: string, parent: Record<string, unknown>): unknown {
  if (type === 'SafetyStatus' && field === 'heaters') {
    const heaters = (parent.heaters ?? {}) as Record<string, { power: number }>;
    return Object.entries(heaters).map(([id, h]) => ({ id, power: h.power }));
  }
  return parent[field] ?? null;
}

/** True when the selection set only has plain fields of `type` (recursively), without arguments, fragments or directives. */
function plain(set: SelectionSetNode | undefined, type: string): boolean {
  const shape = STOP_TYPES[type];
  if (!set || !shape) return false;
  return set.selections.every((s) => {
    if (s.kind !== 'Field' || (s.directives?.length ?? 0) > 0 || (s.arguments?.length ?? 0) > 0) return false;
    if (s.name.value === '__typename') return !s.selectionSet;
    if (!(s.name.value in shape)) return false;
    const child = shape[s.name.value];
    return child ? plain(s.selectionSet, child) : !s.selectionSet;
  });
}

function project(value: unknown, set: SelectionSetNode, type: string): unknown {
  if (Array.isArray(value)) return value.map((v) => project(v, set, type));
  if (value === null || typeof value !== 'object') return null;
  const out: Record<string, unknown> = {};
  for (const s of set.selections as readonly FieldNode[]) {
    const key = s.alias?.value ?? s.name.value;
    if (s.name.value === '__typename') {
      out[key] = type;
      continue;
    }
    const child = STOP_TYPES[type]?.[s.name.value];
    const v = fieldValue(type, s.name.value, value as Record<string, unknown>);
    out[key] = child && s.selectionSet ? project(v, s.selectionSet, child) : v;
  }
  return out;
}

/** The reason argument's value, or `false` when it is not one this path takes. */
function reasonArg(field: FieldNode, op: OperationDefinitionNode, variables: Record<string, unknown>): unknown {
  const args = field.arguments ?? [];
  if (args.length === 0) return undefined;
  const [arg] = args;
  if (args.length > 1 || !arg || arg.name.value !== 'reason') return false;
  const v: ValueNode = arg.value;
  if (v.kind === 'StringValue') return v.value;
  if (v.kind === 'NullValue') return null;
  if (v.kind !== 'Variable') return false;
  const def = op.variableDefinitions?.find((d) => d.variable.name.value === v.name.value);
  const named = def?.type.kind === 'NonNullType' ? def.type.type : def?.type;
  if (!def || named?.kind !== 'NamedType' || named.name.value !== 'String' || def.defaultValue || (def.directives?.length ?? 0) > 0)
    return false;
  const given = variables[v.name.value];
  if (given === undefined || given === null) return def.type.kind === 'NonNullType' ? false : given;
  return typeof given === 'string' ? given : false;
}

type Parse = (source: string) => import('graphql').DocumentNode;
let parser: Promise<Parse> | undefined;

/**
 * Run `body` directly when it is an emergency stop this path recognises; its GraphQL answer, or undefined to
 * hand the request to GraphQL.
 */
export async function directEmergencyStop(d: StopDeps, body: unknown, principal: Principal): Promise<object | undefined> {
  if (body === null || typeof body !== 'object') return undefined;
  const { query, operationName, variables } = body as { query?: unknown; operationName?: unknown; variables?: unknown };
  if (typeof query !== 'string' || !query.includes('emergencyStop')) return undefined;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return undefined;
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) return undefined;
  parser ??= import('graphql/language/parser.js').then((m) => m.parse as Parse);
  let doc: import('graphql').DocumentNode;
  try {
    doc = (await parser)(query);
  } catch {
    return undefined; // not a document: GraphQL answers the syntax error
  }
  if (doc.definitions.some((def) => def.kind !== 'OperationDefinition')) return undefined;
  const ops = doc.definitions as readonly OperationDefinitionNode[];
  const op = typeof operationName === 'string' ? ops.find((o) => o.name?.value === operationName) : ops.length === 1 ? ops[0] : undefined;
  if (op?.operation !== 'mutation' || (op.directives?.length ?? 0) > 0) return undefined;
  const [field] = op.selectionSet.selections;
  if (op.selectionSet.selections.length !== 1 || !field || field.kind !== 'Field' || field.name.value !== 'emergencyStop') return undefined;
  if ((field.directives?.length ?? 0) > 0 || !plain(field.selectionSet, 'EmergencyStopResult') || !field.selectionSet) return undefined;
  // Every declared variable must be the one `reason` uses (GraphQL refuses unused ones).
  const used = field.arguments?.[0]?.value.kind === 'Variable' ? field.arguments[0].value.name.value : undefined;
  if ((op.variableDefinitions ?? []).some((def) => def.variable.name.value !== used)) return undefined;
  const reason = reasonArg(field, op, (variables ?? {}) as Record<string, unknown>);
  if (reason === false) return undefined;
  const result = emergencyStopResult(d, reason, principal);
  return { data: { [field.alias?.value ?? 'emergencyStop']: project(result, field.selectionSet, 'EmergencyStopResult') } };
}
