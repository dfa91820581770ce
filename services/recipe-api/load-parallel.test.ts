/**
 * A catalog load spread over worker threads gives exactly the serial load's rows and index, and refuses exactly
 * what the serial load refuses, with the same reason, first bad file first: a wrong hash, a duplicate key, a
 * document the schema refuses, a repeated id. Workers really answer here (the test asserts how many files they
 * checked), so a worker that skipped a check would let a bad document through and fail these tests.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { scratchFiles } from '../../test-support/cli.js';
import { writeCatalog } from '../catalog/generate.js';
import { type Catalog, loadCatalog } from './catalog.js';
import { loadWorkers, PARALLEL_MIN_FILES } from './load-parallel.js';
import type { Row } from './rows.js';

const { dir } = scratchFiles(t, 'hearth-recipe-api-parallel-');
const data = (rows: readonly Row[]) => rows.map(({ doc: _doc, ...rest }) => rest);
const rankOf = (c: Catalog, q: string) => c.search.rank(q);

/** A fresh catalog of 300 generated recipes in `name`; returns its folder and its files in load order. */
function catalogNamed(name: string): { cat: string; files: string[] } {
  const cat = join(dir, name);
  const files = writeCatalog(cat, 300, 'parallel', 'catalog')
    .sort()
    .map((f) => join(cat, f));
  return { cat, files };
}

/** The error a load throws (its message), or 'loaded'. */
function outcome(cat: string, workers: number): string {
  try {
    const c = loadCatalog(cat, { workers, workersOnly: true });
    if (workers > 0) t.equal(c.loadWorkers?.files, c.rows.length, 'the workers checked every file');
    return 'loaded';
  } catch (err) {
    return (err as Error).message;
  }
}

t.test('the parallel load gives the serial rows and search, documents read back the same', async (t) => {
  const { cat, files } = catalogNamed('same');
  // A valid document only the strict parser may take (an escaped colon): the text is parsed again here.
  const doc = JSON.parse(readFileSync(files[7] as string, 'utf8')) as Record<string, unknown>;
  writeFileSync(files[7] as string, JSON.stringify(doc).replace('"id":', '"\\u0069d":'));
  const serial = loadCatalog(cat, { workers: 0 });
  t.equal(serial.loadWorkers, undefined);
  const parallel = loadCatalog(cat, { workers: 2, workersOnly: true });
  t.same(parallel.loadWorkers, { threads: 2, files: 300 }, 'the workers checked every file');
  t.same(data(parallel.rows), data(serial.rows));
  for (const q of ['lentil soup', 'lentl', 'chicken', 'EG']) t.same(rankOf(parallel, q), rankOf(serial, q), q);
  t.same(parallel.rows[7]?.doc(), serial.rows[7]?.doc());
  t.same(parallel.rows[250]?.doc(), JSON.parse(readFileSync(files[250] as string, 'utf8')));
});

