/**
 * MQTT 5 behaviours standard clients rely on (issue 29 item 1), each against the embedded broker with real mqtt.js
 * clients over TCP, on topics a token is granted (devices/…): client topic aliases, Receive Maximum toward the
 * client, the client's Maximum Packet Size, offline queueing, payload format indicator and content type, payload
 * format invalid (0x99), message expiry, will properties and will delay, shared subscriptions.
 */

import type mqttPacket from 'mqtt-packet';
import t from 'tap';
import { until } from '../events/testing.js';
import { collect, pubCode, rawClient, startBroker, subCode } from './test-broker.js';

const device = { publish: ['devices/#'], subscribe: ['devices/#'] };

t.test('client topic aliases are honoured on later publishes (MQTT 5.0 §3.3.2.3.4)', async (t) => {
  const b = await startBroker(t);
  const tok = b.token(['notify'], device);
  const sub = await b.connect(tok);
  const got = collect(sub);
  await subCode(sub, 'devices/#');
  const pub = await b.connect(tok, { autoUseTopicAlias: true, properties: { topicAliasMaximum: 0 } });
  for (let i = 0; i < 3; i++) t.equal(await pubCode(pub, 'devices/alias/t', `m${i}`), 0);
  await until(() => got.length === 3, 10_000, 'three messages');
  t.same(
    got.map((g) => [g.topic, g.payload.toString()]),
    [0, 1, 2].map((i) => ['devices/alias/t', `m${i}`]),
  );
});

t.test('Receive Maximum: never more unacknowledged QoS 1 publishes in flight to a client than it allows (§3.1.2.11.3)', async (t) => {
  const b = await startBroker(t);
  const tok = b.token(['notify'], device);
  const sub = await rawClient(t, b.broker.port, tok, { receiveMaximum: 2 });
  sub.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: 'devices/#', qos: 1 }] });
  await sub.waitFor((p) => p.cmd === 'suback', 'the SUBACK');
  const pub = await b.connect(tok);
  for (let i = 0; i < 5; i++) t.equal(await pubCode(pub, 'devices/flow/q1', `m${i}`), 0);
  await pub.publishAsync('devices/flow/marker', 'end', { qos: 0 });
  await sub.waitFor((p) => p.cmd === 'publish' && p.qos === 0, 'the QoS 0 marker sent after the five');
  const qos1 = () => sub.packets.filter((p): p is mqttPacket.IPublishPacket => p.cmd === 'publish' && p.qos === 1);
  t.equal(qos1().length, 2, 'two QoS 1 messages in flight, not five');
  for (let acked = 0; acked < 5; acked++) {
    const p = qos1()[acked] as mqttPacket.IPublishPacket;
    sub.send({ cmd: 'puback', messageId: p.messageId as number });
    const want = Math.min(5, acked + 3);
    await until(() => qos1().length === want, 10_000, `message ${want} after acknowledgement ${acked + 1}`);
  }
  t.same(
    qos1().map((p) => String(p.payload)),
    ['m0', 'm1', 'm2', 'm3', 'm4'],
    'all delivered, in order, as acknowledgements free the window',
  );
});

t.test('Maximum Packet Size: a message larger than the client allows is dropped for that client only (§3.1.2.11.4)', async (t) => {
  const b = await startBroker(t);
  const tok = b.token(['notify'], device);
  const small = await b.connect(tok, { properties: { maximumPacketSize: 256 } });
  const big = await b.connect(tok);
  const gotSmall = collect(small);
  const gotBig = collect(big);
  await subCode(small, 'devices/#');
  await subCode(big, 'devices/#');
  const pub = await b.connect(tok);
  t.equal(await pubCode(pub, 'devices/size/x', Buffer.alloc(1000, 1)), 0);
  t.equal(await pubCode(pub, 'devices/size/x', 'small'), 0);
  await until(() => gotBig.length === 2 && gotSmall.length >= 1, 10_000, 'deliveries');
  t.same(
    gotSmall.map((g) => g.payload.toString()),
    ['small'],
    'the 1000-byte message never reached the client that allows 256 bytes',
  );
  t.ok(small.connected, 'and it stays connected');
});

