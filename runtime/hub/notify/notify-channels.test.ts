// @slow: drives a real browser (npm run test:fast skips this file; npm test runs it)
/**
 * One notification, received on every channel as a third party meets it: the whole hub in this process (events,
 * embedded MQTT broker, webhooks, hub, dashboard; a real SQLite file), an agent's `POST /svc/v1/notify`, and
 * subscribers over real sockets: Server-Sent Events, a WebSocket, an MQTT 5 client (one message per audience
 * entry; the emergency retained for a late subscriber, and emptied when a person acknowledges it), a webhook
 * receiver on port 0 checking the signature, and the dashboard in headless Chromium showing it to the household
 * (and taking it down on the acknowledgement).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import t from 'tap';
import WebSocket from 'ws';
import { CHROMIUM_ARGS } from '../../../test-support/chromium.js';
import { startFullHub } from '../../../test-support/hub-app.js';
import { mqttSubscriber, type SeenEvent, sseSubscriber, waitFor, webhookReceiver } from '../../../test-support/subscribers.js';

t.test('one notification reaches SSE, WebSocket, MQTT, a webhook and the dashboard', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-notify-'));
  const h = await startFullHub({ dataDir });
  t.teardown(async () => {
    await h.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const kitchen = h.events.hub?.kitchenId ?? '';
  const me = h.newToken(['read', 'notify'], 'human', 'me');
  const agent = h.newToken(['notify'], 'agent', 'dinner agent');
  const person = h.newToken(['read'], 'human', 'Amal');

  // Every subscriber in place before the notification.
  const sse = await sseSubscriber(`${h.url}/svc/v1/events?types=svc.notify.`, me.token);
  t.teardown(() => sse.close());
  const wsFrames: SeenEvent[] = [];
  const ws = new WebSocket(`${h.url.replace(/^http/, 'ws')}/svc/v1/events/ws?types=svc.notify.`, {
    headers: { authorization: `Bearer ${me.token}` },
  });
  ws.on('message', (d) => wsFrames.push(JSON.parse(d.toString()) as SeenEvent));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  t.teardown(() => ws.close());
  const mqtt = await mqttSubscriber(h.mqttUrl, 'me', me.token, `svc/${kitchen}/notify/#`);
  t.teardown(() => mqtt.close());
  const receiver = await webhookReceiver();
  t.teardown(() => receiver.close());
  const secret = 'notify-test-secret-0123456789';
  const sub = await h.call('POST', '/svc/v1/subscriptions', {
    token: me.token,
    body: { url: receiver.url, types: ['svc.notify.'], secret },
  });
  t.equal(sub.status, 201, JSON.stringify(sub.body));

  const profile = mkdtempSync(join(tmpdir(), 'hearth-chromium-'));
  t.teardown(() => rmSync(profile, { recursive: true, force: true }));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    headless: true,
  });
  t.teardown(() => browser.close());
  const page = browser.pages()[0] ?? (await browser.newPage());
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${h.url}/`);
  await page.waitForSelector('#link[data-state="live"]');
  t.equal(await page.isVisible('#notices'), false, 'no notice before any notification');

  // The agent notifies the household and one person: an emergency.
  const sent = await h.call('POST', '/svc/v1/notify', {
    token: agent.token,
    body: { audience: ['household', 'human:amal'], urgency: 'emergency', message: { en: 'Smoke near the stove', ar: 'دخان قرب الموقد' } },
  });
  t.equal(sent.status, 202, JSON.stringify(sent.body));
  const id = sent.body.id as string;
  t.match(sent.body, { state: 'delivered', urgency: 'emergency', audience: ['role:household', 'human:amal'], event: 'svc.notify.message' });

  const has = (list: SeenEvent[], type: string) => list.some((ce) => ce.type === type && ce.data?.id === id);
  const topics = [`svc/${kitchen}/notify/role:household`, `svc/${kitchen}/notify/human:amal`];
  await waitFor(
    'the notification on every channel',
    () =>
      [
        has(
          sse.got.map((g) => g.ce),
          'svc.notify.message',
        )
          ? ''
          : 'SSE',
        has(wsFrames, 'svc.notify.message') ? '' : 'WebSocket',
        has(
          receiver.got.map((g) => g.ce),
          'svc.notify.message',
        )
          ? ''
          : 'webhook',
        ...topics.filter((topic) => !mqtt.got.some((m) => m.topic === topic && m.ce.data?.id === id)).map((x) => `MQTT ${x}`),
      ].filter((x) => x !== ''),
    30_000,
  );
  const viaSse = sse.got.find((g) => g.ce.data?.id === id)?.ce;
  t.match(viaSse, {
    type: 'svc.notify.message',
    subject: 'role:household',
    svcpriority: 'high',
    data: { urgency: 'emergency', message: { en: 'Smoke near the stove' } },
  });
  t.equal(wsFrames.find((ce) => ce.data?.id === id)?.id, viaSse?.id, 'the WebSocket frame is the same CloudEvent');
  for (const m of mqtt.got.filter((x) => x.ce.data?.id === id)) {
    t.equal(m.ce.id, viaSse?.id, `MQTT ${m.topic} carries the same CloudEvent`);
    t.equal(m.qos, 1, 'QoS 1');
    t.equal(m.contentType, 'application/cloudevents+json');
  }
  const hook = receiver.got.find((g) => g.ce.data?.id === id);
  const mac = Buffer.from(
    `sha256=${createHmac('sha256', secret)
      .update(hook?.rawBody ?? '')
      .digest('hex')}`,
  );
  const signed = Buffer.from(String(hook?.headers['x-svc-signature']));
  t.ok(mac.length === signed.length && timingSafeEqual(mac, signed), 'the webhook delivery is signed');

  // The dashboard shows it to the household as an alert.
  await page.waitForSelector(`#notices .notice[data-id="${id}"][data-urgency="emergency"]`);
  t.equal(await page.textContent(`#notices .notice[data-id="${id}"] .message`), 'Smoke near the stove', 'the dashboard shows the message');
  t.equal(await page.getAttribute(`#notices .notice[data-id="${id}"]`, 'role'), 'alert');

  // An emergency stays on the bus: a subscriber that comes later gets it retained.
  const late = await mqttSubscriber(h.mqttUrl, 'late', me.token, `svc/${kitchen}/notify/#`);
  t.teardown(() => late.close());
  await waitFor('the retained emergency', () => topics.filter((topic) => !late.got.some((m) => m.topic === topic && m.ce.data?.id === id)));
  t.ok(
    late.got.filter((m) => m.ce.data?.id === id).every((m) => m.retain),
    'delivered as retained',
  );

  // A person acknowledges it: the retained messages are emptied and the dashboard takes it down.
  const ack = await h.call('POST', `/svc/v1/notifications/${id}/ack`, { token: person.token });
  t.equal(ack.status, 200, JSON.stringify(ack.body));
  t.match(ack.body, { id, acknowledged: { by: { kind: 'human' } } });
  await waitFor('the retained emergency emptied', () => topics.filter((topic) => !mqtt.cleared.includes(topic)));
  await waitFor('the acknowledgement on SSE', () =>
    has(
      sse.got.map((g) => g.ce),
      'svc.notify.acknowledged',
    )
      ? []
      : ['SSE ack'],
  );
  await page.waitForSelector(`#notices .notice[data-id="${id}"]`, { state: 'detached' });
  t.equal(await page.isVisible('#notices'), false, 'the notice is gone from the dashboard');
  const after = await mqttSubscriber(h.mqttUrl, 'after', me.token, `svc/${kitchen}/notify/#`);
  t.teardown(() => after.close());
  const marker = await h.call('POST', '/svc/v1/notify', {
    token: agent.token,
    body: { audience: 'device:speaker-1', urgency: 'info', message: { en: 'marker' } },
  });
  await waitFor('the marker on a fresh subscriber', () => (after.got.some((m) => m.ce.data?.id === marker.body.id) ? [] : ['marker']));
  t.notOk(
    after.got.some((m) => m.ce.data?.id === id),
    'no retained emergency left for a subscriber after the acknowledgement',
  );
  t.notOk(await page.isVisible('#notices'), 'a device’s own notification is not on the household’s screen');
  t.same(errors, [], 'no script errors on the page');
});
