/**
 * Hostile MQTT 5 properties against the embedded broker (issue 29 item 4), over real sockets: topic aliases out of
 * range (huge, 0), Receive Maximum 0, a Maximum Packet Size below a fixed header, expired retained messages, and a
 * client that never acknowledges. Each gets the reason code MQTT 5.0 names; nothing crashes, the queues stay
 * within their bounds, and a safety event still reaches the other clients at once.
 */
import { once } from 'node:events';
import { connect as netConnect } from 'node:net';
import mqttPacket from 'mqtt-packet';
import t from 'tap';
import { until } from '../events/testing.js';
import { collect, pubCode, rawClient, startBroker, subCode } from './test-broker.js';

const device = { publish: ['devices/#'], subscribe: ['devices/#'] };
const isDisconnect = (p: mqttPacket.Packet): p is mqttPacket.IDisconnectPacket => p.cmd === 'disconnect';

/** The broker still serves: a fresh client publishes and another receives. */
async function stillServes(b: Awaited<ReturnType<typeof startBroker>>, tok: string): Promise<boolean> {
  const a = await b.connect(tok);
  const got = collect(a);
  await subCode(a, 'devices/alive');
  await pubCode(a, 'devices/alive', 'yes');
  await until(() => got.length === 1, 10_000, 'a message after the hostile input');
  return true;
}

t.test('topic aliases out of range: huge and 0 are DISCONNECT 0x94, an unknown one too', async (t) => {
  const b = await startBroker(t);
  const tok = b.token(['notify'], device);
  for (const [alias, topic] of [
    [65535, 'devices/a'],
    [0, 'devices/a'],
    [7, ''],
  ] as const) {
    const c = await rawClient(t, b.broker.port, tok);
    c.send({ cmd: 'publish', topic, payload: Buffer.from('x'), qos: 0, dup: false, retain: false, properties: { topicAlias: alias } });
    const d = await c.waitFor(isDisconnect, `the DISCONNECT for alias ${alias}`);
    t.equal((d as mqttPacket.IDisconnectPacket).reasonCode, 0x94, `alias ${alias}${topic ? '' : ' never set up'}: 0x94`);
  }
  t.ok(await stillServes(b, tok));
});

t.test('Receive Maximum 0 is CONNACK 0x82; a Maximum Packet Size of 0 is refused; one below a fixed header gets nothing', async (t) => {
  const b = await startBroker(t);
  const tok = b.token(['notify'], device);
  const zero = await rawClient(t, b.broker.port, tok, { receiveMaximum: 0 }).catch((err: Error) => err);
  if (zero instanceof Error) t.fail(zero.message);
  else t.equal((zero.packets[0] as mqttPacket.IConnackPacket).reasonCode, 0x82, 'CONNACK 0x82 protocol error');
  // A Maximum Packet Size of 0 is a protocol error (§3.1.2.11.4): mqtt-packet will not encode one, so the CONNECT's
  // bytes are made with 1 and the value's last byte set to 0. The broker closes the connection.
  const bytes = mqttPacket.generate(
    {
      cmd: 'connect',
      protocolId: 'MQTT',
      protocolVersion: 5,
      clean: true,
      clientId: 'mps-0',
      keepalive: 60,
      username: 'u',
      password: Buffer.from(tok),
      properties: { maximumPacketSize: 1 },
    },
    { protocolVersion: 5 },
  );
  const at = bytes.indexOf(Buffer.from([0x27, 0, 0, 0, 1]));
  t.ok(at > 0, 'the property is in the CONNECT');
  bytes[at + 4] = 0;
  const s = netConnect(b.broker.port, '127.0.0.1');
  s.on('error', () => {});
  const answer: Buffer[] = [];
  s.on('data', (d: Buffer) => answer.push(d));
  await once(s, 'connect');
  const closed0 = once(s, 'close');
  s.write(bytes);
  await closed0;
  t.equal(Buffer.concat(answer).length, 0, 'a Maximum Packet Size of 0: closed without a CONNACK');
  const closed = await rawClient(t, b.broker.port, tok, { maximumPacketSize: 1 });
  closed.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: 'devices/#', qos: 1 }] });
  const p = await b.connect(tok);
  for (let i = 0; i < 20; i++) t.equal(await pubCode(p, 'devices/tiny', `m${i}`), 0);
  t.ok(await stillServes(b, tok));
  t.equal(closed.packets.filter((x) => x.cmd === 'publish').length, 0, 'nothing larger than 1 byte was sent to it');
});

t.test('expired retained messages are never delivered, and a burst of them costs nothing later', async (t) => {
  const b = await startBroker(t);
  const tok = b.token(['notify'], device);
  const p = await b.connect(tok);
  for (let i = 0; i < 200; i++)
    t.equal(await pubCode(p, `devices/ret/${i}`, 'x'.repeat(100), { qos: 1, retain: true, properties: { messageExpiryInterval: 1 } }), 0);
  await new Promise((r) => setTimeout(r, 1100)); // past their expiry
  const late = await b.connect(tok);
  const got = collect(late);
  await subCode(late, 'devices/ret/#');
  await pubCode(p, 'devices/ret/marker', 'm');
  await until(() => got.length >= 1, 10_000, 'the marker');
  t.same(
    got.map((g) => g.topic),
    ['devices/ret/marker'],
  );
});

t.test('a client that never acknowledges: its queue stays bounded and a safety event reaches the others at once', async (t) => {
  const b = await startBroker(t, { sessions: { maxQueued: 5 } });
  const tok = b.token(['read', 'notify'], device);
  const stuck = await rawClient(t, b.broker.port, tok, { receiveMaximum: 1 });
  stuck.send({
    cmd: 'subscribe',
    messageId: 1,
    subscriptions: [
      { topic: 'devices/#', qos: 1 },
      { topic: 'svc/k1/safety/#', qos: 2 },
    ],
  });
  await stuck.waitFor((x) => x.cmd === 'suback', 'the SUBACK');
  const good = await b.connect(tok);
  const seen = collect(good);
  await subCode(good, 'svc/k1/safety/#', { qos: 2 });
  const p = await b.connect(tok);
  for (let i = 0; i < 50; i++) t.equal(await pubCode(p, 'devices/flood', `m${i}`), 0);
  await until(() => b.logged.some((l) => l.msg.startsWith('mqtt client receive window full')), 10_000, 'the full-window line');
  await b.broker.publish({ topic: 'svc/k1/safety/oil-max', payload: '{"kind":"trip"}', qos: 2, retain: false });
  await until(() => seen.length === 1, 10_000, 'the safety event at the well-behaved client');
  t.equal(seen[0]?.topic, 'svc/k1/safety/oil-max');
  const held = stuck.packets.filter((x) => x.cmd === 'publish').length;
  t.equal(held, 1, 'the stuck client has one message in flight (its Receive Maximum), the rest wait or are dropped');
  t.equal(
    b.logged.filter((l) => l.msg.startsWith('mqtt client receive window full')).length <= 5,
    true,
    'the drops are logged, rate-limited',
  );
});
