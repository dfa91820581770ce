import t from 'tap';
import { createHttpApp } from '../../platform/http/app.js';
import { installBearerAuth } from '../../platform/http/auth.js';
import { OutboundGuard } from '../../platform/net/outbound.js';
import { makeKitchen } from '../events/testing.js';
import { installSubscriptionRoutes } from './routes.js';
import { standardWebhooksSecret } from './sign.js';
import { WebhookStore } from './store.js';

t.test('subscriptions: create, list, read, delete; scopes and validation', async (t) => {
  const k = makeKitchen();
  const store = new WebhookStore(k.db);
  const app = createHttpApp({ baseUrl: 'http://hub.test' });
  installBearerAuth(app, { tokens: k.tokens });
  // No DNS in tests: push.example resolves to a public address here.
  const guard = new OutboundGuard({ resolver: async () => [{ address: '93.184.216.34', family: 4 }] });
  installSubscriptionRoutes(app, { store, guard });
  t.teardown(async () => {
    await app.close();
    k.db.close();
  });
  const bridge = k.tokens.create({ name: 'push-bridge', scopes: ['notify', 'read'] }).token;
  const alarm = k.tokens.create({ name: 'alarm-co', scopes: ['notify'] }).token;
  const admin = k.tokens.create({ name: 'owner', scopes: ['admin'] }).token;
  const cook = k.tokens.create({ name: 'bot', scopes: ['cook'] }).token;
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, token?: string, payload?: unknown) =>
    app.inject({
      method,
      url,
      ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
  const good = { url: 'https://push.example/hooks/svc', types: ['svc.task.', 'svc.safety.'], secret: 'a-long-shared-secret-1' };

  const created = await call('POST', '/svc/v1/subscriptions', bridge, good);
  t.equal(created.statusCode, 201);
  const sub = created.json();
  t.match(sub.id, /^sub_[0-9a-f]{16}$/);
  t.equal(created.headers.location, `/svc/v1/subscriptions/${sub.id}`);
  t.equal(sub.webhookSecret, standardWebhooksSecret(good.secret));
  t.notOk('secret' in sub, 'the secret itself is never echoed');
  t.same(sub.types, good.types);

  const mine = await call('GET', '/svc/v1/subscriptions', bridge);
  t.same(
    mine.json().subscriptions.map((s: { id: string }) => s.id),
    [sub.id],
  );
  t.notOk(JSON.stringify(mine.json()).includes(good.secret));
  t.same((await call('GET', '/svc/v1/subscriptions', alarm)).json().subscriptions, [], 'others do not see it');
  t.equal((await call('GET', `/svc/v1/subscriptions/${sub.id}`, alarm)).statusCode, 404);
  const one = await call('GET', `/svc/v1/subscriptions/${sub.id}`, admin);
  t.equal(one.statusCode, 200, 'admin sees every subscription');
  t.same(one.json().deliveries, { pending: 0, delivered: 0, failed: 0 });

  t.equal(
    (await call('POST', '/svc/v1/subscriptions', alarm, { ...good, types: ['svc.safety.'] })).statusCode,
    201,
    'notify alone: safety events',
  );
  const refused = await call('POST', '/svc/v1/subscriptions', alarm, good);
  t.equal(refused.statusCode, 403, 'notify without read cannot subscribe to tasks');
  t.match(refused.headers['content-type'], /application\/problem\+json/);
  t.equal((await call('POST', '/svc/v1/subscriptions', cook, good)).statusCode, 403, 'cook cannot subscribe');
  t.equal((await call('POST', '/svc/v1/subscriptions', undefined, good)).statusCode, 401);

  for (const [bad, pointer] of [
    [{ ...good, url: 'ftp://x.example/y' }, '/url'],
    [{ ...good, url: 'https://user:pw@x.example/y' }, '/url'],
    [{ ...good, secret: 'short' }, '/secret'],
    [{ ...good, types: [] }, '/types'],
    [{ ...good, types: ['task'] }, '/types/0'],
    [{ ...good, types: ['svc.telemetry.'] }, '/types/0'],
    [{ ...good, extra: 1 }, '/extra'],
  ] as const) {
    const r = await call('POST', '/svc/v1/subscriptions', bridge, bad);
    t.equal(r.statusCode, 422, JSON.stringify(bad));
    t.ok(
      r.json().errors.some((e: { pointer: string }) => e.pointer === pointer),
      `points at ${pointer}`,
    );
  }
  t.equal((await call('DELETE', `/svc/v1/subscriptions/${sub.id}`, alarm)).statusCode, 404, 'cannot delete another owner’s');
  t.equal((await call('DELETE', `/svc/v1/subscriptions/${sub.id}`, bridge)).statusCode, 204);
  t.equal((await call('GET', `/svc/v1/subscriptions/${sub.id}`, bridge)).statusCode, 404);
  t.equal((await call('GET', '/svc/v1/subscriptions/nope', bridge)).statusCode, 400);
});
