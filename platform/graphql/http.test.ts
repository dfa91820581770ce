/**
 * GraphQL over HTTP through graphql-js (http.ts) answers what mercurius 16 answered, byte for byte: the same
 * schema, resolvers, depth and cost limits and problem formatter served both ways (mercurius on a Fastify
 * instance, as platform/graphql/mount.ts served HTTP before), then a corpus of requests, good and bad (wrong
 * member types, syntax errors, one and several validation errors, limits, variables that do not fit, a GET
 * mutation, JSON text that is not JSON, a document AST as JSON, resolver refusals with their paths in lists),
 * compared on status and body.
 */
import Fastify from 'fastify';
import mercurius from 'mercurius';
import t from 'tap';
import { ProblemError } from '../http/problems.js';
import { buildEngine } from './engine.js';
import { problemErrorFormatter, withProblems } from './errors.js';
import { keptDocuments, serveGraphqlHttp } from './http.js';
import { limitsRule } from './limits.js';

const SDL = `
"Any value."
scalar JSON
type Item { id: ID! n: Int! tags: [String!]! secret: String doc: JSON }
type Query {
  items(first: Int): [Item!]!
  item(id: ID!): Item
  echo(text: String!, times: Int): String!
  broken: String
  strict: String!
  nested: [[Item]]
}
type Mutation { add(n: Int!): Item! }
`;

const items = [0, 1, 2].map((i) => ({ id: `i${i}`, n: i, tags: ['a', `t${i}`], doc: { k: [i, null, 'x'] } }));
const plain = {
  Query: {
    items: (_: unknown, a: { first?: number }) => items.slice(0, a.first ?? 3),
    item: (_: unknown, a: { id: string }) => {
      const it = items.find((x) => x.id === a.id);
      if (!it) throw new ProblemError('not-found', `no item ${a.id}`);
      return it;
    },
    echo: (_: unknown, a: { text: string; times?: number }) => a.text.repeat(a.times ?? 1),
    broken: () => {
      throw new Error('internal detail that must not leak');
    },
    strict: () => null,
    nested: () => [[items[0], null], [items[1]]],
  },
  Item: {
    secret: (it: { n: number }) => {
      if (it.n === 1) throw new ProblemError('forbidden', 'Item.secret needs the scope read', { requiredScope: ['read'] });
      return `s${it.n}`;
    },
  },
  Mutation: { add: (_: unknown, a: { n: number }) => ({ id: `new${a.n}`, n: a.n, tags: [] }) },
};
const BASE = 'http://hub.test';
const resolvers = () => withProblems(plain as unknown as Record<string, Record<string, never>>, () => BASE);
const Json = { name: 'JSON', description: 'Any JSON value.', serialize: (v: unknown) => v, parseValue: (v: unknown) => v };

async function mercuriusServer() {
  const app = Fastify({ logger: false });
  const { GraphQLScalarType } = await import('graphql');
  await app.register(mercurius, {
    schema: SDL,
    resolvers: { ...resolvers(), JSON: new GraphQLScalarType(Json) } as never,
    path: '/graphql',
    graphiql: false,
    validationRules: [limitsRule({ maxDepth: 4, maxCost: 200 })],
    errorFormatter: problemErrorFormatter(() => BASE, mercurius.defaultErrorFormatter),
  });
  await app.ready();
  return app;
}

type Ask = ['GET' | 'POST', Record<string, unknown>];
const q = (query: string, extra: Record<string, unknown> = {}): Ask => ['POST', { query, ...extra }];
const g = (query: string, extra: Record<string, string | string[]> = {}): Ask => ['GET', { query, ...extra }];

