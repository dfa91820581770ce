/**
 * The `parts` probe of bench/graphql-footprint.ts, run compiled in a fresh process with no hub: what each part of the
 * GraphQL stack adds: graphql-js with the hub's schema serving HTTP as platform/graphql/http.ts does (one query,
 * then 1,000 distinct ones), then mercurius with its inner Fastify as platform/graphql/mount.ts built it for every
 * request before (one query, 1,000 distinct ones: its LRU of documents). It prints the readings as one JSON line.
 */
import { keepYoungGenerationSmall } from '../platform/young-generation.js';
import { type Reading, reader } from './graphql-footprint.js';

keepYoungGenerationSmall(); // as hearth start does, so the young generation's growth is not counted as GraphQL's
const read = reader();
const readings: Reading[] = [];
const settle = async () => {
  await new Promise((r) => setTimeout(r, 200));
  readings.push(read());
};

const { default: Fastify } = await import('fastify');
const { default: websocket } = await import('@fastify/websocket');
await import('ws');
const outer = Fastify({ logger: false });
await outer.register(websocket);
await outer.ready();
await settle();

const graphql = await import('graphql');
await settle();

const { HUB_SCHEMA } = await import('../runtime/graphql/schema.js');
const schema = graphql.buildSchema(HUB_SCHEMA);
if (graphql.validateSchema(schema).length > 0) throw new Error('invalid schema');
await settle();

const { serveGraphqlHttp } = await import('../platform/graphql/http.js');
const { limitsRule } = await import('../platform/graphql/limits.js');
const engine = { schema, rules: [limitsRule()], context: () => ({}), base: () => 'http://hub' };
(schema.getQueryType()?.getFields().mode ?? { resolve: undefined }).resolve = () => ({ mode: 'normal' });
const direct = (query: string) => serveGraphqlHttp(engine, 'POST', { query }, undefined);
if (!(await direct('{ mode { mode } }')).body.includes('normal')) throw new Error('no answer');
await settle();

for (let i = 0; i < 1000; i++) await direct(i % 5 === 4 ? `{ nope${i} { id } }` : `{ m${i}: mode { mode } t${i}: __typename }`);
await settle();

// What a graphql-ws server of our own would load instead of mercurius (graphql-ws' own server and its ws adapter).
const { makeServer } = await import('graphql-ws');
await import('graphql-ws/use/ws');
makeServer({ schema });
await settle();

const { default: mercurius } = await import('mercurius');
await settle();

const inner = Fastify({ logger: false });
await inner.register(websocket, { options: { maxPayload: 64 * 1024 } });
await inner.register(mercurius, {
  schema: HUB_SCHEMA,
  resolvers: { Query: { mode: () => ({ mode: 'normal' }) } } as never,
  path: '/svc/v1/graphql',
  graphiql: false,
  subscription: { keepAlive: 15_000 },
});
await inner.ready();
await settle();

const post = (query: string) =>
  inner.inject({
    method: 'POST',
    url: '/svc/v1/graphql',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ query }),
  });
if (!(await post('{ mode { mode } }')).body.includes('normal')) throw new Error('no answer');
await settle();

for (let i = 0; i < 1000; i++) await post(i % 5 === 4 ? `{ nope${i} { id } }` : `{ m${i}: mode { mode } t${i}: __typename }`);
await settle();

console.log(JSON.stringify(readings));
await inner.close();
await outer.close();
process.exit(0);
