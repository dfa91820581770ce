/**
 * Leases over a real socket (the whole hub: REST, SSE and the embedded MQTT broker, on the simulated rig with a
 * manual clock): a second claim on a held resource (or a part of it) gets 409 `lease-conflict` naming the holder
 * and the expiry; the clock expires an unrenewed lease; a session that starts takes its device's lease (and is
 * refused while a person holds a burner); aborting it releases the lease; an e-stop revokes every lease. Every
 * lease record validates against schemas/json/coordination.schema.json and every step arrives as an event.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import t, { type Test } from 'tap';
import { type FullHub, startFullHub } from '../../../test-support/hub-app.js';
import { mqttSubscriber, sseSubscriber, waitFor } from '../../../test-support/subscribers.js';
import { FRY_RECIPE } from '../test-helpers.js';
import { SERVE_AT } from '../testing/scope-table.js';
import { SESSION_LEASE_TTL_MS } from './leases.js';

type AddFormats = (ajv: Ajv2020) => Ajv2020;
const formatsExport = addFormatsModule as unknown as AddFormats & { default?: AddFormats };
const addFormats: AddFormats = typeof formatsExport.default === 'function' ? formatsExport.default : formatsExport;
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: true }));
ajv.addSchema(JSON.parse(readFileSync(new URL('../../../schemas/json/coordination.schema.json', import.meta.url), 'utf8')) as object);
const validLease = ajv.getSchema('https://schemas.hearth.dev/svc/0.2/coordination.schema.json#/$defs/Lease');

function checkLease(t: Test, body: unknown, label: string): void {
  if (!validLease) throw new Error('no Lease schema');
  t.ok(validLease(body), `${label}: a valid Lease${validLease.errors ? ` ${JSON.stringify(validLease.errors)}` : ''}`);
}

async function hub(t: Test): Promise<FullHub & { dev: string }> {
  const h = await startFullHub();
  t.teardown(() => h.close());
  const dev = h.app.ctx.device.capabilities.actor?.id;
  if (typeof dev !== 'string') throw new Error('the test device has no actor id');
  return Object.assign(h, { dev });
}

t.test('a second claim gets lease-conflict naming the holder; the clock expires the first; events arrive', async (t) => {
  const h = await hub(t);
  const amal = h.newToken(['cook', 'read'], 'human', 'Amal');
  const agent = h.token(['cook', 'read'], 'agent', 'helper agent');
  const sse = await sseSubscriber(`${h.url}/svc/v1/events?types=svc.lease.`, amal.token);
  t.teardown(() => sse.close());
  const mqtt = await mqttSubscriber(h.mqttUrl, 'watcher', amal.token, 'svc/+/lease/#');
  t.teardown(() => mqtt.close());

  const first = await h.call('POST', '/svc/v1/leases', { token: amal.token, body: { resource: `${h.dev}/pan`, ttlSeconds: 60 } });
  t.equal(first.status, 201, 'granted');
  checkLease(t, first.body, 'the granted lease');
  t.match(first.body, { state: 'granted', holder: amal.id, holderKind: 'human', mode: 'exclusive', resource: `${h.dev}/pan` });
  t.equal(first.headers.get('location'), `/svc/v1/leases/${String(first.body.id)}`);

  for (const resource of [`${h.dev}/pan`, h.dev]) {
    const second = await h.call('POST', '/svc/v1/leases', { token: agent, body: { resource } });
    t.equal(second.status, 409, `a claim on ${resource} while the pan is held: 409`);
    t.match(second.headers.get('content-type'), /application\/problem\+json/);
    t.match(second.body.type, /\/errors\/lease-conflict$/);
    t.match(second.body, { holder: amal.id, holderKind: 'human', leaseId: first.body.id, until: first.body.until });
    t.match(String(second.body.detail), new RegExp(`held by human ${amal.id}.*until ${String(first.body.until)}`));
  }
  const other = await h.call('POST', '/svc/v1/leases', { token: agent, body: { resource: `${h.dev}/pot`, ttlSeconds: 600 } });
  t.equal(other.status, 201, 'another burner of the same device is free');
  const unknown = await h.call('POST', '/svc/v1/leases', { token: agent, body: { resource: `${h.dev}/wok` } });
  t.equal(unknown.status, 404, 'a part the device does not have');
  const bad = await h.call('POST', '/svc/v1/leases', { token: agent, body: { resource: '../etc', ttlSeconds: 1 } });
  t.equal(bad.status, 422, 'a malformed claim');
  const notYours = await h.call('POST', `/svc/v1/leases/${String(first.body.id)}/renew`, { token: agent, body: {} });
  t.equal(notYours.status, 403, 'an agent renews only what it claimed');

  // 59 s: still held. Past 60 s (device clock): expired, and the pan is free again.
  await h.clock.advanceAsync(59_000);
  t.equal((await h.call('GET', `/svc/v1/leases/${String(first.body.id)}`, { token: amal.token })).body.state, 'granted');
  await h.clock.advanceAsync(2_000);
  const expired = await h.call('GET', `/svc/v1/leases/${String(first.body.id)}`, { token: amal.token });
  t.match(expired.body, { state: 'expired', ended: { reason: 'ttl' } });
  checkLease(t, expired.body, 'the expired lease');
  const listed = await h.call('GET', '/svc/v1/leases', { token: amal.token });
  t.same(
    (listed.body.items as { id: string }[]).map((l) => l.id),
    [other.body.id],
    'only the granted lease is listed',
  );
  const again = await h.call('POST', '/svc/v1/leases', { token: amal.token, body: { resource: h.dev, mode: 'shared_read' } });
  t.equal(again.status, 409, 'even a shared hold on the whole device overlaps the pot the agent holds exclusively');
  const pan = await h.call('POST', '/svc/v1/leases', { token: agent, body: { resource: `${h.dev}/pan` } });
  t.equal(pan.status, 201, 'after expiry the pan can be claimed');

  const renewed = await h.call('POST', `/svc/v1/leases/${String(pan.body.id)}/renew`, { token: agent, body: { ttlSeconds: 900 } });
  t.equal(renewed.status, 200);
  t.equal(Date.parse(String(renewed.body.until)) - h.clock.now(), 900_000, 'renewed from now by the device clock');
  const released = await h.call('DELETE', `/svc/v1/leases/${String(pan.body.id)}`, { token: agent });
  t.match(released.body, { state: 'released', ended: { reason: 'released' } });
  const viaPost = await h.call('POST', `/svc/v1/leases/${String(other.body.id)}/release`, { token: amal.token });
  t.match(viaPost.body, { state: 'released', ended: { by: { id: amal.id, kind: 'human' } } }, 'a person may release any lease');

  const want = ['granted', 'granted', 'expired', 'granted', 'renewed', 'released', 'released'].map((k) => `svc.lease.${k}`);
  await waitFor('the lease events over SSE', () => (sse.got.length >= want.length ? [] : [`${sse.got.length}/${want.length}`]));
  t.same(
    sse.got.map((e) => e.ce.type),
    want,
    'SSE: each step in order',
  );
  await waitFor('the lease events over MQTT', () => (mqtt.got.length >= want.length ? [] : [`${mqtt.got.length}/${want.length}`]));
  t.same(
    mqtt.got.map((m) => m.ce.type),
    want,
    'MQTT: the same steps',
  );
  t.ok(
    mqtt.got.every((m) => m.topic.endsWith(`/lease/${String(m.ce.subject)}`) && m.qos === 1),
    'on svc/{kitchen}/lease/{lease id} at QoS 1',
  );
});

t.test('a session takes its device’s lease when it starts and lets go when it is aborted; an e-stop revokes leases', async (t) => {
  const h = await hub(t);
  const person = h.token(['cook', 'read'], 'human', 'Amal');
  const agent = h.token(['cook', 'read'], 'agent', 'helper agent');
  await h.presence(true);
  const created = await h.call('POST', '/svc/v1/sessions', {
    token: person,
    body: { recipes: [{ recipeId: FRY_RECIPE }], serveAt: SERVE_AT, mode: 'assisted' },
  });
  const sid = String(created.body.id);
  const rules = (created.body.confirmation as { requiredRules: string[] }).requiredRules;
  t.equal((await h.call('POST', `/svc/v1/sessions/${sid}/confirm`, { token: person, body: { acknowledgedRules: rules } })).status, 200);

  // A person holds the fryer burner by hand: the session cannot take the device.
  const held = await h.call('POST', '/svc/v1/leases', { token: person, body: { resource: `${h.dev}/fryer` } });
  const refused = await h.call('POST', `/svc/v1/sessions/${sid}/start`, { token: person });
  t.equal(refused.status, 409, 'start refused');
  t.match(refused.body.type, /\/errors\/lease-conflict$/);
  t.equal(refused.body.leaseId, held.body.id);
  const still = (await h.call('GET', `/svc/v1/sessions/${sid}`, { token: person })).body;
  t.equal(still.state, 'planned', 'still planned');
  t.notOk((still.recipes as { executionId?: string }[])[0]?.executionId, 'nothing started on the executor');
  await h.call('DELETE', `/svc/v1/leases/${String(held.body.id)}`, { token: person });

  const started = await h.call('POST', `/svc/v1/sessions/${sid}/start`, { token: person });
  t.equal(started.status, 202, 'starts once the burner is free');
  const leases = (await h.call('GET', '/svc/v1/leases', { token: person })).body.items as Record<string, unknown>[];
  t.equal(leases.length, 1);
  t.match(leases[0], { resource: h.dev, holder: sid, holderKind: 'session', sessionId: sid, state: 'granted' });
  const lid = String(leases[0]?.id);

  const burner = await h.call('POST', '/svc/v1/leases', { token: agent, body: { resource: `${h.dev}/pan` } });
  t.equal(burner.status, 409, 'no burner of the cooking device can be claimed');
  t.match(burner.body, { holder: sid, holderKind: 'session' });
  const early = await h.call('DELETE', `/svc/v1/leases/${lid}`, { token: person });
  t.equal(early.status, 409, 'a session’s lease is not released by hand while it cooks');

  // The session's lease outlives its TTL while it cooks: the hub renews it.
  await h.clock.advanceAsync(SESSION_LEASE_TTL_MS + 5_000);
  const kept = await h.call('GET', `/svc/v1/leases/${lid}`, { token: person });
  t.equal(kept.body.state, 'granted', 'still held after its first TTL');
  t.ok(Number(kept.body.renewals) >= 1, 'renewed by the hub');

  const aborted = await h.call('POST', `/svc/v1/sessions/${sid}/abort`, { token: person, body: { reason: 'test' } });
  t.equal(aborted.status, 202);
  const after = await h.call('GET', `/svc/v1/leases/${lid}`, { token: person });
  t.match(after.body, { state: 'released', ended: { reason: 'session_aborted' } }, 'stopping the session released it');
  const free = await h.call('POST', '/svc/v1/leases', { token: agent, body: { resource: `${h.dev}/pan` } });
  t.equal(free.status, 201, 'the burner is free again');

  const stop = await h.call('POST', '/svc/v1/safety/estop', { token: agent, body: { reason: 'test' } });
  t.equal(stop.status, 202);
  const revoked = await h.call('GET', `/svc/v1/leases/${String(free.body.id)}`, { token: person });
  t.match(revoked.body, { state: 'revoked', ended: { reason: 'estop' } }, 'an e-stop revokes every lease');
});
