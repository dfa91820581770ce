import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { publicRecord } from '../../core/keys.js';
import { editRecipe } from '../../services/index/test-helpers.js';
import { normalizeIndexUrl, type SyncSummary, syncIndex } from './client.js';
import { deviceStore, type IndexFixture, indexFixture, key, publishRecall, recipeRequests, resignManifest } from './index-fixture.js';

async function setup(
  t: Test,
  count = 12,
): Promise<{ f: IndexFixture; dev: ReturnType<typeof deviceStore>; sync: () => Promise<SyncSummary> }> {
  const f = await indexFixture(t.testdir(), { count });
  t.teardown(() => f.close());
  const dev = deviceStore();
  const trusted = [publicRecord(f.key)];
  const sync = () => syncIndex({ indexUrl: f.url, trusted, store: dev.store, recalls: dev.recalls, timeoutMs: 5000 });
  return { f, dev, sync };
}

const held = (dev: ReturnType<typeof deviceStore>, url: string) =>
  Object.fromEntries([...dev.store.held(url)].map(([id, h]) => [id, h.hash]));

t.test('first sync takes everything, a second one finds nothing to do', async (t) => {
  const { f, dev, sync } = await setup(t);
  const s = await sync();
  t.equal(s.outcome, 'applied', s.reason ?? 'applied');
  t.equal(s.from, null);
  t.equal(s.to, '1');
  t.equal(s.upserted, 12);
  t.equal(recipeRequests(f.requests).length, 12);
  t.equal(dev.store.state(f.url).version, '1');
  t.equal(dev.store.stagedCount(), 0, 'staging emptied once applied');
  f.requests.length = 0;
  const again = await sync();
  t.equal(again.outcome, 'unchanged');
  t.same(recipeRequests(f.requests), [], 'nothing downloaded again');
});

t.test('a tampered manifest is rejected and the old data kept', async (t) => {
  const { f, dev, sync } = await setup(t);
  t.equal((await sync()).outcome, 'applied');
  const before = held(dev, f.url);
  const file = join(f.siteDir, 'v1/manifest.json');
  const m = JSON.parse(readFileSync(file, 'utf8'));
  m.version = '7';
  writeFileSync(file, JSON.stringify(m));
  const s = await sync();
  t.equal(s.outcome, 'rejected');
  t.equal(s.reason, 'manifest bad_signature');
  t.equal(s.to, '1', 'still version 1');
  t.same(held(dev, f.url), before);
  t.equal(dev.store.state(f.url).version, '1');
  t.equal((dev.store.state(f.url).lastSummary as { reason?: string }).reason, 'manifest bad_signature', 'the attempt is recorded');

  // Signed properly, but by a key the device does not trust (though discovery may list it).
  resignManifest(f.siteDir, key('https://other.test#k9'));
  const other = await sync();
  t.equal(other.reason, 'manifest unknown_key');
  t.same(held(dev, f.url), before);
});

t.test('a tampered recipe is rejected, whether the manifest still lists the old bytes or was re-signed', async (t) => {
  const { f, dev, sync } = await setup(t);
  t.equal((await sync()).outcome, 'applied');
  const before = held(dev, f.url);
  const file = join(f.recipesDir, 'syn-00003.svc.json');
  editRecipe(file, (d) => {
    d.revision = 102;
  });
  f.build();
  const path = join(f.siteDir, 'v1/recipes/syn-00003.svc.json');
  const doc = JSON.parse(readFileSync(path, 'utf8'));
  doc.servings = 99; // content changed after hashing
  writeFileSync(path, JSON.stringify(doc));
  const raw = await sync();
  t.equal(raw.outcome, 'rejected');
  t.equal(raw.reason, 'shard hash mismatch for /v1/recipes/syn-00003.svc.json');
  resignManifest(f.siteDir, f.key);
  const resigned = await sync();
  t.equal(resigned.reason, 'recipe hash mismatch for syn-00003');
  t.same(held(dev, f.url), before, 'old recipes kept');
  t.equal(dev.store.state(f.url).version, '1');
});

t.test('a recall with a bad signature is rejected with the reason; a good one is applied', async (t) => {
  const { f, dev, sync } = await setup(t);
  t.equal((await sync()).outcome, 'applied');
  const stranger = key('https://stranger.test#k1');
  publishRecall(f, 'rc-1', 'syn-00001', { by: stranger });
  f.build({ trust: [stranger] }); // the index accepts it; the device does not trust that key
  const s = await sync();
  t.equal(s.outcome, 'rejected');
  t.equal(s.reason, 'recall unknown_key for rc-1');
  t.equal(dev.recalls.since().length, 0, 'no recall stored');
  t.equal(dev.store.state(f.url).version, '1');

  publishRecall(f, 'rc-1', 'syn-00001');
  f.build();
  const tampered = join(f.siteDir, 'v1/recalls/rc-1.json');
  const original = readFileSync(tampered);
  const doc = JSON.parse(original.toString('utf8'));
  doc.targets = [{ ref: 'syn-00002', allRevisions: true }];
  writeFileSync(tampered, JSON.stringify(doc));
  resignManifest(f.siteDir, f.key);
  t.equal((await sync()).reason, 'recall bad_signature for rc-1');

  writeFileSync(tampered, original); // the index fixes the file and signs again
  resignManifest(f.siteDir, f.key);
  const ok = await sync();
  t.equal(ok.outcome, 'applied', ok.reason ?? 'applied');
  t.same(ok.newRecallIds, ['rc-1']);
  const hash = dev.store.held(f.url).get('syn-00001')?.hash as string;
  t.equal(dev.recalls.blocking('syn-00001', hash)?.id, 'rc-1', 'a recall without an action blocks');
  t.equal(dev.recalls.blocking('syn-00002', 'sha256:x'), undefined);
});