t.test('a bad document stops a parallel load as it stops a serial one, the first in file order', async (t) => {
  const { cat, files } = catalogNamed('bad');
  const at = (i: number) => files[i] as string;
  // The last file first, then earlier ones: each time the earliest bad file must be the one reported.
  mkdirSync(join(cat, 'zz'));
  copyFileSync(at(3), join(cat, 'zz', 'again.json'));
  const repeated = outcome(cat, 0);
  t.match(repeated, /zz\/again\.json: recipe id \S+ is also used by/);
  t.equal(outcome(cat, 2), repeated);
  const text = readFileSync(at(290), 'utf8');
  writeFileSync(at(290), text.replace(/("hash":\s*"sha256:)[0-9a-f]{4}/, '$10000'));
  const wrongHash = outcome(cat, 0);
  t.match(wrongHash, /hash does not match/);
  t.equal(outcome(cat, 2), wrongHash);
  writeFileSync(at(200), readFileSync(at(200), 'utf8').replace('{', '{"revision":1,'));
  const duplicate = outcome(cat, 0);
  t.match(duplicate, /not valid JSON .*duplicate/i);
  t.equal(outcome(cat, 2), duplicate);
  const schema = JSON.parse(readFileSync(at(120), 'utf8')) as Record<string, unknown>;
  schema.dish = 'not an object';
  writeFileSync(at(120), JSON.stringify(schema));
  const refused = outcome(cat, 0);
  t.match(refused, /not a valid recipe document/);
  t.equal(outcome(cat, 3), refused);
  writeFileSync(at(50), '{ not json');
  const notJson = outcome(cat, 0);
  t.match(notJson, /not valid JSON/);
  t.equal(outcome(cat, 2), notJson);
});

t.test('how many workers: none by default, HEARTH_LOAD_WORKERS for a large catalog, or as asked', async (t) => {
  t.equal(loadWorkers(5000, undefined, {}), 0, 'off by default');
  t.equal(loadWorkers(5000, undefined, { HEARTH_LOAD_WORKERS: '2' }), 2);
  t.equal(loadWorkers(PARALLEL_MIN_FILES - 1, undefined, { HEARTH_LOAD_WORKERS: '2' }), 0, 'not for a small catalog');
  t.equal(loadWorkers(5000, undefined, { HEARTH_LOAD_WORKERS: 'many' }), 0);
  t.equal(loadWorkers(5000, 0, { HEARTH_LOAD_WORKERS: '2' }), 0, 'asked for none');
  t.equal(loadWorkers(3, 8, {}), 3, 'never more than files');
});

t.test('load workers do not let the young generation grow while this thread loads synchronously', async (t) => {
  // A fresh process keeps its young generation small (as the CLI does), checks files on a worker while it blocks
  // (so no event loop turn re-applies the flag a worker's start puts back, platform/young-generation.ts), then
  // allocates with many survivors per scavenge, still without yielding, and reports the young generation's size.
  const { files } = catalogNamed('young');
  const probe = `
    import { getHeapSpaceStatistics } from 'node:v8';
    const { keepYoungGenerationSmall } = await import(${JSON.stringify(new URL('../../platform/young-generation.ts', import.meta.url).href)});
    const { parallelReader } = await import(${JSON.stringify(new URL('./load-parallel.ts', import.meta.url).href)});
    keepYoungGenerationSmall({});
    const files = ${JSON.stringify(files.slice(0, 40))};
    const reader = parallelReader(files, 1, true);
    for (let i = 0; i < files.length; i++) reader.get(i);
    const byWorkers = reader.byWorkers();
    reader.close();
    let keep = [];
    for (let i = 0; i < 3000000; i++) {
      keep.push({ i, s: 'x' + i });
      if (keep.length > 200000) keep = keep.slice(100000);
    }
    const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576;
    process.stdout.write(JSON.stringify({ young, byWorkers, kept: keep.length }));
    process.exit(0);`;
  // The tests' own TypeScript loader: worker threads inherit it (tsx's does not load a worker's .ts entry).
  const file = join(dir, 'young-probe.mjs');
  writeFileSync(file, probe);
  const loader = new URL('../../test-support/ts-loader/register.mjs', import.meta.url).href;
  const { stdout } = await promisify(execFile)(process.execPath, [`--import=${loader}`, file]);
  const { young, byWorkers } = JSON.parse(stdout) as { young: number; byWorkers: number };
  t.equal(byWorkers, 40, 'the worker checked the files');
  // Kept small, it ends at 2-3 MB; Node 24's V8 also resizes it on its own while allocating (seen at 4.75-11 MB in
  // the middle of this loop, flag kept, no worker), so a reading can land there. Lost, it is 32 MB (Node 20) or
  // 128 MB (Node 24) for good.
  t.ok(young < 16, `young generation ${young} MB after the load and the allocations (32 or 128 MB when the flag is lost)`);
});