const CORPUS: Ask[] = [
  q('{ items { id n tags doc } }'),
  q('{ items(first: 2) { id secret } }'),
  q('{ nested { id secret } }'),
  q('query($id: ID!) { item(id: $id) { id } }', { variables: { id: 'nope' } }),
  q('{ broken }'),
  q('{ strict }'),
  q('{ strict broken }'),
  q('{ items { id'),
  q('{ nope }'),
  q('{ nope other }'),
  q('{ items { id } }', { operationName: 5 }),
  q('{ items { id } }', { operationName: true }),
  q('{ items { id } }', { operationName: ['x'] }),
  q('{ items { id } }', { operationName: { a: 1 } }),
  q('{ items { id } }', { variables: 'x' }),
  q('{ items { id } }', { variables: '' }),
  q('{ items { id } }', { variables: [] }),
  q('{ items { id } }', { variables: null }),
  q('{ items { id } }', { extensions: [] }),
  q('{ items { id } }', { extensions: null }),
  q('{ items { id } }', JSON.parse('{"variables":{"__proto__":{"a":1}}}')),
  q('{ items { id } }', JSON.parse('{"extensions":{"x":[{"constructor":{"prototype":{}}}]}}')),
  q('{ items { id } }', JSON.parse('{"variables":{"constructor":"not an object"}}')),
  q('{ items { id } }', { persisted: 'true' }),
  q('{ items { id } }', { persisted: 'maybe' }),
  q('{ items { id } }', { persisted: [true] }),
  q('{ items { id } }', { persisted: [1, 2] }),
  q('{ items { id } }', { persisted: 0 }),
  q('{ items { id } }', { persisted: null }),
  q('{ items { id } }', { operationName: [5] }),
  q('{ items { id } }', { operationName: [false] }),
  q('{ items { id } }', { operationName: [null] }),
  q('{ items { id } }', { operationName: [] }),
  q('{ items { id } }', { persisted: ['true'] }),
  q('{ items { id } }', { persisted: [] }),
  q('query A { items { id } } query B { item(id: "i0") { id } }'),
  q('query A { items { id } } query B { item(id: "i0") { id } }', { operationName: 'B' }),
  q('query A { items { id } } query B { item(id: "i0") { id } }', { operationName: 'C' }),
  q('query A { items { id } } query B { item(id: "i0") { id } }', { operationName: 'C', variables: {} }),
  q('query A { items { id } } query B { item(id: "i0") { id } }', { variables: {} }),
  q('query($t: String!) { echo(text: $t) }', { variables: {} }),
  q('query($t: String!) { echo(text: $t) }'),
  q('query($t: String!, $n: Int) { echo(text: $t, times: $n) }', { variables: { t: 'ab', n: 'two' } }),
  q('query($t: String!, $n: Int) { echo(text: $t, times: $n) }', { variables: { t: 'ab', n: 2 } }),
  q('{ items(first: 100) { id tags } }'),
  q('{ nested { id } a: items { id } b: items { id } c: items { id } d: items { id } }'),
  q('{ items { id } a: items(first: 90) { tags } }'),
  q('mutation { add(n: 3) { id n } }'),
  q('{ __type(name: "JSON") { name description } __typename }'),
  q(JSON.stringify({ kind: 'Document', definitions: [] })),
  q('42'),
  q('"text"'),
  q('[]'),
  g('{ items { id } }'),
  g('{ items(first: 100) { id tags } }'),
  g('{ __type(name: "Item") { fields { type { ofType { ofType { name } } } } } }'),
  g('mutation { add(n: 1) { id } }'),
  g('query A { items { id } } mutation B { add(n: 1) { id } }', { operationName: 'B' }),
  g('query A { items { id } }', { operationName: 'Z' }),
  g('query($t: String!) { echo(text: $t) }', { variables: '{"t":"hi"}' }),
  g('query($t: String!) { echo(text: $t) }', { variables: '{"t":' }),
  g('query($t: String!) { echo(text: $t) }', { variables: '{"__proto__":{"t":"x"}}' }),
  g('query($t: String!) { echo(text: $t) }', { variables: '{"constructor":{"prototype":{}}}' }),
  g('query($t: String!) { echo(text: $t) }', { variables: 'null' }),
  g('query($t: String!) { echo(text: $t) }', { variables: '' }),
  g('{ items { id } }', { extensions: 'nope' }),
  g('{ items { id } }', { persisted: 'true' }),
  g('{ items { id } }', { persisted: '1' }),
  g('{ items { id } }', { variables: ['a', 'b'] }),
  g('{ items { id } }', { operationName: ['a', 'b'] }),
];