t.test('offline queueing: QoS 1 and 2 messages wait for a client whose session has not expired (§4.1)', async (t) => {
  const b = await startBroker(t);
  const tok = b.token(['notify'], device);
  const opts = { clientId: 'queued-1', clean: false, properties: { sessionExpiryInterval: 600 } };
  const first = await b.connect(tok, opts);
  await subCode(first, 'devices/q/#', { qos: 2 });
  await first.endAsync();
  const pub = await b.connect(tok);
  t.equal(await pubCode(pub, 'devices/q/a', 'one', { qos: 1 }), 0);
  t.equal(await pubCode(pub, 'devices/q/b', 'two', { qos: 2 }), 0);
  await pub.publishAsync('devices/q/c', 'zero', { qos: 0 });
  const back = b.connectLater(tok, opts);
  const got = collect(back);
  back.connect();
  await until(() => got.length >= 2, 10_000, 'the queued messages');
  t.same(
    got.map((g) => [g.topic, g.payload.toString(), g.packet.qos]),
    [
      ['devices/q/a', 'one', 1],
      ['devices/q/b', 'two', 2],
    ],
  );
});

t.test('payload format indicator and content type are forwarded unchanged (§3.3.2.3.2, §3.3.2.3.9)', async (t) => {
  const b = await startBroker(t);
  const tok = b.token(['notify'], device);
  const sub = await b.connect(tok);
  const got = collect(sub);
  await subCode(sub, 'devices/#');
  const pub = await b.connect(tok);
  const properties = { payloadFormatIndicator: true, contentType: 'text/plain; charset=utf-8', userProperties: { unit: 'W' } };
  t.equal(await pubCode(pub, 'devices/pfi/x', 'héllo', { qos: 1, properties }), 0);
  await until(() => got.length === 1, 10_000, 'the message');
  t.match(got[0]?.packet.properties, properties);
});

t.test('a payload marked UTF-8 that is not is refused with 0x99 and never delivered (§3.3.2.3.2)', async (t) => {
  const b = await startBroker(t);
  const tok = b.token(['notify'], device);
  const sub = await b.connect(tok);
  const got = collect(sub);
  await subCode(sub, 'devices/#');
  const pub = await b.connect(tok);
  const bad = Buffer.from([0x66, 0xff, 0xfe, 0x6f]);
  t.equal(await pubCode(pub, 'devices/pfi/bad', bad, { qos: 1, properties: { payloadFormatIndicator: true } }), 0x99);
  t.equal(await pubCode(pub, 'devices/pfi/bin', bad, { qos: 1 }), 0, 'the same bytes unmarked are fine');
  await until(() => got.length === 1, 10_000, 'the unmarked message');
  t.equal(got[0]?.topic, 'devices/pfi/bin');
  t.ok(pub.connected);
});

t.test('message expiry: counted down while waiting, forwarded with the remaining time, never delivered expired (§3.3.2.3.3)', async (t) => {
  const b = await startBroker(t);
  const tok = b.token(['notify'], device);
  const opts = { clientId: 'expiry-1', clean: false, properties: { sessionExpiryInterval: 600 } };
  const first = await b.connect(tok, opts);
  await subCode(first, 'devices/exp/#');
  await first.endAsync();
  const pub = await b.connect(tok);
  t.equal(await pubCode(pub, 'devices/exp/short', 's', { qos: 1, properties: { messageExpiryInterval: 1 } }), 0);
  t.equal(await pubCode(pub, 'devices/exp/long', 'l', { qos: 1, properties: { messageExpiryInterval: 100 } }), 0);
  t.equal(await pubCode(pub, 'devices/exp/retained', 'r', { qos: 1, retain: true, properties: { messageExpiryInterval: 1 } }), 0);
  await new Promise((r) => setTimeout(r, 2100)); // let the 1 s ones expire
  const back = b.connectLater(tok, opts);
  const got = collect(back);
  back.connect();
  await until(() => got.length >= 1, 10_000, 'the queued message');
  await subCode(back, 'devices/exp/retained');
  const late = await b.connect(tok);
  const lateGot = collect(late);
  await subCode(late, 'devices/exp/#');
  t.equal(await pubCode(pub, 'devices/exp/marker', 'm'), 0);
  await until(() => lateGot.length >= 1, 10_000, 'the marker');
  t.same(
    got.filter((g) => g.topic !== 'devices/exp/marker').map((g) => g.topic),
    ['devices/exp/long'],
    'the expired ones never arrive',
  );
  const left = got[0]?.packet.properties?.messageExpiryInterval ?? 0;
  t.ok(left >= 1 && left < 100, `forwarded with the time left, counted down (${left} s of 100)`);
  t.same(
    lateGot.map((g) => g.topic),
    ['devices/exp/marker'],
    'an expired retained message is not delivered',
  );
});

