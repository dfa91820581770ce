import { readFileSync } from 'node:fs';
import t from 'tap';
import { isProblemSlug, problem, problemCatalog } from './problems.js';

t.test('every catalog slug is documented in docs/errors.md with its status', (t) => {
  const doc = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
  for (const [slug, entry] of Object.entries(problemCatalog)) {
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${slug}\` |`));
    t.ok(row, `${slug} has a row`);
    t.match(row ?? '', new RegExp(`\\| ${entry.status} \\|`), `${slug} documents status ${entry.status}`);
  }
  t.end();
});

t.test('problem() builds an RFC 9457 document under the base', (t) => {
  const p = problem('http://127.0.0.1:8080/', 'hash-mismatch', 'expected sha256:ab', { reason: 'recipe_hash_mismatch' });
  t.same(p, {
    type: 'http://127.0.0.1:8080/errors/hash-mismatch',
    title: 'Recipe hash does not match',
    status: 409,
    detail: 'expected sha256:ab',
    reason: 'recipe_hash_mismatch',
  });
  t.ok(isProblemSlug('rate-limited'));
  t.notOk(isProblemSlug('toString'));
  t.end();
});
