/**
 * Which files a catalog load reads (catalog.ts `walk`): *.json files in name order, folders followed, links to a
 * file or a folder followed, hidden entries and other files skipped; with or without the index cache (which
 * alone needs each file's stats), the same files in the same order.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { generateCatalog } from '../catalog/generate.js';
import { loadCatalog } from './catalog.js';

type Doc = { name: string; text: string };

t.test('the same documents in the same order, links followed, with or without the index cache', async (t) => {
  const root = t.testdir({ catalog: {}, elsewhere: { linked: {} } });
  const catalog = join(root, 'catalog');
  const [a, b, c, d, e] = generateCatalog(5, 'walk', 'catalog') as [Doc, Doc, Doc, Doc, Doc];
  writeFileSync(join(catalog, a.name), a.text);
  mkdirSync(join(catalog, 'sub'));
  writeFileSync(join(catalog, 'sub', b.name), b.text);
  writeFileSync(join(root, 'elsewhere', c.name), c.text);
  symlinkSync(join(root, 'elsewhere', c.name), join(catalog, `z-link-${c.name}`));
  writeFileSync(join(root, 'elsewhere', 'linked', d.name), d.text);
  symlinkSync(join(root, 'elsewhere', 'linked'), join(catalog, 'linked-folder'));
  writeFileSync(join(catalog, `.hidden-${e.name}`), e.text);
  writeFileSync(join(catalog, 'notes.txt'), 'not a recipe');
  const plain = loadCatalog(catalog);
  const ids = (x: typeof plain) => x.rows.map((r) => r.id);
  const idOf = (f: Doc) => (JSON.parse(f.text) as { id: string }).id;
  t.same(ids(plain), [d, b, a, c].map(idOf), 'linked-folder/, sub/, the file, the link: name order; the hidden file skipped');
  const cached = loadCatalog(catalog, { indexCache: join(root, 'index.cache') });
  t.equal(cached.indexCache, 'written');
  t.same(ids(cached), ids(plain), 'the same with the index cache');
  const again = loadCatalog(catalog, { indexCache: join(root, 'index.cache') });
  t.equal(again.indexCache, 'used', 'and its key, from the same files, matches');
  t.same(ids(again), ids(plain));
});
