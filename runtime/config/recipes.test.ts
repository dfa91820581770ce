import t from 'tap';
import { documentHash } from '../../core/hash.js';
import { catalogOf, type RecipeEntry, recipeEntry } from './recipes.js';

function entry(id: string, title: string): RecipeEntry {
  const doc = { svc: '0.2.0', id, title: { en: title }, process: { nodes: [] } };
  return recipeEntry({ ...doc, hash: documentHash(doc) }, `${id}.svc.json`);
}

t.test('a recipe source is consulted before the folder and can be removed', async (t) => {
  const folderA = entry('a', 'folder A');
  const folderB = entry('b', 'folder B');
  const cat = catalogOf([folderA, folderB]);
  const syncedB = entry('b', 'synced B');
  const syncedC = entry('c', 'synced C');
  const remove = cat.addSource?.({ get: (id) => [syncedB, syncedC].find((e) => e.id === id), list: () => [syncedB, syncedC] });
  t.ok(remove, 'catalogOf supports sources');
  t.equal(cat.get('a')?.hash, folderA.hash, 'folder recipe still there');
  t.equal(cat.get('b')?.hash, syncedB.hash, 'source shadows the folder');
  t.equal(cat.get('c')?.hash, syncedC.hash, 'source-only recipe found');
  t.same(
    cat
      .list()
      .map((e) => `${e.id}:${e.hash === syncedB.hash ? 'synced' : 'other'}`)
      .sort(),
    ['a:other', 'b:synced', 'c:other'],
  );
  remove?.();
  t.equal(cat.get('c'), undefined, 'gone after removal');
  t.equal(cat.get('b')?.hash, folderB.hash, 'folder recipe back');
  t.equal(cat.list().length, 2);
});

t.test('the first source added wins over later ones', async (t) => {
  const cat = catalogOf([]);
  const first = entry('x', 'first');
  const second = entry('x', 'second');
  cat.addSource?.({ get: () => first, list: () => [first] });
  cat.addSource?.({ get: () => second, list: () => [second] });
  t.equal(cat.get('x')?.hash, first.hash);
  t.same(
    cat.list().map((e) => e.hash),
    [first.hash],
  );
});
