/**
 * What the GraphQL surface keeps in memory once used, for docs/performance.md ("GraphQL's footprint"). `npm run bench
 * -- graphql --footprint` (after `npm run build`) compiles this file and the hub's harness files beside dist/ (as
 * bench/surface-costs.ts does: tsx's loader would be counted otherwise) and runs, each in a fresh compiled process:
 *
 * - `hub`: a hub with every feature (test-support/fuzz-target.ts's); its memory after two forced GCs when up, after
 *   the first GraphQL query, after the first graphql-ws subscription, and after 1,000 mixed requests (distinct query
 *   texts, invalid documents, variables, GET, the e-stop's neighbours), each reading the difference to the one before;
 * - `parts`: no hub, the libraries one by one (Fastify and @fastify/websocket first, as the hub has them): graphql-js,
 *   the hub's schema built, one query and 1,000 distinct query texts served through graphql-js as
 *   platform/graphql/http.ts serves them, graphql-ws' own server (makeServer and its ws adapter: what serving
 *   subscriptions without mercurius would load), mercurius imported, an inner Fastify with mercurius and @fastify/websocket
 *   ready, one query through it, 1,000 distinct query texts through it (mercurius' query LRU). dist/ only.
 *
 * Figures are MB (RSS, anonymous from smaps_rollup, V8 heap used and total, the young generation's size, code space
 * used, external); the load average is
 * printed before and after. Rounds alternate the probes; the medians are printed. Not a test.
 */
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';

const MB = 1048576;
export type Reading = { rss: number; anon: number; heapUsed: number; heapTotal: number; young: number; code: number; external: number };

/** Memory after two forced GCs (gc exposed at run time, as surface-costs.ts does). */
export function reader(): () => Reading {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  return () => {
    gc();
    gc();
    const m = process.memoryUsage();
    const smaps = readFileSync('/proc/self/smaps_rollup', 'utf8');
    const anon = Number(/^Anonymous:\s+(\d+) kB/m.exec(smaps)?.[1] ?? 0) / 1024;
    const spaces = v8.getHeapSpaceStatistics();
    const code = (spaces.find((s) => s.space_name === 'code_space')?.space_used_size ?? 0) / MB;
    const young = (spaces.find((s) => s.space_name === 'new_space')?.space_size ?? 0) / MB;
    return { rss: m.rss / MB, anon, heapUsed: m.heapUsed / MB, heapTotal: m.heapTotal / MB, young, code, external: m.external / MB };
  };
}

/** 1,000 mixed GraphQL requests: [method, query, variables?]. Distinct texts, as a hostile client sends them. */
export function mixedRequests(): [string, string, Record<string, unknown>?][] {
  const out: [string, string, Record<string, unknown>?][] = [];
  for (let i = 0; i < 1000; i++) {
    const k = i % 10;
    if (k < 4) out.push(['POST', `{ m${i}: mode { mode } s${i}: search(first: ${1 + (i % 5)}) { total } }`]);
    else if (k < 6) out.push(['POST', '{ sessions { id state } mode { mode } }']);
    else if (k === 6) out.push(['POST', `{ nope${i} { id } }`]);
    else if (k === 7) out.push(['POST', 'query Q($id: ID!) { session(id: $id) { id } }', { id: `ses-${i}` }]);
    else if (k === 8) out.push(['GET', `{ executor { humanPresent } t${i}: __typename }`]);
    else out.push(['POST', `{ search(query: "onion ${i}", first: 2) { total edges { node { id title } } } }`]);
  }
  return out;
}

const PROBES = {
  hub: ['before', 'first query', 'first subscription', '1,000 mixed requests'],
  parts: [
    'fastify + @fastify/websocket (the floor)',
    'graphql-js imported',
    "the hub's schema built",
    'one query through graphql-js (http.ts)',
    '1,000 distinct queries through graphql-js',
    "graphql-ws' server imported (what a rewrite of subscriptions would load)",
    'mercurius imported',
    'inner Fastify + mercurius + @fastify/websocket ready',
    'one query through it (inject)',
    '1,000 distinct queries through it',
  ],
} as const;

const KEYS: (keyof Reading)[] = ['rss', 'anon', 'heapUsed', 'heapTotal', 'young', 'code', 'external'];
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/**
 * The driver: compile beside each build (`dist`, and e.g. an older build copied elsewhere in the tree to compare
 * side by side), run each probe of each build `rounds` times alternating, print the medians.
 */
export async function runFootprint(rounds: number, probes: (keyof typeof PROBES)[], builds: string[] = ['dist']): Promise<void> {
  const { execFileSync } = await import('node:child_process');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const { dirname, join } = await import('node:path');
  const { loadavg } = await import('node:os');
  const { fileURLToPath } = await import('node:url');
  const { transformSync } = await import('esbuild');
  const root = fileURLToPath(new URL('..', import.meta.url));
  const files = ['bench/graphql-footprint.ts', 'bench/graphql-footprint-hub.ts', 'bench/graphql-footprint-parts.ts'];
  for (const build of builds)
    for (const f of [...files, 'test-support/fuzz-target.ts', 'test-support/hub-app.ts']) {
      const js = join(root, build, f.replace(/\.ts$/, '.js'));
      mkdirSync(dirname(js), { recursive: true });
      writeFileSync(js, transformSync(readFileSync(join(root, f), 'utf8'), { loader: 'ts', format: 'esm', target: 'node20' }).code);
    }
  const load = () => loadavg()[0]?.toFixed(1);
  console.log(`GraphQL's footprint, ${rounds} round(s), Node ${process.versions.node}; load average ${load()} before`);
  const runs: Record<string, Reading[][]> = {};
  for (let r = 0; r < rounds; r++)
    for (const p of probes)
      for (const build of p === 'parts' ? ['dist'] : builds) {
        const out = execFileSync(process.execPath, [join(root, build, `bench/graphql-footprint-${p}.js`)], { encoding: 'utf8' });
        const readings = JSON.parse(out.trim().split('\n').pop() ?? '[]') as Reading[];
        runs[`${p} ${build}`] = [...(runs[`${p} ${build}`] ?? []), readings];
      }
  for (const run of Object.keys(runs)) {
    const p = run.split(' ')[0] as keyof typeof PROBES;
    const stages = PROBES[p];
    console.log(`\n${p} (${run.slice(p.length + 1)}): medians of ${rounds}, MB after two forced GCs; "+" is the change from the row above`);
    console.log(
      '| stage | RSS | anonymous | heap used | heap total | young gen | code space | external |\n|---|---|---|---|---|---|---|---|',
    );
    stages.forEach((name, i) => {
      const cell = (k: keyof Reading) => {
        const at = median((runs[run] ?? []).map((rs) => rs[i]?.[k] ?? 0));
        if (i === 0) return at.toFixed(1);
        const d = median((runs[run] ?? []).map((rs) => (rs[i]?.[k] ?? 0) - (rs[i - 1]?.[k] ?? 0)));
        return `${at.toFixed(1)} (${d >= 0 ? '+' : ''}${d.toFixed(1)})`;
      };
      console.log(`| ${name} | ${KEYS.map(cell).join(' | ')} |`);
    });
    const total = (k: keyof Reading) =>
      median((runs[run] ?? []).map((rs) => (rs[stages.length - 1]?.[k] ?? 0) - (rs[0]?.[k] ?? 0))).toFixed(1);
    console.log(`| all of it | ${KEYS.map((k) => `+${total(k)}`).join(' | ')} |`);
  }
  console.log(`\nload average ${load()} after`);
}