t.test('will messages keep their properties; the Will Delay Interval is honoured (§3.1.3.2)', async (t) => {
  const b = await startBroker(t);
  const tok = b.token(['notify'], device);
  const watcher = await b.connect(tok);
  const got = collect(watcher);
  await subCode(watcher, 'devices/will/#');
  const will = (topic: string) => ({
    topic,
    payload: Buffer.from('gone'),
    qos: 1 as const,
    retain: false,
    properties: { willDelayInterval: 1, contentType: 'text/plain', userProperties: { device: 'plug-1' } },
  });
  const opts = (id: string, topic: string) => ({ clientId: id, will: will(topic), properties: { sessionExpiryInterval: 60 } });
  // Dropped and not back: the will comes after its delay, with its properties.
  const gone = await b.connect(tok, opts('will-a', 'devices/will/a'));
  gone.stream.destroy();
  // Dropped and back at once: no will.
  const back = await b.connect(tok, opts('will-b', 'devices/will/b'));
  back.stream.destroy();
  await until(() => b.broker.clientCount === 1, 10_000, 'both drops seen');
  const again = await b.connect(tok, { clientId: 'will-b', properties: { sessionExpiryInterval: 60 } });
  await until(() => got.length >= 1, 10_000, 'the will of the client that stayed away');
  await new Promise((r) => setTimeout(r, 1500)); // past will-b's delay: its will must not come
  t.equal(await pubCode(again, 'devices/will/marker', 'm'), 0);
  await until(() => got.some((g) => g.topic === 'devices/will/marker'), 10_000, 'the marker');
  t.same(
    got.map((g) => g.topic),
    ['devices/will/a', 'devices/will/marker'],
  );
  t.match(got[0]?.packet.properties, { contentType: 'text/plain', userProperties: { device: 'plug-1' } });
  t.equal(got[0]?.payload.toString(), 'gone');
});

t.test('shared subscriptions: each message to one member of the group (§4.8.2)', async (t) => {
  const b = await startBroker(t);
  const tok = b.token(['notify'], device);
  const m1 = await b.connect(tok);
  const m2 = await b.connect(tok);
  const plain = await b.connect(tok);
  const g1 = collect(m1);
  const g2 = collect(m2);
  const all = collect(plain);
  t.equal(await subCode(m1, '$share/workers/devices/jobs/#'), 1, 'SUBACK grants QoS 1, not 0x9E');
  t.equal(await subCode(m2, '$share/workers/devices/jobs/#'), 1);
  await subCode(plain, 'devices/jobs/#');
  const pub = await b.connect(tok);
  for (let i = 0; i < 6; i++) t.equal(await pubCode(pub, `devices/jobs/${i}`, `j${i}`), 0);
  await until(() => all.length === 6 && g1.length + g2.length >= 6, 10_000, 'deliveries');
  const shared = [...g1, ...g2].map((g) => g.payload.toString()).sort();
  t.same(shared, ['j0', 'j1', 'j2', 'j3', 'j4', 'j5'], 'each message once across the group');
  t.ok(g1.length > 0 && g2.length > 0, `both members took some (${g1.length}, ${g2.length})`);
  await m2.unsubscribeAsync('$share/workers/devices/jobs/#');
  const before = g1.length;
  t.equal(await pubCode(pub, 'devices/jobs/7', 'j7'), 0);
  await until(() => g1.length === before + 1, 10_000, 'the one member left takes it');
  t.equal(await subCode(m1, '$share/workers/svc/k1/#'), 0x87, 'a shared subscription is checked as its filter');
  t.equal(await subCode(m1, '$share/workers'), 0x87, 'a malformed one (no filter) is refused');
});
