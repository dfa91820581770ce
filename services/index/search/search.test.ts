import t from 'tap';
import { parseJson } from '../../../core/canonical.js';
import { generateCatalog } from '../../catalog/generate.js';
import { LEVELS, type RecipeFacts, recipeFacts } from '../entry.js';
import { SearchIndex } from './search.js';
import { editDistance, foldText, tokens } from './text.js';

const facts: RecipeFacts[] = generateCatalog(300, 'search').map((f) => recipeFacts(parseJson(f.text) as Record<string, unknown>));
const index = new SearchIndex(facts);
const titlesOf = (id: string) => facts.find((f) => f.id === id)?.titles ?? {};

t.test('folding removes accents, tashkeel and unifies Arabic letter forms', async (t) => {
  t.equal(foldText('Crème Brûlée'), 'creme brulee');
  t.equal(foldText('Straße Œuf'), 'strasse oeuf');
  t.equal(foldText('كُشَرِي'), 'كشري');
  t.equal(foldText('أَرُزٌّ إِسْكَنْدَرَانِيّ آمِن ٱلْ'), 'ارز اسكندراني امن ال');
  t.equal(foldText('شُورْبَة'), 'شوربه', 'ta marbuta → ha');
  t.equal(foldText('مَقْلِيّ عَلَى'), 'مقلي علي', 'alef maqsura → ya');
  t.equal(foldText('كـــشري ١٢'), 'كشري 12', 'tatweel removed, Arabic-Indic digits');
  t.same(tokens('Koshari, Alexandria-style!'), ['koshari', 'alexandria', 'style']);
});

t.test('edit distance counts a transposition as one edit and stops early', async (t) => {
  t.equal(editDistance('shakshuka', 'shakshuka', 2), 0);
  t.equal(editDistance('shakshuak', 'shakshuka', 2), 1);
  t.equal(editDistance('kitten', 'sitting', 3), 3);
  t.equal(editDistance('abc', 'xyzxyz', 1), 2, 'gives up beyond max');
});

function ids(q: string, extra = {}) {
  return index.search({ q, limit: 100, ...extra }).items.map((e) => e.id);
}

t.test('search tolerates typos, missing accents and Arabic diacritics', async (t) => {
  const exact = ids('shakshuka');
  t.ok(exact.length > 0, 'the English title is found');
  t.ok(exact.every((id) => /shakshuka/i.test(titlesOf(id).en ?? '')));
  t.same(ids('shakshuak'), exact, 'a transposition typo finds the same recipes');
  t.same(ids('shakshoka'), exact, 'a substitution typo finds the same recipes');

  const brulee = ids('creme brulee');
  t.ok(brulee.length > 0 && brulee.every((id) => (titlesOf(id).fr ?? '').includes('Crème brûlée')), 'no accents typed');
  t.same(ids('CRÈME BRÛLÉE'), brulee);

  const arabic = ids('كشري');
  t.ok(arabic.length > 0, 'Arabic without tashkeel finds the vowelled title');
  t.ok(arabic.every((id) => (titlesOf(id).ar ?? '').startsWith('كُشَرِي')));
  t.same(ids('كُشَرِي'), arabic, 'with tashkeel too');

  const soup = ids('شوربه عدس');
  t.ok(soup.length > 0 && soup.every((id) => (titlesOf(id).ar ?? '').includes('شُورْبَةُ عَدَسٍ')), 'ha for ta marbuta');
  t.ok(ids('ارز باللبن').length > 0, 'bare alef and the article attached to a preposition');
  t.same(ids('xylophone'), [], 'nonsense finds nothing');
  t.same(ids('koshari zzzzzz'), [], 'every word must match');
});

t.test('prefixes and ranking: exact title words before fuzzy ones', async (t) => {
  t.same(ids('shaksh'), ids('shakshuka'), 'prefix');
  const r = index.search({ q: 'paella', limit: 3 });
  t.ok(r.items.length > 0);
  t.match(r.items[0]?.title ?? '', /Paella/);
});

t.test('filters and paging', async (t) => {
  const v2 = index.search({ minLevel: 'V2', limit: 100 });
  t.ok(v2.total > 0 && v2.items.every((e) => LEVELS.indexOf(e.level) >= 2));
  t.ok(v2.total < facts.length);
  const es = index.search({ cuisine: ['es'], limit: 100 });
  t.ok(es.total > 0 && es.items.every((e) => e.cuisine.includes('ES')));
  const noGluten = index.search({ excludeAllergens: ['cereals_gluten', 'milk'], limit: 100 });
  t.ok(noGluten.total > 0 && noGluten.items.every((e) => !e.allergensEU.includes('cereals_gluten') && !e.allergensEU.includes('milk')));
  const p1 = index.search({ limit: 10 });
  const p2 = index.search({ limit: 10, offset: 10 });
  t.equal(p1.total, facts.length);
  t.equal(p1.nextCursor, '10');
  t.equal(p1.items.length, 10);
  t.notOk(
    p1.items.some((e) => p2.items.some((x) => x.id === e.id)),
    'pages do not overlap',
  );
  const ar = index.search({ q: 'paella', lang: 'ar', limit: 1 });
  t.equal(ar.items[0]?.titleLang, 'ar');
  t.match(ar.items[0]?.title ?? '', /بَايِيَّا/);
});
