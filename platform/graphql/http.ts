/**
 * GraphQL over HTTP straight through graphql-js: parse, validate (graphql's rules and the surface's, such as the
 * depth and cost limits), check the variables, execute, and write the answer, with no inner Fastify and no
 * mercurius. mercurius kept up to 1,024 parsed documents and 1,024 refused ones, each with its tokens: ~17 MB of
 * heap for 1,000 distinct query texts (docs/performance.md "GraphQL's footprint"). Validating costs ~0.2 ms of CPU
 * even for a small document, so documents that passed are kept too, but few: see `Documents`.
 *
 * What a client sees is what mercurius 16 answered (platform/graphql/http.test.ts compares the two byte for byte):
 * - the request's members are checked as mercurius' route schemas checked them (with Fastify's type coercion):
 *   a wrong one is 400 `body/<member> must be …`; a GET's `variables` and `extensions` are JSON text;
 * - a document that is not GraphQL is tried as a JSON document AST, as mercurius did;
 * - validation errors are 400 when there is one, 200 when there are several (mercurius' default formatter);
 *   a variable that does not fit is 400 when `variables` was sent; a GET may only run a query (405);
 * - answers with status 2xx are written as mercurius' response schema wrote them: an error's `message`,
 *   `locations`, `path` (its items as strings) and `extensions`, nothing else; other answers as JSON.stringify;
 * - every error whose `extensions` names a problem slug but no `type` gets the surface's problem type.
 */
import {
  type DocumentNode,
  type ExecutionResult,
  execute,
  GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  type OperationDefinitionNode,
  parse,
  specifiedRules,
  type ValidationRule,
  validate,
} from 'graphql';
import { buildExecutionContext } from 'graphql/execution/execute.js';

/** What a surface serves: its schema (resolvers attached), its extra validation rules, its problem base URL. */
export interface GraphqlEngine {
  schema: GraphQLSchema;
  rules: readonly ValidationRule[];
  /** The context resolvers see for the value `admit` returned for the request. */
  context(data: unknown): object;
  /** The base URL of problem types for that request. */
  base(data: unknown): string;
}

export interface GraphqlHttpAnswer {
  status: number;
  /** The JSON text of the answer (`application/json; charset=utf-8`). */
  body: string;
}

/** An error carrying several (mercurius' `MER_ERR_GQL_VALIDATION` and its kin) and a status. */
class RequestError extends Error {
  constructor(
    message: string,
    readonly statusCode: number,
    readonly errors?: readonly Error[],
  ) {
    super(message);
  }
}
const invalid = (errors: readonly Error[]) => new RequestError('Graphql validation error', 400, errors);

/**
 * Documents that passed validation, by their text, the least recently used dropped first: at most 64 of them and
 * 16,384 characters of text in all, and none over 4,096 characters. A parsed document keeps its tokens, ~100 bytes
 * of heap a character, so this holds ~2 MB at most, however varied the texts a client sends.
 */
class Documents {
  static readonly ENTRIES = 64;
  static readonly CHARS = 16_384;
  static readonly ONE = 4_096;
  private readonly map = new Map<string, DocumentNode>();
  private chars = 0;
  get(source: string): DocumentNode | undefined {
    const doc = this.map.get(source);
    if (doc) {
      this.map.delete(source);
      this.map.set(source, doc);
    }
    return doc;
  }
  set(source: string, doc: DocumentNode): void {
    if (source.length > Documents.ONE || this.map.has(source)) return;
    this.map.set(source, doc);
    this.chars += source.length;
    for (const key of this.map.keys()) {
      if (this.map.size <= Documents.ENTRIES && this.chars <= Documents.CHARS) break;
      this.map.delete(key);
      this.chars -= key.length;
    }
  }
  get size() {
    return { entries: this.map.size, chars: this.chars };
  }
}
const documents = new WeakMap<GraphqlEngine, Documents>();

/** The documents kept for an engine (tests). */
export const keptDocuments = (e: GraphqlEngine) => documents.get(e)?.size ?? { entries: 0, chars: 0 };

type Members = Record<string, unknown>;
const TYPES: Record<string, string> = {
  persisted: 'boolean',
  operationName: 'string,null',
  variables: 'object,null',
  extensions: 'object',
};

