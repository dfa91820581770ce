/**
 * What serving HTTP GraphQL without mercurius costs in CPU (`npm run bench -- graphql --cpu`), in process: the hub's
 * schema with trivial resolvers served two ways on the same documents, alternating rounds: platform/graphql/http.ts
 * (its few kept documents) against what the hub did before after its outer route, `inject` into an inner Fastify
 * with mercurius (its LRU of 1,024). The same text every time (both keep it), and a new text every time (neither
 * can). The floor is the mercurius path; the figure is the ratio, with the load average beside it.
 */
import { loadavg } from 'node:os';
import Fastify from 'fastify';
import mercurius from 'mercurius';
import { buildEngine } from '../platform/graphql/engine.js';
import { serveGraphqlHttp } from '../platform/graphql/http.js';
import { limitsRule } from '../platform/graphql/limits.js';
import { HUB_SCHEMA } from '../runtime/graphql/schema.js';

/** The same text on every request (both ways keep it), or a new text each time (`%` becomes a counter: both miss). */
const DOCS = {
  'a small query': '{ mode { mode } }',
  'two lists and an object': '{ sessions { id state mode serveAt } tasks { id state kind } mode { mode } }',
  'a new text each time': '{ m%: mode { mode } }',
};

const sessions = Array.from({ length: 10 }, (_, i) => ({
  id: `ses-${i}`,
  state: 'planned',
  mode: 'assisted',
  serveAt: '2026-06-01T19:00:00Z',
  recipes: [{ recipeId: 'r', servings: 2, hash: 'h' }],
}));
const resolvers = {
  Query: { mode: () => ({ mode: 'normal' }), sessions: () => sessions, tasks: () => [] },
};

export async function runCpu(rounds: number): Promise<void> {
  const engine = buildEngine({ sdl: HUB_SCHEMA, resolvers, rules: [limitsRule()], context: () => ({}), base: () => 'http://hub' });
  const inner = Fastify({ logger: false });
  await inner.register(mercurius, {
    schema: HUB_SCHEMA,
    resolvers: resolvers as never,
    path: '/g',
    graphiql: false,
    validationRules: [limitsRule()],
  });
  await inner.ready();
  const load = () => loadavg()[0]?.toFixed(1);
  console.log(`HTTP GraphQL CPU per request, ${rounds} rounds of 2,000 requests each way; load average ${load()} before`);
  for (const [name, query] of Object.entries(DOCS)) {
    const direct = async () => (await serveGraphqlHttp(engine, 'POST', { query }, undefined)).body;
    const viaMercurius = async () =>
      (
        await inner.inject({
          method: 'POST',
          url: '/g',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ query }),
        })
      ).body;
    if ((await direct()) !== (await viaMercurius()))
      throw new Error(`${name}: the two answers differ: ${await direct()} ${await viaMercurius()}`);
    const us: Record<'direct' | 'mercurius', number[]> = { direct: [], mercurius: [] };
    for (let r = 0; r < rounds; r++)
      for (const [way, fn] of [
        ['mercurius', viaMercurius],
        ['direct', direct],
      ] as const) {
        const t0 = process.cpuUsage();
        for (let i = 0; i < 2000; i++) await fn();
        const d = process.cpuUsage(t0);
        us[way].push((d.user + d.system) / 2000);
      }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0;
    const [m, d] = [med(us.mercurius), med(us.direct)];
    console.log(
      `${name}: graphql-js (http.ts) ${d.toFixed(1)} µs; inject + mercurius with its LRU (floor) ${m.toFixed(1)} µs; ${(d / m).toFixed(2)}× the floor`,
    );
  }
  console.log(`load average ${load()} after`);
  await inner.close();
}
