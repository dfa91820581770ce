import t from 'tap';
import { boundUniqueItems, createValidatorCompiler, UNIQUE_ITEMS_CAP } from './validation.js';

const compile = (schema: Record<string, unknown>) => createValidatorCompiler()({ schema, method: 'POST', url: '/x', httpPart: 'body' });

t.test('uniqueItems is checked only within maxItems (the check is quadratic): a huge array is refused by its length', async (t) => {
  const v = compile({ type: 'object', properties: { s: { type: 'array', maxItems: 5, uniqueItems: true, items: { type: 'integer' } } } });
  t.same(v({ s: [1, 2, 3] }), { value: { s: [1, 2, 3] } });
  const dup = v({ s: [1, 1] }) as { error?: { validation: { keyword: string }[] } };
  t.ok(
    dup.error?.validation.some((e) => e.keyword === 'uniqueItems'),
    'duplicates within maxItems are still refused',
  );
  // 200,000 distinct items: refused for the length; the uniqueness check (4e10 comparisons) never runs, so this returns.
  const long = v({ s: Array.from({ length: 200_000 }, (_, i) => i) }) as { error?: { validation: { keyword: string }[] } };
  t.ok(long.error?.validation.some((e) => e.keyword === 'maxItems'));
  t.notOk(long.error?.validation.some((e) => e.keyword === 'uniqueItems'));
});

t.test('without maxItems, uniqueItems gets a cap', async (t) => {
  const s = boundUniqueItems({ type: 'array', uniqueItems: true }) as { maxItems: number };
  t.equal(s.maxItems, UNIQUE_ITEMS_CAP);
  const plain = { type: 'object', properties: { a: { type: 'string' } } };
  t.equal(boundUniqueItems(plain), plain, 'a schema without uniqueItems is returned as it is');
  const v = compile({ type: 'array', uniqueItems: true });
  t.ok((v(Array.from({ length: UNIQUE_ITEMS_CAP + 1 }, (_, i) => i)) as { error?: unknown }).error);
  t.ok((v([1, 1]) as { error?: unknown }).error);
  t.same(v([1, 2]), { value: [1, 2] });
});
