import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudEvent } from 'cloudevents';
import { Webhook } from 'standardwebhooks';
import t from 'tap';
import { OutboundGuard } from '../../platform/net/outbound.js';
import { EventBus } from '../events/bus.js';
import { EventHub } from '../events/hub.js';
import { EventJournal } from '../events/journal.js';
import { makeKitchen, openStore, tripEvent, until } from '../events/testing.js';
import { WebhooksFeature } from './feature.js';

/** The receivers here listen on 127.0.0.1, which only the operator's allow-list opens. */
const LOOPBACK_OK = new OutboundGuard({ allow: ['127.0.0.1'] });

import { WebhookOutbox } from './outbox.js';
import { standardWebhooksSecret } from './sign.js';
import { WebhookStore } from './store.js';

const SECRET = 'a-long-shared-secret-for-tests';

interface Hit {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver that answers `statuses` in turn (then 200), recording every request. */
async function receiver(statuses: number[] = []) {
  const hits: Hit[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString();
    });
    req.on('end', () => {
      hits.push({ headers: req.headers, body });
      res.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  return { hits, url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

t.test('a delivery is a structured CloudEvent whose signatures verify independently', async (t) => {
  const rx = await receiver();
  t.teardown(rx.close);
  const k = makeKitchen();
  const wh = new WebhooksFeature({ hub: k.hub, db: k.db, guard: LOOPBACK_OK });
  wh.store.create({ url: rx.url, types: ['svc.safety.', 'svc.task.'], secret: SECRET, owner: 'tok_1' });
  wh.start();
  t.teardown(() => wh.stop());
  k.bus.emit('telemetry', { sensor: 'oil', svcSensor: 'oil_temp', tempC: 1, at: new Date().toISOString() });
  k.bus.emit('heater', { heater: 'h', power: 1, at: new Date().toISOString() });
  k.bus.emit('safety', tripEvent());
  await until(() => rx.hits.length === 1, 30_000, 'delivery');
  const hit = rx.hits[0]!;
  t.equal(hit.headers['content-type'], 'application/cloudevents+json; charset=utf-8');
  const mac = createHmac('sha256', SECRET).update(hit.body).digest('hex');
  t.equal(hit.headers['x-svc-signature'], `sha256=${mac}`, 'X-Svc-Signature is the hex HMAC-SHA256 of the raw body');
  const verified = new Webhook(standardWebhooksSecret(SECRET)).verify(hit.body, hit.headers as Record<string, string>) as { id: string };
  const ce = new CloudEvent(JSON.parse(hit.body), true);
  t.equal(ce.type, 'svc.safety.limit_tripped');
  t.equal(verified.id, ce.id);
  t.equal(hit.headers['webhook-id'], ce.id, 'webhook-id is the CloudEvent id');
  t.throws(() => new Webhook(standardWebhooksSecret('another-secret-entirely')).verify(hit.body, hit.headers as Record<string, string>));
  const tampered = hit.body.replace('heat_off_all', 'none');
  t.not(createHmac('sha256', SECRET).update(tampered).digest('hex'), mac);
  await new Promise((r) => setTimeout(r, 100));
  t.equal(rx.hits.length, 1, 'heater and telemetry events did not match the subscription');
  k.db.close();
});

t.test('backoff doubles, is capped, and has jitter', async (t) => {
  const store = new WebhookStore(openStore());
  const lo = new WebhookOutbox({ store, random: () => 0, baseMs: 1000, capMs: 60_000 });
  const hi = new WebhookOutbox({ store, random: () => 0.999, baseMs: 1000, capMs: 60_000 });
  t.same(
    [1, 2, 3, 4].map((n) => lo.backoff(n)),
    [500, 1000, 2000, 4000],
  );
  t.same(
    [1, 2, 3].map((n) => hi.backoff(n)),
    [1000, 1999, 3998],
  );
  t.equal(lo.backoff(30), 30_000, 'capped: half of the cap at the lowest jitter');
  t.ok(hi.backoff(30) <= 60_000);
});

t.test('retries a failing receiver with backoff and finishes after a restart on the same store', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-outbox-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'hearth.db');
  const rx = await receiver([503, 500]);
  t.teardown(rx.close);
  let clock = Date.now();
  const now = () => clock;

  // First process: the event is queued, the first attempt fails.
  const db1 = openStore(file);
  const hub1 = new EventHub({ bus: new EventBus(), journal: new EventJournal(db1, now), kitchenId: 'k1' });
  const store1 = new WebhookStore(db1, now);
  const sub = store1.create({ url: rx.url, types: ['svc.task.'], secret: SECRET, owner: 'tok_1' });
  const ob1 = new WebhookOutbox({ store: store1, now, random: () => 0.5, baseMs: 1000, guard: LOOPBACK_OK });
  const ev = hub1.publish('task.updated', { taskId: 't1', state: 'done', at: new Date(clock).toISOString(), task: {} });
  t.equal(ob1.enqueue(ev.ce, ev.body), 1);
  t.equal(await ob1.runDue(), 1);
  t.equal(rx.hits.length, 1);
  t.same(store1.stats(sub.id), { pending: 1, delivered: 0, failed: 0, lastError: 'receiver answered HTTP 503', lastStatus: 503 });
  t.equal(await ob1.runDue(), 0, 'not due again before its backoff');
  await ob1.stop();
  db1.close();

  // Second process, same file: the retry happens once the clock passes the backoff.
  const db2 = openStore(file);
  const store2 = new WebhookStore(db2, now);
  const ob2 = new WebhookOutbox({ store: store2, now, random: () => 0.5, baseMs: 1000, guard: LOOPBACK_OK });
  clock += 749;
  t.equal(await ob2.runDue(), 0, 'first retry waits 750 ms (1 s, jitter 0.5)');
  clock += 1;
  t.equal(await ob2.runDue(), 1);
  t.equal(rx.hits.length, 2);
  clock += 1499;
  t.equal(await ob2.runDue(), 0, 'second retry waits 1500 ms');
  clock += 1;
  t.equal(await ob2.runDue(), 1);
  t.same(store2.stats(sub.id), { pending: 0, delivered: 1, failed: 0, lastStatus: 200 });
  t.same(
    rx.hits.map((h) => h.headers['webhook-id']),
    [ev.ce.id, ev.ce.id, ev.ce.id],
    'the same id on every attempt, so the receiver dedupes',
  );
  t.same(
    rx.hits.map((h) => h.body),
    [ev.body, ev.body, ev.body],
  );
  t.ok(Number(rx.hits[2]!.headers['webhook-timestamp']) > Number(rx.hits[0]!.headers['webhook-timestamp']), 'each attempt is stamped anew');
  db2.close();
});

t.test('gives up 24 hours after the event', async (t) => {
  let clock = Date.now();
  const now = () => clock;
  const store = new WebhookStore(openStore(), now);
  const dead = await receiver();
  await dead.close(); // nothing listens there any more
  const sub = store.create({ url: dead.url, types: ['svc.'], secret: SECRET, owner: 'o' });
  const ob = new WebhookOutbox({ store, now, random: () => 1, baseMs: 1000, capMs: 3_600_000, guard: LOOPBACK_OK });
  ob.enqueue({ id: 'e1', type: 'svc.task.updated' }, '{}');
  let attempts = 0;
  for (let i = 0; i < 60 && store.stats(sub.id).pending > 0; i++) {
    attempts += await ob.runDue();
    clock = (store.nextDue() ?? clock) + 1;
  }
  const stats = store.stats(sub.id);
  t.equal(stats.failed, 1);
  t.match(stats.lastError, /cannot reach the receiver/);
  t.ok(attempts >= 15 && attempts <= 40, `about 24 h of capped exponential retries (${attempts} attempts)`);
});

t.test('the outbox keeps running on its own timers and a subscription delete drops pending rows', async (t) => {
  const rx = await receiver();
  t.teardown(rx.close);
  const k = makeKitchen();
  const wh = new WebhooksFeature({ hub: k.hub, db: k.db, guard: LOOPBACK_OK });
  const sub = wh.store.create({ url: rx.url, types: ['svc.'], secret: SECRET, owner: 'o' });
  wh.start();
  for (let i = 0; i < 20; i++) k.bus.emit('task.updated', { taskId: `t${i}`, state: 'x', at: new Date().toISOString(), task: {} });
  await until(() => wh.store.stats(sub.id).delivered === 20, 30_000, '20 deliveries');
  t.equal(rx.hits.length, 20);
  await wh.stop();
  wh.outbox.enqueue({ id: 'late', type: 'svc.task.updated' }, '{}');
  t.equal(wh.store.stats(sub.id).pending, 1, 'queued while stopped');
  wh.store.delete(sub.id);
  t.same(wh.store.stats(sub.id), { pending: 0, delivered: 0, failed: 0 });
  k.db.close();
});
