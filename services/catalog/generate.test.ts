import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parseJson } from '../../core/canonical.js';
import { documentHash } from '../../core/hash.js';
import { validate } from '../../schemas/index.js';
import { opEnvelope } from '../../schemas/vocab.js';
import { generateCatalog, MAX_COUNT, writeCatalog } from './generate.js';

type Doc = Record<string, unknown>;
const docs = (files: { text: string }[]) => files.map((f) => parseJson(f.text) as Doc);

t.test('the same seed gives byte-identical output; another seed does not', async (t) => {
  const a = generateCatalog(50, 'alpha');
  const b = generateCatalog(50, 'alpha');
  t.same(a, b);
  const c = generateCatalog(50, 'beta');
  t.not(a.map((f) => f.text).join(''), c.map((f) => f.text).join(''));
  const dir = t.testdir();
  writeCatalog(join(dir, 'one'), 20, 's');
  writeCatalog(join(dir, 'two'), 20, 's');
  for (const name of readdirSync(join(dir, 'one'))) {
    t.equal(readFileSync(join(dir, 'two', name), 'utf8'), readFileSync(join(dir, 'one', name), 'utf8'), name);
  }
});

t.test('every recipe validates, has a valid hash and every parameter inside its envelope band', async (t) => {
  const all = docs(generateCatalog(400, 'bands'));
  let checked = 0;
  for (const d of all) {
    if (documentHash(d) !== d.hash) t.fail(`${d.id} hash`);
    const v = validate.recipe(d);
    if (!v.valid) t.fail(`${d.id} fails the recipe schema: ${JSON.stringify(v.issues.slice(0, 2))}`);
    for (const node of (d.process as { nodes: Doc[] }).nodes) {
      const env = opEnvelope(node.op as string);
      const p = (node.params ?? {}) as Record<string, number>;
      if (env?.tempC) {
        checked++;
        if (!(typeof p.tempC === 'number' && p.tempC >= env.tempC.min && p.tempC <= env.tempC.max))
          t.fail(`${d.id}/${node.id} tempC ${p.tempC}`);
      }
      if (env?.pressureKPa && !(p.pressureKPa >= env.pressureKPa.min && p.pressureKPa <= env.pressureKPa.max))
        t.fail(`${d.id}/${node.id} pressure`);
    }
  }
  t.ok(checked > 300, `checked ${checked} heat steps`);
  const ids = new Set(all.map((d) => d.id));
  t.equal(ids.size, all.length, 'ids are unique');
  const levels = new Set(all.map((d) => (d.verification as Doc).level));
  t.same([...levels].sort(), ['V0', 'V1', 'V2', 'V3']);
});

t.test('titles come in several languages, with Arabic diacritics and accented Latin', async (t) => {
  const all = docs(generateCatalog(200, 'titles'));
  const names = all.map((d) => (d.dish as Doc).names as Record<string, string>);
  for (const lang of ['en', 'fr', 'es', 'de', 'tr', 'ar'])
    t.ok(
      names.every((n) => typeof n[lang] === 'string'),
      `every recipe has a ${lang} title`,
    );
  t.ok(
    names.some((n) => /[\u064B-\u0652]/.test(n.ar as string)),
    'Arabic titles carry tashkeel',
  );
  t.ok(
    names.some((n) => /[éèçñüöäâ]/.test(`${n.fr}${n.es}${n.de}${n.tr}`)),
    'Latin titles carry accents',
  );
});

t.test('count is bounded', async (t) => {
  t.throws(() => generateCatalog(0, 's'), RangeError);
  t.throws(() => generateCatalog(MAX_COUNT + 1, 's'), RangeError);
  t.throws(() => generateCatalog(1.5, 's'), RangeError);
  t.equal(generateCatalog(1, 's').length, 1);
});
