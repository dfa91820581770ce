/**
 * The compact structures of a loaded catalog and the index cache give the answers a plain full load gives: on
 * the reference's catalog recipes and on synthetic ones. The cache is used whole only while every file is
 * unchanged; after a change, only the rows of files whose stamp is unchanged are taken from it.
 */
import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import t from 'tap';
import { documentHash } from '../../core/hash.js';
import { packageRoot } from '../../platform/paths.js';
import { scratchFiles } from '../../test-support/cli.js';
import { writeCatalog } from '../catalog/generate.js';
import { allowedEdits, editDistance, tokens } from '../index/search/text.js';
import { type Catalog, CatalogError, loadCatalog } from './catalog.js';
import { codeStamp, DERIVING, missingDeriving } from './index-cache.js';
import { type Row, rowOf, Strings } from './rows.js';
import { createRecipeApi } from './server.js';
import { copyReferenceCatalog } from './test-helpers.js';

type J = Record<string, unknown>;

const dir = scratchFiles(t, 'hearth-recipe-api-cache-').dir;
const catalog = join(dir, 'catalog');
copyReferenceCatalog(catalog);
writeCatalog(join(catalog, 'synthetic'), 120, 'cache', 'catalog');
const plain = loadCatalog(catalog);

const QUERIES = ['lentil soup', 'lentl', 'carob', 'shakshuka', 'كشري', 'creme brulee', 'chicken', 'ch', 'soup', 'EG', 'syn-00007', 'zzzz'];

/** Rows as data: everything but the document reader. */
const data = (rows: readonly Row[]) => rows.map(({ doc: _doc, ...rest }) => rest);

/** The ranking of the search index by its definition, from the facts alone (no index): see search.ts. */
function definedRank(cat: Catalog, q: string): Map<number, number> {
  const stem = (w: string) => /^(?:[وبفكل]?ال)(.{2,})$/u.exec(w)?.[1] ?? w;
  const termsOf = (text: string) => [...new Set(tokens(text).map(stem))];
  const words = [...new Set(tokens(q).map(stem))];
  const total = new Map<number, number>();
  cat.search.facts.forEach((f, doc) => {
    const weighted: [string, number][] = [];
    for (const title of Object.values(f.titles)) for (const term of termsOf(title)) weighted.push([term, 3]);
    for (const x of [...f.tags, ...f.cuisine, f.course ?? '', f.id]) for (const term of termsOf(x)) weighted.push([term, 1]);
    let sum = 0;
    for (const w of words) {
      const k = allowedEdits(w.length);
      let best = 0;
      for (const [term, weight] of weighted) {
        const quality =
          term === w
            ? 3
            : w.length >= 2 && term.startsWith(w)
              ? 2
              : k > 0 && Math.abs(term.length - w.length) <= k && editDistance(w, term, k) <= k
                ? 1
                : 0;
        best = Math.max(best, quality * weight);
      }
      if (best === 0) return;
      sum += best;
    }
    total.set(doc, sum);
  });
  return total;
}

t.test('the packed search index ranks as its definition does', async (t) => {
  for (const q of QUERIES) {
    const got = new Map(plain.search.rank(q).map((x) => [x.doc, x.score]));
    t.same(
      [...got].sort((a, b) => a[0] - b[0]),
      [...definedRank(plain, q)].sort((a, b) => a[0] - b[0]),
      q,
    );
  }
});

t.test('rows share repeated texts and give the same rows as unshared ones', async (t) => {
  const files = plain.rows.map((r) => r.doc());
  const shared = new Strings();
  const a = files.map((d, i) => rowOf(d, i, shared));
  const b = files.map((d, i) => rowOf(d, i));
  t.same(data(a), data(b));
  // Two recipes using one ingredient name share its word list (one array, not a copy each).
  const byName = new Map<string, string[]>();
  let sharedLists = 0;
  for (const r of a)
    for (const i of r.ingredients) {
      const before = byName.get(i.name);
      if (before === undefined) byName.set(i.name, i.words);
      else {
        t.equal(i.words, before, i.name);
        sharedLists++;
      }
    }
  t.ok(sharedLists > 100, `${sharedLists} ingredient word lists shared`);
});

