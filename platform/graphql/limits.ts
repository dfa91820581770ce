/**
 * Depth and cost limits for GraphQL operations, as a graphql-js validation rule (platform/graphql/http.ts runs it
 * on every query and mutation over HTTP, mercurius over WebSocket; the hub checks it again before a subscription
 * starts).
 *
 * - depth: how deeply fields nest (`search { edges { node { title } } }` is 4);
 * - cost: every field costs 1, times how many times it can be resolved: a list field multiplies what it
 *   selects by its `first`/`limit` argument when given as a literal, else by `DEFAULT_LIST_SIZE`.
 *
 * An operation over either limit is refused before anything runs, with the problem slug `query-too-complex`
 * in `extensions`, the measure, the limit and what the operation needs.
 */
import {
  type ASTVisitor,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  GraphQLError,
  type GraphQLOutputType,
  getNamedType,
  isCompositeType,
  isListType,
  isNonNullType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';
import { problemCatalog } from '../../core/problems.js';

export interface QueryLimits {
  maxDepth: number;
  maxCost: number;
}

export const DEFAULT_LIMITS: QueryLimits = { maxDepth: 8, maxCost: 5000 };
/** What a list field is taken to return when the operation does not say (`first`/`limit` as a literal). */
export const DEFAULT_LIST_SIZE = 50;
const SIZE_ARGS = new Set(['first', 'limit']);

function isList(type: GraphQLOutputType): boolean {
  return isListType(isNonNullType(type) ? type.ofType : type);
}

interface Measure {
  depth: number;
  cost: number;
}

/** Depth and cost of a selection set on `parent`; fragments are followed once per path (cycles are another rule's job). */
function measure(
  set: SelectionSetNode,
  parent: GraphQLCompositeType,
  fragments: (name: string) => FragmentDefinitionNode | undefined,
  ctx: ValidationContext,
  seen: ReadonlySet<string>,
): Measure {
  let depth = 0;
  let cost = 0;
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) {
      if (sel.name.value.startsWith('__')) continue;
      const fields = 'getFields' in parent ? parent.getFields() : {};
      const def = fields[sel.name.value];
      if (!def) continue;
      let size = 1;
      if (isList(def.type)) {
        size = DEFAULT_LIST_SIZE;
        for (const arg of sel.arguments ?? []) {
          if (SIZE_ARGS.has(arg.name.value) && arg.value.kind === Kind.INT) size = Math.max(1, Number(arg.value.value));
        }
      }
      const named = getNamedType(def.type);
      const inner =
        sel.selectionSet && isCompositeType(named) ? measure(sel.selectionSet, named, fragments, ctx, seen) : { depth: 0, cost: 0 };
      depth = Math.max(depth, 1 + inner.depth);
      cost += size * (1 + inner.cost);
    } else {
      let target: GraphQLCompositeType = parent;
      let inner: SelectionSetNode | undefined;
      if (sel.kind === Kind.INLINE_FRAGMENT) {
        inner = sel.selectionSet;
        const cond = sel.typeCondition ? ctx.getSchema().getType(sel.typeCondition.name.value) : undefined;
        if (cond && isCompositeType(cond)) target = cond;
        const m = measure(inner, target, fragments, ctx, seen);
        depth = Math.max(depth, m.depth);
        cost += m.cost;
      } else {
        const name = sel.name.value;
        const frag = fragments(name);
        if (!frag || seen.has(name)) continue;
        const cond = ctx.getSchema().getType(frag.typeCondition.name.value);
        if (cond && isCompositeType(cond)) target = cond;
        const m = measure(frag.selectionSet, target, fragments, ctx, new Set([...seen, name]));
        depth = Math.max(depth, m.depth);
        cost += m.cost;
      }
    }
  }
  return { depth, cost };
}

/** The `extensions` of a refusal: the problem slug, status and title, plus what was measured. */
export function limitError(what: 'depth' | 'cost', limit: number, actual: number, node?: OperationDefinitionNode): GraphQLError {
  const entry = problemCatalog['query-too-complex'];
  const detail =
    what === 'depth'
      ? `the operation nests ${actual} fields deep; at most ${limit} are allowed`
      : `the operation may resolve ${actual} fields; at most ${limit} are allowed (ask for fewer items with first/limit)`;
  return new GraphQLError(detail, {
    ...(node ? { nodes: [node] } : {}),
    extensions: { slug: 'query-too-complex', status: entry.status, title: entry.title, detail, measure: what, limit, actual },
  });
}

/** Measure one operation against the limits: the first refusal, or undefined. */
export function operationLimitError(ctx: ValidationContext, op: OperationDefinitionNode, limits: QueryLimits): GraphQLError | undefined {
  const schema = ctx.getSchema();
  const root =
    op.operation === 'query'
      ? schema.getQueryType()
      : op.operation === 'mutation'
        ? schema.getMutationType()
        : schema.getSubscriptionType();
  if (!root) return undefined;
  const m = measure(op.selectionSet, root, (name) => ctx.getFragment(name) ?? undefined, ctx, new Set());
  if (m.depth > limits.maxDepth) return limitError('depth', limits.maxDepth, m.depth, op);
  if (m.cost > limits.maxCost) return limitError('cost', limits.maxCost, m.cost, op);
  return undefined;
}

/** The validation rule (an engine's `rules`, mercurius' `validationRules`). */
export function limitsRule(limits: QueryLimits = DEFAULT_LIMITS) {
  return (ctx: ValidationContext): ASTVisitor => ({
    OperationDefinition(op) {
      const err = operationLimitError(ctx, op, limits);
      if (err) ctx.reportError(err);
    },
  });
}
