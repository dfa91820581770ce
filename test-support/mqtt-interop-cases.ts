/**
 * The cases of the project's own MQTT 5 conformance run (mqtt-interop.ts): what MQTT 5 clients rely on a broker
 * for, each with its clause of MQTT 5.0. Topics are under the case's own root (`interop/…`); `interop-denied/…` is
 * a topic the suite's user may not subscribe to on either broker.
 */
import type mqttPacket from 'mqtt-packet';
import { type Case, expect, pub, publishes, sub } from './mqtt-interop.js';
import { MQTT5_CASES } from './mqtt-interop-cases-v5.js';

export const CASES: Case[] = [
  {
    name: 'basic',
    clause: '§3.3, §4.3 (QoS 0, 1, 2 delivery)',
    async run(x) {
      const c = await x.connect();
      const got = x.collect(c);
      expect((await sub(c, `${x.root}/#`)) === 2, 'SUBACK QoS 2');
      for (const qos of [0, 1, 2] as const) await pub(c, `${x.root}/q${qos}`, `m${qos}`, { qos });
      await x.until(() => got.length === 3, 'three messages');
      expect(got.map((g) => g.packet.qos).join() === '0,1,2', 'each at its QoS');
    },
  },
  {
    name: 'retained_message',
    clause: '§3.3.1.3 (RETAIN)',
    async run(x) {
      const p = await x.connect();
      for (const qos of [0, 1, 2] as const) await pub(p, `${x.root}/r${qos}`, `r${qos}`, { qos, retain: true });
      const c = await x.connect();
      const got = x.collect(c);
      await sub(c, `${x.root}/#`);
      await x.until(() => got.length === 3, 'three retained messages');
      expect(
        got.every((g) => g.packet.retain),
        'retain flag set',
      );
      for (const qos of [0, 1, 2] as const) await pub(p, `${x.root}/r${qos}`, '', { qos, retain: true });
      const d = await x.connect();
      const none = x.collect(d);
      await sub(d, `${x.root}/#`);
      await pub(p, `${x.root}/marker`, 'm');
      await x.until(() => none.length >= 1, 'the marker');
      expect(none.length === 1 && none[0]?.topic === `${x.root}/marker`, 'cleared retained messages are gone');
    },
  },
  {
    name: 'will_message',
    clause: '§3.1.2.5 (Will Flag), §3.1.3.2 (Will Properties)',
    async run(x) {
      const w = await x.connect();
      const got = x.collect(w);
      await sub(w, `${x.root}/#`);
      const c = await x.connect({
        will: { topic: `${x.root}/will`, payload: Buffer.from('gone'), qos: 1, retain: false, properties: { contentType: 'text/plain' } },
      });
      c.stream.destroy();
      await x.until(() => got.length === 1, 'the will');
      expect(got[0]?.payload === 'gone' && got[0]?.packet.properties?.contentType === 'text/plain', 'payload and properties');
    },
  },
  {
    name: 'no_will_on_normal_disconnect',
    clause: '§3.14.4 (DISCONNECT 0x00 discards the Will)',
    async run(x) {
      const w = await x.connect();
      const got = x.collect(w);
      await sub(w, `${x.root}/#`);
      const c = await x.connect({ will: { topic: `${x.root}/will`, payload: Buffer.from('gone'), qos: 1, retain: false } });
      await c.endAsync();
      await pub(w, `${x.root}/marker`, 'm');
      await x.until(() => got.length >= 1, 'the marker');
      expect(got.length === 1, 'no will');
    },
  },
  {
    name: 'zero_length_clientid',
    clause: '§3.1.3.1, §3.2.2.3.7 (Assigned Client Identifier)',
    async run(x) {
      const r = await x.raw({ clientId: '' });
      const ack = r.packets[0] as mqttPacket.IConnackPacket;
      expect(ack.reasonCode === 0 && typeof ack.properties?.assignedClientIdentifier === 'string', 'CONNACK assigns an id');
    },
  },
  {
    name: 'offline_message_queueing',
    clause: '§4.1 (Session State), §3.1.2.11.2 (Session Expiry)',
    async run(x) {
      const id = `oq-${Math.random().toString(16).slice(2, 8)}`;
      const opts = { clientId: id, clean: false, properties: { sessionExpiryInterval: 60 } };
      const a = await x.connect(opts);
      await sub(a, `${x.root}/#`);
      await a.endAsync();
      const p = await x.connect();
      for (const qos of [1, 2] as const) await pub(p, `${x.root}/q${qos}`, `m${qos}`, { qos });
      const b = x.later(opts);
      const got = x.collect(b);
      b.connect();
      await x.until(() => got.length >= 2, 'the queued QoS 1 and 2 messages');
    },
  },
  {
    name: 'overlapping_subscriptions',
    clause: '§3.3.4 (overlapping subscriptions: one message at the highest QoS, or one per subscription)',
    async run(x) {
      const c = await x.connect();
      const got = x.collect(c);
      await sub(c, `${x.root}/#`, { qos: 2 });
      await sub(c, `${x.root}/+`, { qos: 1 });
      await pub(c, `${x.root}/x`, 'm', { qos: 2 });
      await x.until(() => got.length >= 1, 'the message');
      await x.sleep(300);
      expect((got.length === 1 && got[0]?.packet.qos === 2) || got.length === 2, `got ${got.length}`);
    },
  },
  {
    name: 'keepalive',
    clause: '§3.1.2.10 (Keep Alive: closed after 1.5 × the interval)',
    async run(x) {
      const w = await x.connect();
      const got = x.collect(w);
      await sub(w, `${x.root}/#`);
      const r = await x.raw({ keepalive: 2 });
      r.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: `${x.root}/none`, qos: 0 }] });
      await x.until(() => r.socket.destroyed || r.socket.readableEnded, 'the broker closing a silent client');
      expect(got.length === 0, 'nothing published');
    },
  },
  {
    name: 'redelivery_on_reconnect',
    clause: '§4.4 (message delivery retry: unacknowledged PUBLISH resent with DUP)',
    async run(x) {
      const id = `rd-${Math.random().toString(16).slice(2, 8)}`;
      const r = await x.raw({ clientId: id, clean: false, properties: { sessionExpiryInterval: 60 } });
      r.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: `${x.root}/#`, qos: 1 }] });
      await x.until(() => r.packets.some((p) => p.cmd === 'suback'), 'the SUBACK');
      const p = await x.connect();
      await pub(p, `${x.root}/x`, 'again');
      await x.until(() => publishes(r.packets).length === 1, 'the first delivery');
      r.socket.destroy();
      const back = await x.raw({ clientId: id, clean: false, properties: { sessionExpiryInterval: 60 } });
      await x.until(() => publishes(back.packets).length >= 1, 'the redelivery');
      const again = publishes(back.packets)[0];
      expect(again?.dup === true && String(again.payload) === 'again', 'resent with DUP');
      back.send({ cmd: 'puback', messageId: again.messageId as number });
    },
  },
  {
    name: 'subscribe_failure',
    clause: '§3.9.3 (SUBACK 0x87 Not authorized)',
    async run(x) {
      const c = await x.connect();
      const rc = await sub(c, 'interop-denied/#');
      expect(rc === 0x87, `SUBACK ${rc}`);
    },
  },
  {
    name: 'dollar_topics',
    clause: '§4.7.2 (a filter starting with a wildcard does not match $ topics)',
    async run(x) {
      const c = await x.connect();
      const got = x.collect(c);
      await sub(c, '#', { qos: 0 });
      await pub(c, `${x.root}/marker`, 'm');
      await x.until(() => got.some((g) => g.topic === `${x.root}/marker`), 'the marker');
      await x.sleep(500);
      expect(!got.some((g) => g.topic.startsWith('$')), 'no $ topic');
    },
  },
  {
    name: 'unsubscribe',
    clause: '§3.10, §3.11 (UNSUBSCRIBE, UNSUBACK reason codes)',
    async run(x) {
      const c = await x.connect();
      const got = x.collect(c);
      for (const t of ['a', 'b', 'c']) await sub(c, `${x.root}/${t}`);
      const ack = (await c.unsubscribeAsync([`${x.root}/a`, `${x.root}/b`, `${x.root}/zz`])) as
        | { reasonCode?: number; granted?: number[] }
        | undefined;
      void ack;
      for (const t of ['a', 'b', 'c']) await pub(c, `${x.root}/${t}`, t);
      await x.until(() => got.length >= 1, 'a message');
      await x.sleep(300);
      expect(got.length === 1 && got[0]?.topic === `${x.root}/c`, `only c (got ${got.map((g) => g.topic).join()})`);
    },
  },
  {
    name: 'session_expiry',
    clause: '§3.1.2.11.2 (Session Expiry Interval)',
    async run(x) {
      const id = `se-${Math.random().toString(16).slice(2, 8)}`;
      const a = await x.raw({ clientId: id, clean: false, properties: { sessionExpiryInterval: 1 } });
      a.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: `${x.root}/#`, qos: 1 }] });
      await x.until(() => a.packets.some((p) => p.cmd === 'suback'), 'the SUBACK');
      a.send({ cmd: 'disconnect', reasonCode: 0 });
      await x.sleep(2500);
      const b = await x.raw({ clientId: id, clean: false, properties: { sessionExpiryInterval: 1 } });
      expect((b.packets[0] as mqttPacket.IConnackPacket).sessionPresent === false, 'the session expired');
      const c = await x.raw({ clientId: `${id}-k`, clean: false, properties: { sessionExpiryInterval: 60 } });
      c.send({ cmd: 'disconnect', reasonCode: 0 });
      await x.sleep(200);
      const d = await x.raw({ clientId: `${id}-k`, clean: false, properties: { sessionExpiryInterval: 60 } });
      expect((d.packets[0] as mqttPacket.IConnackPacket).sessionPresent === true, 'a kept session is present');
    },
  },
  ...MQTT5_CASES,
];