t.test('an interrupted sync resumes without downloading again what it verified', async (t) => {
  const { f, dev, sync } = await setup(t, 40);
  f.fault.match = /^\/v1\/recipes\//;
  f.fault.dropFrom = 20;
  const cut = await sync();
  t.equal(cut.outcome, 'failed');
  t.match(cut.reason, /GET http:\/\/127\.0\.0\.1:\d+\/v1\/recipes\/.*/);
  t.equal(dev.store.state(f.url).version, null, 'nothing applied');
  t.same(held(dev, f.url), {});
  const staged = dev.store.stagedCount();
  t.ok(staged >= 10 && staged < 40, `some recipes staged (${staged})`);
  const firstRun = new Set(recipeRequests(f.requests));
  f.requests.length = 0;
  f.fault.dropFrom = undefined;
  const resumed = await sync();
  t.equal(resumed.outcome, 'applied', resumed.reason ?? 'applied');
  t.equal(resumed.upserted, 40);
  t.equal(resumed.reused, staged, 'staged recipes reused');
  const second = recipeRequests(f.requests);
  t.equal(second.length, 40 - staged, 'only the rest downloaded');
  t.ok(firstRun.size >= staged);
  t.equal(Object.keys(held(dev, f.url)).length, 40);
});

t.test('incremental sync downloads only the changed recipe and applies removals', async (t) => {
  const { f, dev, sync } = await setup(t);
  t.equal((await sync()).outcome, 'applied');
  const changed = editRecipe(join(f.recipesDir, 'syn-00005.svc.json'), (d) => {
    d.revision = 103;
  });
  rmSync(join(f.recipesDir, 'syn-00007.svc.json'));
  f.build();
  f.requests.length = 0;
  const s = await sync();
  t.equal(s.outcome, 'applied', s.reason ?? 'applied');
  t.equal(s.from, '1');
  t.equal(s.to, '2');
  t.equal(s.upserted, 1);
  t.equal(s.removed, 1);
  t.same(recipeRequests(f.requests), ['/v1/recipes/syn-00005.svc.json']);
  t.ok(f.requests.includes('/v1/changes/1.json'), 'read the changes since version 1');
  t.equal(held(dev, f.url)['syn-00005'], changed.hash);
  t.notOk('syn-00007' in held(dev, f.url));
});

t.test('a manifest older than the verified one is a rollback', async (t) => {
  const { f, dev, sync } = await setup(t);
  const v1 = readFileSync(join(f.siteDir, 'v1/manifest.json'));
  t.equal((await sync()).outcome, 'applied');
  editRecipe(join(f.recipesDir, 'syn-00001.svc.json'), (d) => {
    d.revision = 105;
  });
  f.build();
  t.equal((await sync()).to, '2');
  writeFileSync(join(f.siteDir, 'v1/manifest.json'), v1);
  const s = await sync();
  t.equal(s.reason, 'manifest version rollback (1 < 2)');
  t.equal(dev.store.state(f.url).version, '2');
});

t.test('an unreachable index fails cleanly; bad URLs are refused', async (t) => {
  const { f, sync } = await setup(t);
  await f.close();
  const s = await sync();
  t.equal(s.outcome, 'failed');
  t.match(s.reason, /ECONNREFUSED/);
  t.throws(() => normalizeIndexUrl('ftp://x'), /http or https/);
  t.throws(() => normalizeIndexUrl('nope'), /not a URL/);
  t.equal(normalizeIndexUrl('http://a.test/idx/'), 'http://a.test/idx');
});

t.test('without a changes file for the last verified version, sync compares the manifest with what it holds', async (t) => {
  const { f, dev, sync } = await setup(t);
  t.equal((await sync()).outcome, 'applied');
  const changed = editRecipe(join(f.recipesDir, 'syn-00002.svc.json'), (d) => {
    d.revision = 202;
  });
  f.build();
  resignManifest(f.siteDir, f.key, (p) => p.startsWith('/v1/changes/'));
  f.requests.length = 0;
  const s = await sync();
  t.equal(s.outcome, 'applied', s.reason ?? 'applied');
  t.equal(s.upserted, 1);
  t.same(recipeRequests(f.requests), ['/v1/recipes/syn-00002.svc.json']);
  t.notOk(
    f.requests.some((p) => p.startsWith('/v1/changes/')),
    'no changes file asked for',
  );
  t.equal(held(dev, f.url)['syn-00002'], changed.hash);
});
