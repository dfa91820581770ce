/**
 * GraphQL on the index (`/v1/graphql`), over a real socket: `search` answers what `GET /v1/search` answers for
 * the same question (same ids, order, total, titles, levels), filters and paging included; `title(lang)` per
 * node; bad arguments are the REST search's `bad-request`, a too deep or too costly operation is refused with
 * `query-too-complex` in `extensions` (with the problem `type` of this server), and nothing runs for it.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { scratchFiles } from '../../../test-support/cli.js';
import { buildIndex } from '../build/build.js';
import { FIXED_NOW, smallCatalog, testKey } from '../test-helpers.js';
import { createIndexServer } from './server.js';

// A directory of its own, not tap's root fixture: this file may share its process with others (scripts/test-run.mjs).
const root = scratchFiles(t, 'hearth-index-gql-').dir;
for (const sub of ['recipes', 'out']) mkdirSync(join(root, sub));
const recipes = join(root, 'recipes');
const out = join(root, 'out');
smallCatalog(recipes, 60, 'graphql');
for (const name of ['koshari', 'shakshuka'])
  copyFileSync(fileURLToPath(new URL(`../../../examples/recipes/${name}.svc.json`, import.meta.url)), join(recipes, `${name}.svc.json`));
buildIndex({ recipesDir: recipes, outDir: out, key: testKey(), now: FIXED_NOW });

async function start(t: Test) {
  const { app } = createIndexServer({ dir: out, now: FIXED_NOW, ratePerSecond: 1000, burst: 1000 });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => app.close());
  const gql = async (query: string, variables?: Record<string, unknown>) => {
    const res = await fetch(`${base}/v1/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, ...(variables ? { variables } : {}) }),
    });
    return {
      status: res.status,
      body: (await res.json()) as {
        data?: Record<string, unknown> | null;
        errors?: { message: string; extensions?: Record<string, unknown> }[];
      },
    };
  };
  const rest = async (qs: string) => (await (await fetch(`${base}/v1/search?${qs}`)).json()) as Record<string, unknown>;
  return { base, gql, rest };
}

const SEARCH = `query S($q: String, $f: RecipeFilter, $lang: String, $first: Int, $after: String) {
  search(query: $q, filter: $f, lang: $lang, first: $first, after: $after) {
    total
    edges { cursor node { id title level totalTime supervision allergensEU } }
    pageInfo { hasNextPage endCursor }
  }
}`;

type Conn = {
  total: number;
  edges: { cursor: string; node: Record<string, unknown> }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
};

t.test('search over GraphQL answers what GET /v1/search answers for the same question', async (t) => {
  const { gql, rest } = await start(t);
  const cases: [Record<string, unknown>, string][] = [
    [{ q: 'koshari' }, 'q=koshari'],
    [{ q: 'kushari' }, 'q=kushari'],
    [{ lang: 'ar', first: 5 }, 'lang=ar&limit=5'],
    [{ f: { minLevel: 'V1' }, first: 50 }, 'min_level=V1&limit=50'],
    [{ f: { cuisine: ['EG'], excludeAllergens: ['gluten'] } }, 'cuisine=EG&exclude_allergens=gluten'],
    [{ first: 7, after: '7' }, 'limit=7&cursor=7'],
  ];
  let nonEmpty = 0;
  for (const [vars, qs] of cases) {
    const g = await gql(SEARCH, vars);
    t.equal(g.status, 200, qs);
    t.notOk(g.body.errors, qs);
    const conn = g.body.data?.search as Conn;
    const r = (await rest(qs)) as { total: number; items: Record<string, unknown>[]; nextCursor?: string };
    t.equal(conn.total, r.total, `${qs}: total`);
    t.same(
      conn.edges.map((e) => e.node),
      r.items.map((i) => ({
        id: i.id,
        title: i.title,
        level: i.level,
        totalTime: i.totalTime ?? null,
        supervision: i.supervision ?? null,
        allergensEU: i.allergensEU,
      })),
      `${qs}: the same recipes in the same order`,
    );
    t.equal(conn.pageInfo.hasNextPage, r.nextCursor !== undefined, `${qs}: paging`);
    if (r.nextCursor !== undefined) t.equal(conn.pageInfo.endCursor, r.nextCursor, `${qs}: endCursor is the REST cursor`);
    if (r.items.length > 0) nonEmpty++;
  }
  t.ok(nonEmpty >= 5, 'the cases find recipes (the comparison is not between empty lists)');
});

t.test('title(lang) per node, and the catalog version', async (t) => {
  const { gql } = await start(t);
  const g = await gql(`{ catalogVersion search(query: "koshari", first: 1) {
    edges { node { id en: title ar: title(lang: "ar") arLang: titleLang(lang: "ar") } } } }`);
  t.notOk(g.body.errors);
  const node = (g.body.data?.search as Conn | undefined)?.edges[0]?.node as Record<string, string>;
  t.equal(node.id, 'example-koshari');
  t.equal(node.arLang, 'ar');
  t.not(node.en, node.ar, 'each alias in its own language');
  t.match(node.ar, /[\u0600-\u06FF]/);
  t.type(g.body.data?.catalogVersion, 'string');
});

t.test('bad arguments are the REST search refusals; too deep or costly operations are refused with the slug', async (t) => {
  const { base, gql } = await start(t);
  const bad = await gql('{ search(first: 1000) { total } }');
  t.equal(bad.body.errors?.[0]?.extensions?.slug, 'bad-request');
  t.match(bad.body.errors?.[0]?.message, /limit must be an integer from 1 to 100/);
  t.equal(bad.body.errors?.[0]?.extensions?.type, `${base}/errors/bad-request`);

  const costly = await gql(
    '{ a: search(first: 100) { edges { node { id title tags cuisine allergensEU } } } b: search(first: 100) { edges { node { id title tags cuisine allergensEU } } } c: search(first: 100) { edges { node { id title tags cuisine allergensEU } } } d: search(first: 100) { edges { node { id title tags cuisine allergensEU } } } }',
  );
  t.equal(costly.status, 400);
  t.equal(costly.body.data ?? null, null, 'nothing ran');
  const ext = costly.body.errors?.[0]?.extensions as Record<string, unknown>;
  t.match(ext, { slug: 'query-too-complex', measure: 'cost', limit: 5000, status: 400, type: `${base}/errors/query-too-complex` });
  t.ok((ext.actual as number) > 5000);

  // Fragments count: the same costly selection through a fragment is refused the same way.
  const viaFragment =
    await gql(`{ a: search(first: 100) { ...E } b: search(first: 100) { ...E } c: search(first: 100) { ...E } d: search(first: 100) { ...E } }
    fragment E on RecipeConnection { edges { node { id title tags cuisine allergensEU } } }`);
  t.equal(viaFragment.body.errors?.[0]?.extensions?.slug, 'query-too-complex');
});
