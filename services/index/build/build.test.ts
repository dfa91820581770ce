import { existsSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import { sha256Hex } from '../../../core/hash.js';
import type { KeyRecord } from '../../../core/keys.js';
import { publicRecord } from '../../../core/keys.js';
import { signDocument, verifyDocument } from '../../../core/signature.js';
import { editRecipe, FIXED_NOW, readJson, smallCatalog, testKey } from '../test-helpers.js';
import { buildIndex } from './build.js';

const key = testKey();
const examplesRecipes = fileURLToPath(new URL('../../../examples/recipes/', import.meta.url));

function setup(t: Test, count = 30) {
  const root = t.testdir({ recipes: {}, out: {}, recalls: {} });
  const recipes = join(root, 'recipes');
  const out = join(root, 'out');
  const names = smallCatalog(recipes, count);
  return { root, recipes, out, names, recalls: join(root, 'recalls') };
}

type Shard = { path: string; hash: string; bytes: number };

t.test('a build writes discovery, a signed manifest whose shards match, recipes, pages, changes, dump and agent card', async (t) => {
  const { recipes, out, names } = setup(t);
  const r = buildIndex({ recipesDir: recipes, outDir: out, key, name: 'Test index', baseUrl: 'https://index.test', now: FIXED_NOW });
  t.equal(r.version, 1);
  t.equal(r.recipes, names.length);

  const discovery = readJson(join(out, '.well-known/svc.json'));
  t.equal(discovery.svc, '0.2.0');
  t.equal(discovery.name, 'Test index');
  t.same(discovery.versions, ['v1']);
  const keys = discovery.keys as KeyRecord[];
  t.same(keys, [publicRecord(key)], 'discovery publishes the public key only');
  t.notOk(JSON.stringify(discovery).includes(key.privateKey), 'no private key in discovery');
  t.equal((discovery.endpoints as Record<string, string>).manifest, 'https://index.test/v1/manifest.json');

  const manifest = readJson(join(out, 'v1/manifest.json'));
  t.same(Object.keys(manifest).sort(), ['counts', 'generatedAt', 'languages', 'shards', 'signature', 'svc', 'version']);
  t.equal(manifest.version, '1');
  t.equal(manifest.generatedAt, '2026-11-20T12:00:00Z');
  const v = verifyDocument(manifest, keys, { kind: 'Manifest' });
  t.ok(v.ok, `manifest signature verifies with the discovery key (${v.reason})`);
  t.notOk(verifyDocument({ ...manifest, version: '2' }, keys, { kind: 'Manifest' }).ok, 'a changed manifest no longer verifies');

  const shards = manifest.shards as Shard[];
  t.ok(shards.length >= names.length + 3);
  for (const s of shards) {
    const data = readFileSync(join(out, s.path));
    if (`sha256:${sha256Hex(data)}` !== s.hash || data.byteLength !== s.bytes) t.fail(`shard ${s.path} does not match`);
  }
  t.pass('every shard hash and size matches its file');
  for (const n of names)
    t.ok(
      shards.some((s) => s.path === `/v1/recipes/${n}`),
      `${n} is a shard`,
    );
  t.equal((manifest.counts as Record<string, number>).recipes, names.length);

  const page = readJson(join(out, 'v1/index/ar/0.json'));
  const items = page.items as Record<string, unknown>[];
  t.equal(items.length, names.length);
  const first = items[0] as Record<string, unknown>;
  t.match(first, { id: 'syn-00001', titleLang: 'ar', level: /^V[0-3]$/, hash: /^sha256:/ });
  t.match(first.title as string, /[\u0600-\u06FF]/, 'Arabic page carries Arabic titles');

  const changes = readJson(join(out, 'v1/changes/0.json'));
  t.equal(changes.from, '0');
  t.equal(changes.to, '1');
  t.equal((changes.upserted as unknown[]).length, names.length);
  t.same(changes.removed, []);
  t.same(changes.recalls, []);

  const dump = gunzipSync(readFileSync(join(out, 'v1/dumps/recipes.ndjson.gz')))
    .toString('utf8')
    .trim()
    .split('\n');
  t.equal(dump.length, names.length);

  const card = readJson(join(out, '.well-known/agent-card.json'));
  t.match(card, {
    name: 'Test index',
    supportedInterfaces: [{ url: 'https://index.test/v1/mcp' }],
    defaultInputModes: Array,
    defaultOutputModes: Array,
    capabilities: Object,
  });
  t.ok((card.skills as { id: string }[]).some((s) => s.id === 'search_recipes'));
  t.ok(Array.isArray(card.supportedInterfaces) && (card.supportedInterfaces as unknown[]).length > 0);
});

t.test('incremental rebuild rewrites only what changed and keeps a changes file per earlier version', async (t) => {
  const { recipes, out, names } = setup(t);
  buildIndex({ recipesDir: recipes, outDir: out, key, now: FIXED_NOW });
  const old = new Date('2026-01-02T00:00:00Z');
  for (const n of names) utimesSync(join(out, 'v1/recipes', n), old, old);

  const again = buildIndex({ recipesDir: recipes, outDir: out, key, now: FIXED_NOW });
  t.equal(again.version, 1, 'nothing changed: same version');
  t.equal(again.changed, false);
  t.equal(again.written, 0, 'nothing rewritten');

  const changedName = names[3] as string;
  const edited = editRecipe(join(recipes, changedName), (d) => {
    (d.dish as Record<string, unknown>).tags = ['edited'];
  });
  const r2 = buildIndex({ recipesDir: recipes, outDir: out, key, now: FIXED_NOW });
  t.equal(r2.version, 2);
  t.equal(r2.upserted, 1);
  for (const n of names) {
    const m = statSync(join(out, 'v1/recipes', n)).mtime.getTime();
    if (n === changedName) t.not(m, old.getTime(), 'the changed recipe was rewritten');
    else if (m !== old.getTime()) t.fail(`${n} was rewritten although unchanged`);
  }
  t.equal(readJson(join(out, 'v1/recipes', changedName)).hash, edited.hash);
  const dump = gunzipSync(readFileSync(join(out, 'v1/dumps/recipes.ndjson.gz'))).toString('utf8');
  t.ok(dump.includes(edited.hash as string), 'the dump follows the edit');
  const c1 = readJson(join(out, 'v1/changes/1.json'));
  t.same(c1.upserted, [{ id: edited.id, hash: edited.hash }]);
  t.equal(c1.to, '2');
  t.equal((readJson(join(out, 'v1/changes/0.json')).upserted as unknown[]).length, names.length);

  const gone = names[0] as string;
  rmSync(join(recipes, gone));
  const r3 = buildIndex({ recipesDir: recipes, outDir: out, key, now: FIXED_NOW });
  t.equal(r3.version, 3);
  t.equal(r3.removed, 1);
  t.notOk(existsSync(join(out, 'v1/recipes', gone)), 'the removed recipe file is deleted');
  const c2 = readJson(join(out, 'v1/changes/2.json'));
  t.same(c2.removed, [{ id: gone.replace('.svc.json', ''), reason: 'withdrawn' }]);
  t.same(c2.upserted, []);
  const c1b = readJson(join(out, 'v1/changes/1.json'));
  t.same(c1b.upserted, [{ id: edited.id, hash: edited.hash }], 'changes since 1 still list the edit');
  t.equal((c1b.removed as unknown[]).length, 1);
  t.same(readdirSync(join(out, 'v1/changes')).sort(), ['0.json', '1.json', '2.json']);
  t.equal(readJson(join(out, 'v1/manifest.json')).version, '3');
});

t.test('a recipe whose hash does not match is refused, naming the file', async (t) => {
  const { recipes, out, names } = setup(t, 5);
  const file = join(recipes, names[2] as string);
  const doc = readJson(file);
  (doc.dish as Record<string, unknown>).tags = ['tampered'];
  writeFileSync(file, JSON.stringify(doc));
  t.throws(() => buildIndex({ recipesDir: recipes, outDir: out, key, now: FIXED_NOW }), {
    name: 'BuildInputError',
    message: /hash mismatch/,
  });
  try {
    buildIndex({ recipesDir: recipes, outDir: out, key, now: FIXED_NOW });
  } catch (err) {
    t.match((err as Error).message, names[2] as string);
  }
  t.notOk(existsSync(join(out, 'v1/manifest.json')), 'nothing published');
});

function recall(target: string, signer = key, signedAt = '2026-10-04T10:00:00Z') {
  const doc = {
    core: '0.2.0',
    kind: 'Recall',
    id: 'rc-2026-001',
    issuedAt: signedAt,
    issuer: 'index.test',
    targets: [{ ref: `cw:index.test:${target}`, allRevisions: true }],
    severity: 'high',
    reason: 'food_safety',
    detail: 'Frying step had no oil-temperature limit.',
  };
  return signDocument(doc, signer, { kind: 'Recall', signedAt });
}

t.test('signed recalls are published in the changes; a recall with a bad signature is refused', async (t) => {
  const { recipes, out, recalls } = setup(t, 5);
  writeFileSync(join(recalls, 'rc.json'), JSON.stringify(recall('syn-00002')));
  const r = buildIndex({ recipesDir: recipes, outDir: out, key, recallsDir: recalls, now: FIXED_NOW });
  t.equal(r.recalls, 1);
  const changes = readJson(join(out, 'v1/changes/0.json'));
  t.same(changes.recalls, [{ id: 'syn-00002', severity: 'high', message: 'Frying step had no oil-temperature limit.' }]);
  t.ok(existsSync(join(out, 'v1/recalls/rc-2026-001.json')));

  const other = testKey('https://elsewhere.test#k9');
  writeFileSync(join(recalls, 'rc.json'), JSON.stringify(recall('syn-00002', other)));
  t.throws(() => buildIndex({ recipesDir: recipes, outDir: out, key, recallsDir: recalls, now: FIXED_NOW }), {
    message: /rc\.json.*unknown_key/,
  });
  const trusted = buildIndex({ recipesDir: recipes, outDir: out, key, recallsDir: recalls, trust: [publicRecord(other)], now: FIXED_NOW });
  t.equal(trusted.recalls, 1, 'accepted once its key is trusted');

  const forged = { ...recall('syn-00002'), severity: 'low' };
  writeFileSync(join(recalls, 'rc.json'), JSON.stringify(forged));
  t.throws(() => buildIndex({ recipesDir: recipes, outDir: out, key, recallsDir: recalls, now: FIXED_NOW }), { message: /bad_signature/ });
});

t.test('a new signing key is added to discovery; older keys stay published', async (t) => {
  const { recipes, out } = setup(t, 3);
  buildIndex({ recipesDir: recipes, outDir: out, key, now: FIXED_NOW });
  const k2 = testKey('https://index.test#k2');
  const r = buildIndex({ recipesDir: recipes, outDir: out, key: k2, now: FIXED_NOW });
  t.equal(r.version, 2, 'a key change is a change');
  const keys = readJson(join(out, '.well-known/svc.json')).keys as KeyRecord[];
  t.same(
    keys.map((k) => k.kid),
    [key.kid, k2.kid],
  );
  t.ok(verifyDocument(readJson(join(out, 'v1/manifest.json')), keys, { kind: 'Manifest' }).ok);
});

t.test('builds from the project examples', async (t) => {
  const out = join(t.testdir(), 'out');
  const r = buildIndex({ recipesDir: examplesRecipes, outDir: out, key, now: FIXED_NOW });
  t.equal(r.recipes, readdirSync(examplesRecipes).filter((f) => f.endsWith('.json')).length);
  const en = readJson(join(out, 'v1/index/en/0.json')).items as Record<string, unknown>[];
  t.match(
    en.find((e) => e.id === 'example-koshari'),
    { title: 'Koshari', level: 'V1', cuisine: ['EG'] },
  );
  const ar = readJson(join(out, 'v1/index/ar/0.json')).items as Record<string, unknown>[];
  t.match(
    ar.find((e) => e.id === 'example-koshari'),
    { title: 'كشري', titleLang: 'ar' },
  );
});

t.test('a recipe that fails the schema is refused with the member at fault', async (t) => {
  const { recipes, out, names } = setup(t, 3);
  editRecipe(join(recipes, names[1] as string), (d) => {
    (d.verification as Record<string, unknown>).level = 'V7';
  });
  t.throws(() => buildIndex({ recipesDir: recipes, outDir: out, key, now: FIXED_NOW }), {
    message: new RegExp(`${names[1]}: recipe syn-00002 is not a valid recipe document: /verification/level`),
  });
});

t.test('a second build into the same folder at the same time is refused', async (t) => {
  const { recipes, out } = setup(t, 2);
  writeFileSync(join(out, '.hearth-index.lock'), '');
  t.throws(() => buildIndex({ recipesDir: recipes, outDir: out, key, now: FIXED_NOW }), { message: /another build is writing/ });
  rmSync(join(out, '.hearth-index.lock'));
  t.equal(buildIndex({ recipesDir: recipes, outDir: out, key, now: FIXED_NOW }).version, 1);
  t.notOk(existsSync(join(out, '.hearth-index.lock')), 'the lock is released');
});

t.test('a rebuild heals a published file that was edited on disk, even at the same size', async (t) => {
  const { recipes, out, names } = setup(t, 5);
  buildIndex({ recipesDir: recipes, outDir: out, key, now: FIXED_NOW });
  const file = join(out, 'v1/recipes', names[1] as string);
  const original = readFileSync(file, 'utf8');
  const tampered = original.replace(/sha256:([0-9a-f])/, (_m, c: string) => `sha256:${c === 'a' ? 'b' : 'a'}`);
  t.not(tampered, original, 'the fixture has something to tamper with');
  t.equal(Buffer.byteLength(tampered), Buffer.byteLength(original), 'same size');
  writeFileSync(file, tampered);
  const r = buildIndex({ recipesDir: recipes, outDir: out, key, now: FIXED_NOW });
  t.equal(r.changed, false, 'the catalog did not change');
  t.equal(readFileSync(file, 'utf8'), original, 'the published file is rewritten from the source');
  const manifest = readJson(join(out, 'v1/manifest.json'));
  const shard = (manifest.shards as Shard[]).find((s) => file.endsWith(s.path));
  t.equal(shard?.hash, `sha256:${sha256Hex(readFileSync(file))}`, 'the manifest matches the file on disk');
});
