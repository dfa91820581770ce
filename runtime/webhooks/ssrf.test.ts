/**
 * Webhook URLs cannot aim the hub inside its machine or link (issue 27 item 1), on a hub with every feature and
 * real sockets: by default a subscription to loopback (however spelled: a name resolving to it, [::1],
 * ::ffff:127.0.0.1, decimal, octal), link-local, multicast, unspecified, LAN or one of the hub's own addresses is
 * refused with 422 `destination-not-allowed` naming the address class, nothing is stored, and a receiver on
 * 127.0.0.1 gets nothing when a safety event follows. The operator's allow-list opens loopback, and deliveries
 * then arrive. At delivery the outbox resolves the name again and refuses a rebound one; redirects and the
 * address spellings at connect time are in platform/net/outbound.test.ts.
 */
import t from 'tap';
import { OutboundGuard, type Resolver } from '../../platform/net/outbound.js';
import { startFullHub } from '../../test-support/hub-app.js';
import { webhookReceiver } from '../../test-support/subscribers.js';
import { makeKitchen } from '../events/testing.js';
import { WebhookOutbox } from './outbox.js';
import { WebhookStore } from './store.js';

const SECRET = 'a-long-shared-secret-1';

t.test('by default: every inside address refused at registration, naming its class; nothing delivered', async (t) => {
  const h = await startFullHub({ config: { webhooks: { allow: [] }, host: '127.0.0.1' } });
  t.teardown(() => h.close());
  const rx = await webhookReceiver();
  t.teardown(rx.close);
  const port = new URL(rx.url).port;
  const token = h.token(['notify', 'read'], 'agent', 'hooks');
  const cases: [string, string][] = [
    [`http://127.0.0.1:${port}/hooks`, 'loopback'],
    [`http://localhost:${port}/hooks`, 'loopback'],
    [`http://[::1]:${port}/hooks`, 'loopback'],
    [`http://[::ffff:127.0.0.1]:${port}/hooks`, 'loopback'],
    [`http://2130706433:${port}/hooks`, 'loopback'],
    [`http://0177.0.0.1:${port}/hooks`, 'loopback'],
    [`http://[64:ff9b::7f00:1]:${port}/hooks`, 'loopback'],
    ['http://169.254.169.254/latest/meta-data/', 'link-local'],
    ['http://[fe80::1]/x', 'link-local'],
    ['http://224.0.0.1/x', 'multicast'],
    ['http://0.0.0.0:8080/x', 'unspecified'],
    ['http://[::]/x', 'unspecified'],
    ['http://192.168.1.20:1880/x', 'private'],
    ['https://10.0.0.7/x', 'private'],
  ];
  for (const [url, cls] of cases) {
    const r = await h.call('POST', '/svc/v1/subscriptions', { token, body: { url, types: ['svc.safety.'], secret: SECRET } });
    t.equal(r.status, 422, `${url}: refused`);
    const doc = r.body as { type?: string; addressClass?: string; detail?: string };
    t.match(doc.type, /\/errors\/destination-not-allowed$/, `${url}: a problem document`);
    t.equal(doc.addressClass, cls, `${url}: names the class ${cls}`);
    t.match(doc.detail, /refused/);
  }
  const listed = await h.call('GET', '/svc/v1/subscriptions', { token });
  t.same((listed.body as { subscriptions: unknown[] }).subscriptions, [], 'nothing was stored');
  const stop = await h.call('POST', '/svc/v1/safety/estop', { token, body: { reason: 'ssrf test' } });
  t.ok(stop.status === 200 || stop.status === 202, 'the e-stop was taken');
  await new Promise((r) => setTimeout(r, 300));
  await h.events.webhooks?.outbox.runDue();
  t.same(rx.got, [], 'the receiver on 127.0.0.1 got nothing');
});

t.test('the allow-list opens loopback for the operator; deliveries arrive; other classes stay refused', async (t) => {
  const h = await startFullHub({ config: { webhooks: { allow: ['127.0.0.1', '10.0.0.0/24'] } } });
  t.teardown(() => h.close());
  const rx = await webhookReceiver();
  t.teardown(rx.close);
  const token = h.token(['notify', 'read'], 'agent', 'hooks');
  const made = await h.call('POST', '/svc/v1/subscriptions', { token, body: { url: rx.url, types: ['svc.safety.'], secret: SECRET } });
  t.equal(made.status, 201, JSON.stringify(made.body));
  const lan = await h.call('POST', '/svc/v1/subscriptions', {
    token,
    body: { url: 'http://10.0.0.9/x', types: ['svc.safety.'], secret: SECRET },
  });
  t.equal(lan.status, 201, 'an allow-listed network');
  for (const url of ['http://10.0.1.9/x', 'http://169.254.169.254/', 'http://[::1]/x']) {
    const r = await h.call('POST', '/svc/v1/subscriptions', { token, body: { url, types: ['svc.safety.'], secret: SECRET } });
    t.equal(r.status, 422, `${url}: still refused`);
  }
  await h.call('POST', '/svc/v1/safety/estop', { token, body: { reason: 'allowed test' } });
  const end = Date.now() + 20_000;
  while (!rx.got.some((g) => g.ce.type === 'svc.safety.estop') && Date.now() < end) {
    await h.events.webhooks?.outbox.runDue();
    await new Promise((r) => setTimeout(r, 50));
  }
  t.ok(
    rx.got.some((g) => g.ce.type === 'svc.safety.estop'),
    'the e-stop reached the allow-listed receiver',
  );
});

t.test('at delivery the outbox resolves again and connects only to a checked address (DNS rebinding)', async (t) => {
  const k = makeKitchen();
  t.teardown(() => k.db.close());
  const rx = await webhookReceiver();
  t.teardown(rx.close);
  const port = new URL(rx.url).port;
  const store = new WebhookStore(k.db);
  // The name was public when the subscription was made; now it resolves to loopback.
  const rebound: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
  const sub = store.create({ url: `http://hooks.example:${port}/hooks/svc`, types: ['svc.'], secret: SECRET, owner: 'o' });
  const strict = new WebhookOutbox({ store, random: () => 0.5, guard: new OutboundGuard({ resolver: rebound }) });
  strict.enqueue({ id: 'ev-1', type: 'svc.safety.estop' }, '{"id":"ev-1"}');
  t.equal(await strict.runDue(), 1);
  t.match(store.stats(sub.id).lastError, /^destination refused: hooks\.example \(127\.0\.0\.1\) is a loopback address/);
  t.same(rx.got, [], 'the receiver on 127.0.0.1 got nothing');
  await strict.stop();

  // With loopback allow-listed, the same name reaches the receiver: through the guard's lookup (no DNS knows it).
  const sub2 = store.create({ url: `http://hooks.example:${port}/hooks/svc`, types: ['svc.'], secret: SECRET, owner: 'o' });
  const open = new WebhookOutbox({ store, random: () => 0.5, guard: new OutboundGuard({ resolver: rebound, allow: ['127.0.0.1'] }) });
  open.enqueue({ id: 'ev-2', type: 'svc.safety.estop' }, '{"id":"ev-2"}');
  await open.runDue();
  t.equal(store.stats(sub2.id).delivered, 1);
  t.equal(rx.got[0]?.headers.host, `hooks.example:${port}`);
  await open.stop();
});