/** Check and coerce the members as Fastify's ajv did with mercurius' body schema (coerceTypes: 'array'). */
function checkBody(body: Members): Error | undefined {
  for (const key of ['persisted', 'operationName', 'variables', 'extensions']) {
    if (!(key in body) || body[key] === undefined) continue;
    let v = body[key];
    // An array of one is unwrapped where ajv did (a boolean, or a number or boolean made a string).
    const [first] = Array.isArray(v) && v.length === 1 ? v : [];
    if (key === 'persisted' && first !== undefined) v = first;
    else if (key === 'operationName' && (typeof first === 'number' || typeof first === 'boolean' || first === null)) v = first ?? '';
    const t = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
    let out: unknown;
    let ok = false;
    if (key === 'persisted') {
      if (t === 'boolean') [out, ok] = [v, true];
      else if (v === 'true' || v === 1) [out, ok] = [true, true];
      else if (v === 'false' || v === 0 || v === null) [out, ok] = [false, true];
    } else if (key === 'operationName') {
      if (t === 'string' || t === 'null') [out, ok] = [v, true];
      else if (t === 'number' || t === 'boolean') [out, ok] = [String(v), true];
    } else if (key === 'variables') {
      if (t === 'object' || t === 'null') [out, ok] = [v, true];
      else if (v === '' || v === 0 || v === false) [out, ok] = [null, true];
    } else if (t === 'object') [out, ok] = [v, true];
    if (!ok) return new Error(`body/${key} must be ${TYPES[key]}`);
    body[key] = out;
  }
  return undefined;
}

/** A GET's members: strings, `persisted` a boolean as text. */
function checkQuerystring(q: Members): Error | undefined {
  for (const key of ['query', 'persisted', 'operationName', 'variables', 'extensions']) {
    const v = q[key];
    if (v === undefined) continue;
    if (key === 'persisted') {
      if (v === 'true' || v === 'false') q[key] = v === 'true';
      else return new Error('querystring/persisted must be boolean');
    } else if (typeof v !== 'string') return new Error(`querystring/${key} must be ${key === 'operationName' ? 'string,null' : 'string'}`);
  }
  return undefined;
}