t.test('the index cache: written, then used, with the same answers', async (t) => {
  const cache = join(dir, 'index.cache');
  const first = loadCatalog(catalog, { indexCache: cache });
  t.equal(first.indexCache, 'written');
  const again = loadCatalog(catalog, { indexCache: cache });
  t.equal(again.indexCache, 'used');
  t.same(data(again.rows), data(plain.rows));
  for (const q of QUERIES) t.same(again.search.rank(q), plain.search.rank(q), q);

  const cold = createRecipeApi({ dir: catalog });
  const warm = createRecipeApi({ dir: catalog, indexCache: cache });
  t.equal(warm.catalog.indexCache, 'used');
  t.teardown(async () => {
    await cold.app.close();
    await warm.app.close();
  });
  const urls = [
    '/api/search?q=lentil%20soup',
    '/api/search?q=chiken&diet=halal',
    '/api/search?kids=true&limit=25',
    '/api/search?ingredient=onion&sort=-protein',
    '/api/search?diet=vegetarian&basis=published&sort=cost',
    '/api/recipes/bev-01?include=all',
    '/api/recipes/syn-00003/similar',
    '/api/diets/review',
    '/api/facets',
    '/api/pantry?have=lentils,rice,onion',
    '/api/aggregate?group_by=cuisine&metric=kcal',
    '/api/shopping-list?ids=bev-01,syn-00002&servings=3',
  ];
  for (const url of urls) {
    const x = await cold.app.inject(url);
    const y = await warm.app.inject(url);
    t.equal(x.statusCode, 200, url);
    t.same(JSON.parse(y.body), JSON.parse(x.body), url);
  }
});

t.test('a changed, added or removed file or a damaged cache: a full load', async (t) => {
  const cat = join(dir, 'changing');
  writeCatalog(cat, 12, 'change', 'catalog');
  const cache = join(dir, 'changing.cache');
  const file = join(cat, 'syn-00004.svc.json');
  const stamp = new Date('2026-01-01T00:00:00Z');
  utimesSync(file, stamp, stamp);
  t.equal(loadCatalog(cat, { indexCache: cache }).indexCache, 'written');

  // Edited in place to the same size, its modification time put back: the status-change time still moves.
  const text = readFileSync(file, 'utf8');
  const doc = JSON.parse(text) as J;
  const names = (doc.dish as { names: J }).names;
  const renamed = (names.en as string).toUpperCase();
  t.not(renamed, names.en);
  names.en = renamed;
  delete doc.hash;
  doc.hash = documentHash(doc);
  const edited = `${JSON.stringify(doc, null, 2)}${text.endsWith('\n') ? '\n' : ''}`;
  t.equal(Buffer.byteLength(edited), Buffer.byteLength(text), 'same size');
  writeFileSync(file, edited);
  utimesSync(file, stamp, stamp);
  const changed = loadCatalog(cat, { indexCache: cache });
  t.equal(changed.indexCache, 'written');
  t.equal(changed.indexCacheRows, 11, 'the other eleven rows from the cache');
  t.equal(changed.byId.get('syn-00004')?.titles.en, renamed);
  t.equal(loadCatalog(cat, { indexCache: cache }).indexCache, 'used');

  writeCatalog(join(cat, 'more'), 1, 'other', 'catalog');
  t.throws(() => loadCatalog(cat, { indexCache: cache }), CatalogError, 'a repeated id is refused, cache or not');
  rmSync(join(cat, 'more'), { recursive: true });
  rmSync(join(cat, 'syn-00012.svc.json'));
  const removed = loadCatalog(cat, { indexCache: cache });
  t.equal(removed.indexCache, 'written');
  t.equal(removed.rows.length, 11);
  t.equal(removed.indexCacheRows, 11, 'every row left from the cache');

  writeFileSync(cache, 'not a cache');
  t.equal(loadCatalog(cat, { indexCache: cache }).indexCache, 'written');
  t.equal(loadCatalog(cat, { indexCache: join(dir, 'no-such-dir', 'x.cache') }).indexCache, 'failed');

  // A document made invalid stops the start although a cache of the catalog exists.
  writeFileSync(join(cat, 'syn-00005.svc.json'), '{"id": "syn-00005"}');
  t.throws(() => loadCatalog(cat, { indexCache: cache }), /not a valid recipe document/);
});

