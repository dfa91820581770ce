/**
 * GraphQL benchmarks (printed figures, never assertions), in process over real sockets on 127.0.0.1:
 * - the first GraphQL request (loads graphql-js, builds the schema; mercurius loads for the first subscription):
 *   what lazy loading moves out of `hearth start`;
 * - change → delivery: a task changes in the session service (`saveTask`, as a confirmation or an answer does)
 *   until the graphql-ws client holds the `taskUpdated` result, p50/p99 over 300 changes (target p99 < 100 ms);
 * - a query over HTTP (`{ sessions { id state } }`), p50/p99 over 200 requests.
 *
 * `--footprint` (after `npm run build`) measures what the surface keeps in memory instead (bench/graphql-footprint.ts);
 * `--rounds=N` (default 3), `--probe=hub|parts` and `--compare=DIR` (an older build's dist/ copied to DIR/dist inside
 * the tree, with package.json, examples/, schemas/ and runtime/dashboard/public linked beside it, alternated with
 * dist/; pass DIR/dist) with it. `--cpu` measures the CPU of serving a query without mercurius instead (bench/graphql-cpu.ts).
 */

import { wsClient } from '../runtime/graphql/test-helpers.js';
import { startHub } from '../runtime/hub/test-helpers.js';
import { summarize } from './stats.js';

function print(name: string, samples: number[], target: string): void {
  const s = summarize(samples);
  console.log(
    `${name}: p50 ${s.p50.toFixed(2)} ms / p99 ${s.p99.toFixed(2)} ms / max ${s.max.toFixed(2)} ms over ${s.n}   (target ${target})`,
  );
}

const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
if (process.argv.includes('--cpu')) {
  const { runCpu } = await import('./graphql-cpu.js');
  await runCpu(Number(flag('rounds') ?? 5));
  process.exit(0);
}
if (process.argv.includes('--footprint')) {
  const { runFootprint } = await import('./graphql-footprint.js');
  const probe = flag('probe');
  const builds = ['dist', ...(flag('compare') ? [flag('compare') as string] : [])];
  await runFootprint(Number(flag('rounds') ?? 3), probe === 'hub' || probe === 'parts' ? [probe] : ['hub', 'parts'], builds);
  process.exit(0);
}

const h = await startHub();
try {
  const token = h.token(['read', 'cook'], 'agent');
  const post = async (query: string, variables: Record<string, unknown> = {}) => {
    const res = await fetch(`${h.url}/svc/v1/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as { data?: Record<string, unknown> };
  };

  const t0 = performance.now();
  await post('{ mode { mode } }');
  console.log(`first GraphQL request (loads graphql-js, builds the schema): ${(performance.now() - t0).toFixed(0)} ms`);

  const svc = h.hub.sessions;
  const session = svc.create(
    { recipes: [{ recipeId: 'test-crispy-onions' }], serveAt: '2026-06-01T19:00:00Z', mode: 'assisted' },
    {
      id: 'tok_bench',
      name: 'bench',
      kind: 'agent',
      scopes: ['cook'],
    },
  );
  const task = svc.newTask({
    sessionId: session.id,
    kind: 'cooking_check',
    state: 'working',
    assignee: { id: 'household', kind: 'human' },
    message: { en: 'bench' },
  });

  const client = wsClient(h, token);
  const listening = h.app.ctx.bus.listenerCount('task.updated');
  let onResult: (() => void) | undefined;
  client.subscribe(
    {
      query: 'subscription($s: ID!) { taskUpdated(sessionId: $s) { id state assignee { id kind } message(lang: "en") } }',
      variables: { s: session.id },
    },
    { next: () => onResult?.(), error: (e) => console.error('subscription error', e), complete: () => {} },
  );
  const deadline = Date.now() + 30_000;
  while (h.app.ctx.bus.listenerCount('task.updated') === listening && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));

  const samples: number[] = [];
  for (let i = 0; i < 300; i++) {
    const got = new Promise<void>((resolve) => {
      onResult = resolve;
    });
    const start = performance.now();
    svc.saveTask(task, i % 2 === 0 ? 'input_required' : 'working');
    await got;
    samples.push(performance.now() - start);
  }
  print('taskUpdated change → graphql-ws delivery', samples, 'p99 < 100 ms');
  await client.dispose();

  const q: number[] = [];
  for (let i = 0; i < 200; i++) {
    const start = performance.now();
    await post('{ sessions { id state } }');
    q.push(performance.now() - start);
  }
  print('query { sessions { id state } } over HTTP', q, 'p99 < 50 ms');
} finally {
  await h.close();
}