t.test('graphql-js over HTTP answers every request of the corpus as mercurius did', async (t) => {
  const app = await mercuriusServer();
  t.teardown(() => app.close());
  const { GraphQLScalarType } = await import('graphql');
  const engine = buildEngine({
    sdl: SDL,
    resolvers: { ...resolvers(), JSON: new GraphQLScalarType(Json) },
    rules: [limitsRule({ maxDepth: 4, maxCost: 200 })],
    context: () => ({}),
    base: () => BASE,
  });
  let errorAnswers = 0;
  for (const [method, members] of CORPUS) {
    const label = `${method} ${JSON.stringify(members)}`;
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(members)) for (const x of [v].flat()) qs.append(k, String(x));
    const old = await app.inject(
      method === 'GET'
        ? { method, url: `/graphql?${qs}` }
        : { method, url: '/graphql', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(members) },
    );
    const now = await serveGraphqlHttp(engine, method, structuredClone(members), undefined);
    t.equal(now.status, old.statusCode, `${label}: status`);
    t.equal(now.body, old.body, `${label}: body`);
    const again = await serveGraphqlHttp(engine, method, structuredClone(members), undefined);
    t.same(again, now, `${label}: the same again (a kept document answers as a new one)`);
    if (old.body.includes('"errors"')) errorAnswers++;
  }
  t.ok(errorAnswers > 30, 'most of the corpus is refusals and errors, not only answers');
});

t.test("the surface's problem type is added to the limits' refusals, and no internal detail leaks", async (t) => {
  const engine = buildEngine({
    sdl: SDL,
    resolvers: resolvers(),
    rules: [limitsRule({ maxDepth: 4, maxCost: 200 })],
    context: () => ({}),
    base: (b) => String(b),
  });
  const refusedText = (await serveGraphqlHttp(engine, 'POST', { query: '{ items { id secret } }' }, 'http://x/')).body;
  t.match(refusedText, /"path":\["items","1","secret"\]/, 'path items as strings');
  const refused = JSON.parse((await serveGraphqlHttp(engine, 'POST', { query: '{ items { id secret } }' }, 'http://x/')).body);
  t.match(refused.errors[0], { path: ['items', '1', 'secret'], extensions: { slug: 'forbidden', type: `${BASE}/errors/forbidden` } });
  const costly = await serveGraphqlHttp(engine, 'POST', { query: '{ items(first: 100) { id tags } }' }, 'http://x/');
  t.equal(costly.status, 400);
  t.match(JSON.parse(costly.body).errors[0].extensions, { slug: 'query-too-complex', type: 'http://x/errors/query-too-complex' });
  const broken = await serveGraphqlHttp(engine, 'POST', { query: '{ broken }' }, 'http://x');
  t.notMatch(broken.body, /internal detail/);
  t.match(JSON.parse(broken.body).errors[0].extensions, { slug: 'internal-error' });
  t.equal((await serveGraphqlHttp(engine, 'POST', { query: '{ nope }' }, 'http://x')).status, 400, 'one validation error: 400');
  const two = await serveGraphqlHttp(engine, 'POST', { query: '{ nope other }' }, 'http://x');
  t.equal(two.status, 200, 'several validation errors: 200, as mercurius answered');
});

t.test('the documents kept between requests are bounded, however varied the texts', async (t) => {
  const engine = buildEngine({ sdl: SDL, resolvers: resolvers(), rules: [], context: () => ({}), base: () => BASE });
  for (let i = 0; i < 500; i++) {
    const res = await serveGraphqlHttp(
      engine,
      'POST',
      { query: `{ a${i}: items(first: ${1 + (i % 3)}) { id n } b${i}: echo(text: "${i}") }` },
      undefined,
    );
    t.equal(res.status, 200);
  }
  const kept = keptDocuments(engine);
  t.ok(kept.entries > 0 && kept.entries <= 64, `${kept.entries} documents kept, at most 64`);
  t.ok(kept.chars <= 16_384, `${kept.chars} characters kept, at most 16,384`);
  const long = `{ ${Array.from({ length: 400 }, (_, i) => `f${i}: echo(text: "x")`).join(' ')} }`;
  t.ok(long.length > 4096);
  const before = keptDocuments(engine);
  t.equal((await serveGraphqlHttp(engine, 'POST', { query: long }, undefined)).status, 200);
  t.same(keptDocuments(engine), before, 'a text over 4,096 characters is not kept');
  await serveGraphqlHttp(engine, 'POST', { query: '{ nope }' }, undefined);
  t.same(keptDocuments(engine), before, 'a refused document is not kept');
});
