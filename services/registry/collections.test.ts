import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { documentHash } from '../../core/hash.js';
import { readRecalls, readTrustFile } from '../index/build/sources.js';
import { exportDocuments } from './documents.js';
import { entry, idemKey, recipe, sha, startHarness } from './testing/fixtures.js';

t.test('recipe collections: fetched from an allowed base, hash-checked, envelope-checked', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.close());
  const token = await h.prove('org.example');
  const serve = (path: string, doc: unknown) => {
    const text = JSON.stringify(doc);
    h.web.set(path, text);
    return { url: h.web.url(path), sha256: sha(text) };
  };
  const validate = (body: unknown) => h.call('POST', '/v1/registry/validate', { body, token });
  const coll = (at: { url: string; sha256: string }, extra = {}) =>
    entry('org.example/soups', '1.0.0', { kind: 'recipe_collection', ...at, ...extra });

  const hashed = { ...recipe('soup-1', 90), hash: '' };
  hashed.hash = documentHash(hashed);
  const good = serve('/collections/good.json', { recipes: [hashed, recipe('soup-2', 92)] });
  t.same((await validate(coll(good))).body, { valid: true, issues: [] });
  const single = serve('/collections/single.json', recipe('soup-3', 88));
  t.same((await validate(coll(single))).body, { valid: true, issues: [] }, 'one recipe is a collection of one');

  const hot = serve('/collections/hot.json', [
    recipe('ok', 90),
    recipe('too-hot', 150),
    recipe('string', '90'),
    recipe('fry', 185, 'cw.op.fry'),
  ]);
  const r = await validate(coll(hot));
  t.equal(r.body.valid, false);
  t.same(
    r.body.issues.map((i: { code: string; path: string; message: string }) => `${i.code} ${i.path} ${i.message}`),
    [
      'semantics /url recipe too-hot (collection pointer /recipes/1/process/nodes/0/params/tempC): params.tempC 150 °C is outside the cw.op.simmer envelope 85–96 °C: a recipe may narrow an envelope, never widen it',
      'semantics /url recipe string (collection pointer /recipes/2/process/nodes/0/params/tempC): params.tempC must be a number of °C, not "90"',
    ],
  );

  const heat = serve('/collections/heat.json', [
    {
      id: 'sear',
      process: {
        nodes: [
          { id: 'n1', op: 'cw.op.sear', params: { heat: 'low' } },
          { id: 'n2', op: 'cw.op.teleport' },
        ],
      },
    },
  ]);
  const hr = await validate(coll(heat));
  t.match(hr.body.issues, [
    { code: 'semantics', message: /nodes\/0\/params\/heat\): heat "low" \(pan 120–150 °C\) cannot hold the cw.op.sear envelope 200–260/ },
    { code: 'semantics', message: /nodes\/1\/op\): unknown operation cw.op.teleport/ },
  ]);

  const tampered = serve('/collections/tampered.json', [{ ...hashed, id: 'soup-1-changed' }]);
  t.match(
    (await validate(coll(tampered))).body.issues,
    [{ code: 'hash', path: '/url', message: /\/recipes\/0\/hash\): declared hash sha256:[0-9a-f]{64} does not match/ }],
    'recipe hash is checked',
  );

  const mismatch = await validate(coll({ url: good.url, sha256: sha('something else') }));
  t.match(mismatch.body.issues, [
    { code: 'hash', path: '/sha256', message: `the collection at url hashes to ${good.sha256}, not ${sha('something else')}` },
  ]);

  const outside = await validate(coll({ url: 'https://elsewhere.example/c.json', sha256: good.sha256 }));
  t.match(outside.body.issues, [{ code: 'semantics', path: '/url', message: /must lie under/ }]);
  const gone = await validate(coll({ url: h.web.url('/collections/missing.json'), sha256: good.sha256 }));
  t.match(gone.body.issues, [{ code: 'semantics', path: '/url', message: /answered 404/ }]);
  h.web.set('/collections/junk.json', '{not json');
  const junk = await validate(coll({ url: h.web.url('/collections/junk.json'), sha256: sha('{not json') }));
  t.match(junk.body.issues, [{ code: 'semantics', message: /not valid JSON/ }]);
  const none = serve('/collections/none.json', { title: 'no recipes' });
  t.match((await validate(coll(none))).body.issues, [{ code: 'semantics', message: /holds no recipes/ }]);

  const refused = await h.call('POST', '/v1/registry/publish', { body: coll(hot), token, key: idemKey() });
  t.equal(refused.status, 422, 'publish runs the same checks');
  const pub = await h.call('POST', '/v1/registry/publish', { body: coll(good), token, key: idemKey() });
  t.equal(pub.status, 201);
});

t.test('recalling a collection names its recipes, and the index build accepts the exported recalls', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.close());
  const token = await h.prove('org.example');
  const soup = recipe('lentil-soup', 90);
  const text = JSON.stringify({ recipes: [soup, recipe('rice-pudding', 88)] });
  h.web.set('/collections/home.json', text);
  const body = entry('org.example/home', '1.0.0', {
    kind: 'recipe_collection',
    url: h.web.url('/collections/home.json'),
    sha256: sha(text),
    'x-recipes': [{ id: 'forged', hash: 'x' }],
  });
  const pub = await h.call('POST', '/v1/registry/publish', { body, token, key: idemKey() });
  t.equal(pub.status, 201);
  t.same(
    pub.body['x-recipes'],
    [
      { id: 'lentil-soup', hash: documentHash(soup) },
      { id: 'rice-pudding', hash: documentHash(recipe('rice-pudding', 88)) },
    ],
    'the registry records what the collection holds, not what the publisher claims',
  );
  const plain = await h.call('POST', '/v1/registry/publish', {
    body: entry('org.example/rules', '1.0.0', { 'x-recipes': [{ id: 'forged', hash: 'x' }] }),
    token,
    key: idemKey(),
  });
  t.notOk('x-recipes' in plain.body, 'only collections carry recipes');

  const rec = await h.call('PATCH', '/v1/registry/entries/org.example/home/status', {
    body: { status: 'recalled', message: 'Undercooked lentils' },
    token,
    key: idemKey(),
  });
  t.same(rec.body.recall.targets, [
    { ref: 'lentil-soup', hash: documentHash(soup) },
    { ref: 'rice-pudding', hash: documentHash(recipe('rice-pudding', 88)) },
  ]);
  await h.call('PATCH', '/v1/registry/entries/org.example/rules/status', { body: { status: 'recalled' }, token, key: idemKey() });

  const out = mkdtempSync(join(tmpdir(), 'registry-export-'));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  const files = await exportDocuments(h.reg.ctx, out);
  t.same(files.map((f) => f.slice(out.length)).sort(), [
    '/v1/directory.json',
    '/v1/recalls.json',
    '/v1/recalls/rc-000001.json',
    '/v1/registry-keys.json',
    '/v1/registry.json',
  ]);
  const trust = readTrustFile(join(out, 'v1', 'registry-keys.json'));
  const recalls = readRecalls(join(out, 'v1', 'recalls'), trust);
  t.same(
    recalls.map((r) => r.items),
    [
      [
        { id: 'lentil-soup', severity: 'high', message: 'Undercooked lentils', hash: documentHash(soup) },
        { id: 'rice-pudding', severity: 'high', message: 'Undercooked lentils', hash: documentHash(recipe('rice-pudding', 88)) },
      ],
    ],
  );
  t.throws(() => readRecalls(join(out, 'v1', 'recalls'), []), /signature check failed/, 'and only with the registry key');
});