/** Refuse what secure-json-parse refused (mercurius' JSON reader): a `__proto__` member or a `constructor.prototype`. */
function noPrototypeMembers(value: unknown, message = 'Object contains forbidden prototype property'): void {
  const todo = [value];
  while (todo.length > 0) {
    const node = todo.pop();
    if (node === null || typeof node !== 'object') continue;
    const own = (k: string) => Object.hasOwn(node, k);
    const ctor = (node as Members).constructor;
    if (own('__proto__') || (own('constructor') && ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype')))
      throw new RequestError(message, 400);
    for (const k in node) todo.push((node as Members)[k]);
  }
}

/** A GET's JSON member (`variables`, `extensions`) as mercurius read it. */
function jsonMember(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    throw new RequestError((err as Error).message, 400);
  }
  noPrototypeMembers(value);
  return value;
}

/** Any error as a GraphQLError, keeping what it carried (mercurius' `toGraphQLError`). */
function toGraphQLError(err: unknown): GraphQLError {
  if (err instanceof GraphQLError) return err;
  const e = err as Error & { extensions?: Record<string, unknown>; locations?: GraphQLError['locations'] };
  const out = new GraphQLError(String(e?.message), {
    originalError: e instanceof Error ? e : null,
    ...(e?.extensions ? { extensions: e.extensions } : {}),
  });
  (out as { locations: unknown }).locations = e?.locations;
  return out;
}

interface Formatted {
  status: number;
  data: unknown;
  errors: ReturnType<GraphQLError['toJSON']>[];
}

/** mercurius' default error formatter, then the problem `type` of every error that names a slug. */
function formatErrors(data: unknown, errors: readonly GraphQLError[], base: string): Formatted {
  const flat = errors.flatMap((e) => {
    const inner = (e.originalError as RequestError | undefined)?.errors;
    return Array.isArray(inner) ? inner.map(toGraphQLError) : [e];
  });
  const out = flat.map((e) => e.toJSON());
  let status = 200;
  if (!data && out.length === 1) {
    const code = (errors[0]?.originalError as { statusCode?: unknown } | undefined)?.statusCode;
    if (typeof code === 'number') status = code;
  }
  const b = base.replace(/\/+$/, '');
  for (const e of out) {
    const ext = e.extensions as Record<string, unknown> | undefined;
    if (ext && typeof ext.slug === 'string' && ext.type === undefined) ext.type = `${b}/errors/${ext.slug}`;
  }
  return { status, data: data || null, errors: out };
}

const str = (v: unknown) => JSON.stringify(typeof v === 'string' ? v : String(v));

/** A 2xx answer as mercurius' response schema wrote it (fast-json-stringify): known members only, path items as strings. */
function write2xx(r: { data?: unknown; errors?: Formatted['errors'] }): string {
  const parts: string[] = [];
  if (r.data !== undefined) parts.push(`"data":${JSON.stringify(r.data)}`);
  if (r.errors !== undefined) {
    const errors = r.errors.map((e) => {
      const f = [`"message":${str(e.message)}`];
      if (e.locations !== undefined)
        f.push(`"locations":[${e.locations.map((l) => `{"line":${Math.trunc(l.line)},"column":${Math.trunc(l.column)}}`).join(',')}]`);
      if (e.path !== undefined) f.push(`"path":[${e.path.map(str).join(',')}]`);
      if (e.extensions !== undefined) {
        const { code, ...rest } = e.extensions as Record<string, unknown>;
        const x = JSON.stringify(rest);
        f.push(`"extensions":${code === undefined ? x : `{"code":${str(code)}${x === '{}' ? '}' : `,${x.slice(1)}`}`}`);
      }
      return `{${f.join(',')}}`;
    });
    parts.push(`"errors":[${errors.join(',')}]`);
  }
  return `{${parts.join(',')}}`;
}

const answer = (status: number, r: { data?: unknown; errors?: Formatted['errors'] }): GraphqlHttpAnswer => ({
  status,
  body: status >= 200 && status < 300 ? write2xx(r) : JSON.stringify(r),
});

/** Run one operation (mercurius' `fastifyGraphQl` without its caches, hooks, loaders and JIT). */
async function run(e: GraphqlEngine, source: string, variables: unknown, operationName: unknown, get: boolean, data: unknown) {
  const kept = documents.get(e) ?? new Documents();
  documents.set(e, kept);
  let document = kept.get(source);
  if (!document) {
    let parsed = true;
    try {
      document = parse(source);
    } catch (syntaxError) {
      try {
        document = JSON.parse(source) as DocumentNode; // a document AST sent as JSON text, as mercurius accepted
        parsed = false;
      } catch {
        throw invalid([syntaxError as Error]);
      }
    }
    const errors = validate(e.schema, document, [...specifiedRules, ...e.rules], {});
    if (errors.length > 0) throw invalid(errors);
    if (parsed) kept.set(source, document);
  }
  const name = (operationName ?? undefined) as string | undefined;
  // A GET names an operation of the document or has one (else a TypeError's message, 200, as mercurius answered).
  if (get && (getOperationAST(document, name) as OperationDefinitionNode).operation !== 'query')
    throw new RequestError('Method not allowed', 405, [new Error('Operation cannot be performed via a GET request')]);
  const contextValue = e.context(data);
  const args = {
    schema: e.schema,
    document,
    rootValue: {},
    contextValue,
    variableValues: variables as Record<string, unknown>,
    operationName: name,
  };
  if (variables !== undefined) {
    const ctx = buildExecutionContext(args);
    if (Array.isArray(ctx)) throw invalid(ctx);
  }
  return (await execute(args)) as ExecutionResult;
}

/**
 * Answer one GraphQL request: a POST's parsed JSON body (an object with a query string; the mount checked that),
 * or a GET's query string members. `data` is what the surface's `admit` returned for it.
 */
export async function serveGraphqlHttp(
  e: GraphqlEngine,
  method: 'GET' | 'POST',
  members: Members,
  data: unknown,
): Promise<GraphqlHttpAnswer> {
  const base = () => e.base(data);
  try {
    // mercurius' Fastify read a POST's body again with secure-json-parse; the hub's reader keeps such members.
    if (method === 'POST') noPrototypeMembers(members, "Body is not valid JSON but content-type is set to 'application/json'");
    const m = { ...members };
    const bad = method === 'GET' ? checkQuerystring(m) : checkBody(m);
    if (bad) throw invalid([bad]);
    if (method === 'GET') {
      if (typeof m.variables === 'string' && m.variables !== '') m.variables = jsonMember(m.variables);
      if (typeof m.extensions === 'string' && m.extensions !== '') m.extensions = jsonMember(m.extensions);
    }
    if (!m.query) throw new RequestError('Unknown query', 400);
    const result = await run(e, String(m.query), m.variables, m.operationName, method === 'GET', data);
    if (!result.errors) return answer(200, { data: result.data });
    const f = formatErrors(result.data, result.errors, base());
    // graphql-js' result has its errors first, and mercurius replaced both in place.
    return answer(f.status, f.status >= 300 ? { errors: f.errors, data: f.data } : { data: f.data, errors: f.errors });
  } catch (err) {
    const f = formatErrors(undefined, [toGraphQLError(err)], base());
    return answer(f.status, { data: f.data, errors: f.errors });
  }
}
