import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import t, { type Test } from 'tap';
import { ManualClock } from '../../drivers/clock.js';
import { App } from '../app/app.js';
import { newKey } from '../app/testing.js';
import { resolveConfig } from '../config/config.js';
import { packageRoot } from '../config/paths.js';
import type { BusEvents } from '../events/bus.js';
import { startHub } from '../hub/test-helpers.js';
import { syncFeature } from './feature.js';
import { type IndexFixture, indexFixture, publishRecall } from './index-fixture.js';

const KOSHARI = 'example-koshari';
const neverFire = { setTimeout: () => 0, clearTimeout: () => {} };

async function device(t: Test, dataDir: string, f?: IndexFixture) {
  const recipes = join(dataDir, '..', 'empty-recipes');
  mkdirSync(recipes, { recursive: true });
  const config = {
    ...resolveConfig({ dataDir, httpPort: '0' }),
    logLevel: 'silent' as const,
    recipes,
    ...(f ? { index: [f.url], trust: f.trustFile } : {}),
  };
  const app = await App.create(config, {
    clock: new ManualClock(Date.UTC(2026, 10, 20, 12)),
    logger: pino({ level: 'silent' }),
    supervisor: { watchdogStallMs: 2000 },
  });
  app.use(syncFeature({ timers: neverFire, timeoutMs: 5000 }));
  const events: BusEvents['sync'][] = [];
  app.ctx.bus.on('sync', (e) => events.push(e));
  await app.start({ listen: false });
  const admin = `Bearer ${app.ctx.tokens.create({ name: 'admin', scopes: ['read', 'cook', 'admin'] }).token}`;
  const reader = `Bearer ${app.ctx.tokens.create({ name: 'reader', scopes: ['read'] }).token}`;
  let stopped = false;
  const stop = async () => {
    if (!stopped) await app.stop();
    stopped = true;
  };
  t.teardown(stop);
  const sync = (auth = admin) =>
    app.ctx.http.inject({ method: 'POST', url: '/svc/v1/sync', headers: { authorization: auth, 'idempotency-key': newKey() } });
  const execute = (id: string) => {
    const key = newKey();
    const recipe = app.ctx.recipes.get(id);
    return app.ctx.http.inject({
      method: 'POST',
      url: '/v1/executions',
      headers: { authorization: admin, 'idempotency-key': key },
      payload: {
        core: '0.2.0',
        kind: 'ExecuteRequest',
        id: `req-${key}`,
        recipe: id,
        recipeHash: recipe?.hash ?? 'sha256:00',
        requestedBy: 'household:test',
        idempotencyKey: key,
      },
    });
  };
  return { app, admin, reader, events, sync, execute, stop };
}

t.test('synced recipes become cookable; a synced recall is refused, also offline and after a restart', async (t) => {
  const dir = t.testdir();
  const f = await indexFixture(join(dir, 'index'), { count: 5, extra: [join(packageRoot(), 'examples/recipes/koshari.svc.json')] });
  t.teardown(() => f.close());
  const dataDir = join(dir, 'device');
  const d = await device(t, dataDir, f);
  t.equal(d.app.ctx.recipes.get(KOSHARI), undefined, 'nothing to cook before the first sync');

  const first = await d.sync();
  t.equal(first.statusCode, 200);
  t.equal(first.json().results[0].outcome, 'applied');
  t.equal(first.json().results[0].upserted, 6);
  t.match(first.json().summary[0], /version none → 1, 6 upserted/);
  t.ok(d.app.ctx.recipes.get(KOSHARI), 'koshari arrived');
  d.app.ctx.rig.sim?.setPresence(true);
  const ok = await d.execute(KOSHARI);
  t.equal(ok.statusCode, 202);
  t.not(ok.json().state, 'refused', 'the synced recipe starts');
  d.app.ctx.executor.stopAll('test over');

  publishRecall(f, 'rc-koshari', KOSHARI);
  f.build();
  const second = await d.sync();
  t.equal(second.json().results[0].outcome, 'applied');
  t.same(second.json().results[0].newRecallIds, ['rc-koshari']);
  const kinds = d.events.map((e) => e.kind);
  t.ok(kinds.includes('started') && kinds.includes('applied') && kinds.includes('recall'), kinds.join(','));

  await f.stopServer();
  const offline = await d.sync();
  t.equal(offline.statusCode, 200);
  t.equal(offline.json().results[0].outcome, 'failed');
  t.equal(d.events.at(-1)?.kind, 'failed');
  const refused = await d.execute(KOSHARI);
  t.equal(refused.statusCode, 202);
  t.equal(refused.json().state, 'refused');
  t.equal(refused.json().refusal.reason, 'recipe_recalled', 'refused while the index is down');

  const status = await d.app.ctx.http.inject({ method: 'GET', url: '/svc/v1/sync', headers: { authorization: d.reader } });
  t.equal(status.statusCode, 200);
  t.equal(status.json().indexes[0].version, '2');
  t.same(status.json().indexes[0].recalls, ['rc-koshari']);
  t.equal(status.json().indexes[0].last.outcome, 'failed');

  await d.stop();
  const again = await device(t, dataDir, f);
  t.ok(again.app.ctx.recipes.get(KOSHARI), 'synced recipes survive a restart');
  const still = await again.execute(KOSHARI);
  t.equal(still.json().refusal?.reason, 'recipe_recalled', 'refused after a restart with the index down');
});