t.test('a document read from its file after a cached start is still checked against its hash', async (t) => {
  const cat = join(dir, 'served');
  writeCatalog(cat, 6, 'served', 'catalog');
  const cache = join(dir, 'served.cache');
  loadCatalog(cat, { indexCache: cache });
  const api = createRecipeApi({ dir: cat, indexCache: cache });
  t.teardown(() => api.app.close());
  t.equal(api.catalog.indexCache, 'used');
  t.equal((await api.app.inject('/api/recipes/syn-00002?include=steps')).statusCode, 200);
  const file = join(cat, 'syn-00003.svc.json');
  writeFileSync(
    file,
    readFileSync(file, 'utf8')
      .replace('"en":', '"en" :')
      .replace(/"kcal":\s*\d+/, '"kcal": 1'),
  );
  const res = await api.app.inject('/api/recipes/syn-00003?include=steps');
  t.equal(res.statusCode, 503);
  t.equal((JSON.parse(res.body) as J).error, 'catalog_changed');
});

/** `doc` rehashed (when it had a hash) and written to `file` as compact JSON. */
function rewrite(file: string, change: (doc: J) => void): void {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as J;
  change(doc);
  if ('hash' in doc) {
    delete doc.hash;
    doc.hash = documentHash(doc);
  }
  writeFileSync(file, JSON.stringify(doc));
}

t.test('after a change, rows from the cache and rows loaded again answer as a full load does', async (t) => {
  const cat = join(dir, 'partial');
  writeCatalog(cat, 40, 'partial', 'catalog');
  // One recipe without a hash: nothing to check a read-back against, so its row is derived again at every start.
  rewrite(join(cat, 'syn-00009.svc.json'), (doc) => {
    delete doc.hash;
  });
  const cache = join(dir, 'partial.cache');
  t.equal(loadCatalog(cat, { indexCache: cache }).indexCache, 'written');
  // A sync replaced two recipes (new titles and hashes), added one and removed one.
  rewrite(join(cat, 'syn-00003.svc.json'), (doc) => {
    (doc.dish as { names: J }).names.en = 'Lentil soup of the partial load';
  });
  rewrite(join(cat, 'syn-00031.svc.json'), (doc) => {
    (doc.dish as { names: J }).names.en = 'Carob cake, replaced';
  });
  writeCatalog(join(cat, 'added'), 1, 'partial-added', 'catalog');
  rewrite(join(cat, 'added', 'syn-00001.svc.json'), (doc) => {
    doc.id = 'added-00001';
  });
  rmSync(join(cat, 'syn-00017.svc.json'));

  const partly = loadCatalog(cat, { indexCache: cache });
  const full = loadCatalog(cat);
  t.equal(partly.indexCacheRows, 36, 'the unchanged files from the cache, but the one without a hash (read, its row made again)');
  t.equal(partly.rows.length, 40);
  t.strictSame(data(partly.rows), data(full.rows), 'the same rows, in file order, with their positions');
  t.strictSame(partly.byId.get('syn-00009')?.doc(), full.byId.get('syn-00009')?.doc(), 'the document without a hash, read now');
  for (const q of [...QUERIES, 'partial load', 'replaced', 'added-00001']) t.same(partly.search.rank(q), full.search.rank(q), q);
  t.strictSame(partly.costTiers, full.costTiers, 'cost tiers over the whole catalog again');
  t.strictSame(partly.ingredientWords, full.ingredientWords, 'the ingredient word index, by position');
  t.strictSame(
    [...partly.ingredients].map(([name, rows]) => [name, rows.map((r) => r.idx)]),
    [...full.ingredients].map(([name, rows]) => [name, rows.map((r) => r.idx)]),
  );
  t.strictSame(partly.byId.get('syn-00003')?.doc(), full.byId.get('syn-00003')?.doc());
  t.equal(loadCatalog(cat, { indexCache: cache }).indexCache, 'used', 'and written again for the next start');

  // A changed file that repeats the id of an unchanged one, or that is bad, stops the start as a full load does.
  rewrite(join(cat, 'added', 'syn-00001.svc.json'), (doc) => {
    doc.id = 'syn-00002';
  });
  t.throws(() => loadCatalog(cat, { indexCache: cache }), /recipe id syn-00002 is also used by/);
  writeFileSync(join(cat, 'added', 'syn-00001.svc.json'), '{"id": "added-00001"');
  t.throws(() => loadCatalog(cat, { indexCache: cache }), /added\/syn-00001\.svc\.json: not valid JSON/);
  rmSync(join(cat, 'added'), { recursive: true });
  t.equal(loadCatalog(cat, { indexCache: cache }).indexCacheRows, 38, 'the cache of the last good start');
});

