/**
 * A surface's GraphQL engine (platform/graphql/http.ts): its schema built once from SDL with the resolvers attached
 * as mercurius attached them (a field's `resolve`, a subscription field's `subscribe` and `resolve`, a scalar's
 * functions), checked as mercurius checked it when ready. HTTP and the subscriptions' inner mercurius share it.
 */
import { buildSchema, GraphQLObjectType, GraphQLScalarType, type ValidationRule, validateSchema } from 'graphql';
import type { GraphqlEngine } from './http.js';

type Fn = (...args: never[]) => unknown;
/** Type name → field → resolver (or `{subscribe, resolve}`); a scalar's name → a GraphQLScalarType. */
export type Resolvers = Record<string, Record<string, Fn | Record<string, Fn>> | GraphQLScalarType>;

export interface EngineOptions {
  sdl: string;
  resolvers: Resolvers;
  rules: readonly ValidationRule[];
  context(data: unknown): object;
  base(data: unknown): string;
}

export function buildEngine(o: EngineOptions): GraphqlEngine {
  const schema = buildSchema(o.sdl);
  for (const [name, r] of Object.entries(o.resolvers)) {
    const type = schema.getType(name);
    if (type instanceof GraphQLScalarType && r instanceof GraphQLScalarType) {
      // Every own member, as mercurius copied them (its description too, which introspection shows).
      Object.assign(type, Object.fromEntries(Object.keys(r).map((k) => [k, r[k as keyof GraphQLScalarType]])));
    } else if (type instanceof GraphQLObjectType && !(r instanceof GraphQLScalarType)) {
      const fields = type.getFields();
      for (const [prop, fn] of Object.entries(r)) {
        const field = fields[prop];
        if (!field) throw new Error(`Cannot find field ${prop} of type ${name}`);
        if (typeof fn === 'function') field.resolve = fn as never;
        else {
          field.subscribe = fn.subscribe as never;
          field.resolve = fn.resolve as never;
        }
      }
    } else throw new Error(`Cannot attach resolvers to type ${name}`);
  }
  const [invalid] = validateSchema(schema);
  if (invalid) throw invalid;
  return { schema, rules: o.rules, context: o.context, base: o.base };
}