t.test('POST /svc/v1/sync needs admin and an Idempotency-Key; without an index it is a conflict', async (t) => {
  const dir = t.testdir();
  const d = await device(t, join(dir, 'device'));
  const forbidden = await d.sync(d.reader);
  t.equal(forbidden.statusCode, 403);
  const noKey = await d.app.ctx.http.inject({ method: 'POST', url: '/svc/v1/sync', headers: { authorization: d.admin } });
  t.equal(noKey.statusCode, 400);
  const none = await d.sync();
  t.equal(none.statusCode, 409);
  t.match(none.json().detail, /--index URL --trust FILE/);
  const status = await d.app.ctx.http.inject({ method: 'GET', url: '/svc/v1/sync', headers: { authorization: d.reader } });
  t.same(status.json().indexes, []);
});

t.test('an index without a trust file is a configuration error', async (t) => {
  const dir = t.testdir();
  const config = {
    ...resolveConfig({ dataDir: join(dir, 'd'), httpPort: '0' }),
    logLevel: 'silent' as const,
    index: ['http://127.0.0.1:9/'],
  };
  const app = await App.create(config, { logger: pino({ level: 'silent' }), clock: new ManualClock(0) });
  app.use(syncFeature({ timers: neverFire }));
  await t.rejects(app.start({ listen: false }), /--index needs --trust FILE/);
  await app.stop();
});

t.test('the hub refuses to start a session whose recipe a synced recall names', async (t) => {
  const dir = t.testdir();
  const f = await indexFixture(join(dir, 'index'), { count: 2, extra: [join(packageRoot(), 'examples/recipes/koshari.svc.json')] });
  t.teardown(() => f.close());
  mkdirSync(join(dir, 'none'));
  const h = await startHub({
    recipes: join(dir, 'none'),
    beforeStart: (app) => {
      app.ctx.config.index = [f.url];
      app.ctx.config.trust = f.trustFile;
      app.use(syncFeature({ timers: neverFire }));
    },
  });
  t.teardown(() => h.close());
  const admin = h.token(['admin', 'read']);
  const person = h.token(['cook', 'read']);
  t.ok(Array.isArray((await h.call('POST', '/svc/v1/sync', { token: admin })).body.results), 'synced');
  const created = await h.call('POST', '/svc/v1/sessions', {
    token: person,
    body: { recipes: [{ recipeId: KOSHARI, servings: 2 }], serveAt: '2026-06-01T19:00:00+02:00', mode: 'assisted' },
  });
  t.equal(created.status, 201, 'a synced recipe can be planned');
  const s = created.body as { id: string; confirmation: { requiredRules: string[] } };
  const c = await h.call('POST', `/svc/v1/sessions/${s.id}/confirm`, {
    token: person,
    body: { acknowledgedRules: s.confirmation.requiredRules },
  });
  t.equal(c.status, 200);
  publishRecall(f, 'rc-koshari', KOSHARI, { action: 'block_and_stop_running' });
  f.build();
  const synced = await h.call('POST', '/svc/v1/sync', { token: admin });
  t.same((synced.body.results as { newRecallIds: string[] }[])[0]?.newRecallIds, ['rc-koshari']);
  await f.stopServer();
  await h.presence(true);
  const start = await h.call('POST', `/svc/v1/sessions/${s.id}/start`, { token: person });
  t.equal(start.status, 409);
  t.match(start.body.type, /\/errors\/recalled$/);
  const recalls = await h.call('GET', '/v1/recalls');
  t.match(JSON.stringify(recalls.body), /rc-koshari/, 'GET /v1/recalls lists the synced recall');
});
