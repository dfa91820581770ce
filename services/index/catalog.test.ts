import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { catalogOf, isRecalled, markRecalled, recipeOf } from './catalog.js';
import type { Json, RecipeFacts } from './entry.js';

t.test('recalls cover one revision or every revision of a recipe', async (t) => {
  const recalls = [
    { id: 'a', hash: 'h1', severity: 'block', message: 'recalled' },
    { id: 'b', severity: 'block', message: 'every revision' },
  ];
  t.ok(isRecalled(recalls, 'a', 'h1'));
  t.notOk(isRecalled(recalls, 'a', 'h2'));
  t.ok(isRecalled(recalls, 'b', 'anything'));
  t.notOk(isRecalled(recalls, 'c', 'h1'));
  const cat = catalogOf('7', new Map(), [] as RecipeFacts[], recalls);
  t.equal(cat.version, '7');
  t.same(
    markRecalled(cat, [
      { id: 'a', hash: 'h1' },
      { id: 'a', hash: 'h2' },
    ]),
    [
      { id: 'a', hash: 'h1', recalled: true },
      { id: 'a', hash: 'h2' },
    ],
  );
  const none = catalogOf('8', new Map(), [], []);
  const items = [{ id: 'a', hash: 'h1' }];
  t.equal(markRecalled(none, items), items, 'nothing recalled: the same list');
});

t.test('recipeOf: the document and facts of a recipe the catalog holds', async (t) => {
  const facts = { id: 'a', hash: 'h1' } as RecipeFacts;
  const doc: Json = { id: 'a', hash: 'h1' };
  const docs = new Map<string, Json>([
    ['a', doc],
    ['orphan', {}],
  ]);
  const cat = { ...catalogOf('1', new Map(), [], []), docs, facts: [facts] };
  t.same(recipeOf(cat, 'a'), { doc, facts });
  t.equal(recipeOf(cat, 'b'), undefined);
  t.equal(recipeOf(cat, 'orphan'), undefined, 'a document without facts is not a recipe of the catalog');
});

/** The relative modules `file` loads at run time (type-only imports are erased), transitively. */
function runtimeImports(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+'([^']+)';/gms)) {
    const spec = m[1] as string;
    if (spec.startsWith('.')) runtimeImports(resolve(dirname(file), spec.replace(/\.js$/, '.ts')), seen);
    else seen.add(spec);
  }
  return seen;
}

t.test("the catalog and the matcher load none of the index's file-reading code (the hub reuses them)", async (t) => {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const name of ['catalog.ts', 'search/match.ts']) {
    const own = [...runtimeImports(resolve(here, name))].filter((f) => f.startsWith(`${here}/`)).map((f) => relative(here, f));
    t.ok(own.includes('entry.ts'), `${name}: the import graph was read`);
    t.notOk(own.includes('serve/store.ts') || own.includes('build/sources.ts'), `${name} loads ${own.join(', ')}`);
    for (const f of own) t.notMatch(readFileSync(resolve(here, f), 'utf8'), /from 'node:fs'/, `${f} reads no files`);
  }
});