t.test('rows are taken only from a cache of the same build, and not when most files changed', async (t) => {
  const cat = join(dir, 'builds');
  writeCatalog(cat, 8, 'builds', 'catalog');
  const cache = join(dir, 'builds.cache');
  loadCatalog(cat, { indexCache: cache });
  const now = new Date();
  utimesSync(join(cat, 'syn-00001.svc.json'), now, now);
  // The same files, the cache as another build (or another folder) would have written it.
  const stored = deserialize(readFileSync(cache)) as J;
  writeFileSync(cache, serialize({ ...stored, code: `${stored.code as string}-another-build` }));
  const other = loadCatalog(cat, { indexCache: cache });
  t.equal(other.indexCache, 'written');
  t.equal(other.indexCacheRows, undefined, 'nothing reused from another build');
  t.equal(loadCatalog(cat, { indexCache: cache }).indexCacheRows, 8, 'its own cache, whole');
  for (const n of ['syn-00001', 'syn-00002', 'syn-00003', 'syn-00004', 'syn-00005']) utimesSync(join(cat, `${n}.svc.json`), now, now);
  const most = loadCatalog(cat, { indexCache: cache, workers: 1 });
  t.equal(most.indexCacheRows, undefined, 'five of eight changed: a full load');
  t.equal(most.loadWorkers?.threads, 1, 'on the worker threads asked for');
  t.equal(most.indexCache, 'written');
});
t.test('the build stamp: the contents of the modules, and no reuse while one is missing', async (t) => {
  t.same(missingDeriving(), [], 'every module that shapes a row is found beside the cache code');
  const built = join(packageRoot(), 'dist', 'services', 'recipe-api');
  if (existsSync(built))
    for (const m of DERIVING) t.ok(existsSync(join(built, `${m}.js`)), `${m}.js in dist/, where a build and a release find it`);
  const a = Buffer.from('export const x = 1;');
  const b = Buffer.from('export const x = 2;');
  t.equal(codeStamp([a]), codeStamp([a]));
  t.not(codeStamp([a]), codeStamp([b]), 'a change of the same size');
  t.not(codeStamp([a, undefined]), codeStamp([a, undefined]), 'a missing module: a stamp no cache matches');
});

t.test('a deferred cache write: nothing written until asked, then written once', async (t) => {
  const cat = join(dir, 'deferred');
  writeCatalog(cat, 6, 'deferred', 'catalog');
  const cache = join(dir, 'deferred.cache');
  const first = loadCatalog(cat, { indexCache: cache, deferIndexCacheWrite: true });
  t.equal(first.indexCache, 'pending');
  t.throws(() => readFileSync(cache), { code: 'ENOENT' }, 'not written yet');
  first.writeIndexCache?.();
  t.equal(first.indexCache, 'written');
  t.equal(first.writeIndexCache, undefined, 'once');
  t.equal(loadCatalog(cat, { indexCache: cache, deferIndexCacheWrite: true }).indexCache, 'used');
});
