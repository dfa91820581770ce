/**
 * The second half of the project's own MQTT 5 cases (mqtt-interop-cases.ts has the first and the list): MQTT 5
 * properties, subscribe options, topic aliases, flow control, will delay, shared subscriptions.
 */
import type mqttPacket from 'mqtt-packet';
import { type Case, expect, pub, publishes, sub } from './mqtt-interop.js';

export const MQTT5_CASES: Case[] = [
  {
    name: 'user_properties',
    clause: '§3.3.2.3.7 (User Property forwarded unchanged)',
    async run(x) {
      const c = await x.connect();
      const got = x.collect(c);
      await sub(c, `${x.root}/#`);
      await pub(c, `${x.root}/x`, 'm', { qos: 1, properties: { userProperties: { a: '2', c: '3', b: ['1', '4'] } } });
      await x.until(() => got.length === 1, 'the message');
      const up = got[0]?.packet.properties?.userProperties ?? {};
      expect(JSON.stringify(up) === JSON.stringify({ a: '2', c: '3', b: ['1', '4'] }), `properties ${JSON.stringify(up)}`);
    },
  },
  {
    name: 'payload_format',
    clause: '§3.3.2.3.2 (Payload Format Indicator), §3.3.2.3.9 (Content Type)',
    async run(x) {
      const c = await x.connect();
      const got = x.collect(c);
      await sub(c, `${x.root}/#`);
      await pub(c, `${x.root}/x`, 'text', { qos: 1, properties: { payloadFormatIndicator: true, contentType: 'text/plain' } });
      await x.until(() => got.length === 1, 'the message');
      const p = got[0]?.packet.properties;
      expect(p?.payloadFormatIndicator === true && p.contentType === 'text/plain', 'forwarded');
    },
  },
  {
    name: 'payload_format_invalid',
    clause: '§3.3.2.3.2 (a payload marked UTF-8 that is not: 0x99)',
    async run(x) {
      const c = await x.connect();
      const rc = await pub(c, `${x.root}/x`, Buffer.from([0xff, 0xfe]), { qos: 1, properties: { payloadFormatIndicator: true } });
      expect(rc === 0x99, `PUBACK ${rc}`);
    },
  },
  {
    name: 'publication_expiry',
    clause: '§3.3.2.3.3 (Message Expiry Interval)',
    async run(x) {
      const id = `pe-${Math.random().toString(16).slice(2, 8)}`;
      const opts = { clientId: id, clean: false, properties: { sessionExpiryInterval: 60 } };
      const a = await x.connect(opts);
      await sub(a, `${x.root}/#`);
      await a.endAsync();
      const p = await x.connect();
      await pub(p, `${x.root}/short`, 's', { qos: 1, properties: { messageExpiryInterval: 1 } });
      await pub(p, `${x.root}/long`, 'l', { qos: 1, properties: { messageExpiryInterval: 60 } });
      await x.sleep(2100);
      const b = x.later(opts);
      const got = x.collect(b);
      b.connect();
      await x.until(() => got.length >= 1, 'the long-lived message');
      await x.sleep(300);
      const left = got[0]?.packet.properties?.messageExpiryInterval ?? 99;
      expect(got.length === 1 && got[0]?.topic === `${x.root}/long` && left < 60, `got ${got.map((g) => g.topic).join()} (${left} s left)`);
    },
  },
  {
    name: 'subscribe_no_local',
    clause: '§3.8.3.1 (No Local)',
    async run(x) {
      const c = await x.connect();
      const got = x.collect(c);
      await sub(c, `${x.root}/#`, { qos: 1, nl: true });
      const o = await x.connect();
      await pub(c, `${x.root}/mine`, 'm');
      await pub(o, `${x.root}/theirs`, 't');
      await x.until(() => got.length >= 1, 'the other client’s message');
      await x.sleep(300);
      expect(got.length === 1 && got[0]?.topic === `${x.root}/theirs`, 'not its own');
    },
  },
  {
    name: 'subscribe_retain_as_published',
    clause: '§3.8.3.1 (Retain As Published)',
    async run(x) {
      const c = await x.connect();
      const got = x.collect(c);
      await sub(c, `${x.root}/rap/#`, { qos: 1, rap: true });
      await sub(c, `${x.root}/norap/#`, { qos: 1, rap: false });
      await pub(c, `${x.root}/rap/x`, 'a', { qos: 1, retain: true });
      await pub(c, `${x.root}/norap/x`, 'b', { qos: 1, retain: true });
      await x.until(() => got.length === 2, 'both');
      const byTopic = Object.fromEntries(got.map((g) => [g.topic, g.packet.retain]));
      expect(byTopic[`${x.root}/rap/x`] === true && byTopic[`${x.root}/norap/x`] === false, JSON.stringify(byTopic));
    },
  },
  {
    name: 'subscribe_retain_handling',
    clause: '§3.8.3.1 (Retain Handling 1 and 2)',
    async run(x) {
      const p = await x.connect();
      await pub(p, `${x.root}/r`, 'kept', { qos: 1, retain: true });
      const c = await x.connect();
      const got = x.collect(c);
      await sub(c, `${x.root}/r`, { qos: 1, rh: 2 });
      await sub(c, `${x.root}/#`, { qos: 1, rh: 1 });
      await sub(c, `${x.root}/#`, { qos: 1, rh: 1 });
      await x.until(() => got.length >= 1, 'the retained message');
      await x.sleep(300);
      expect(got.length === 1, `retained sent once (got ${got.length})`);
    },
  },
  {
    name: 'subscription_identifiers',
    clause: '§3.8.2.1.2, §3.3.4 (Subscription Identifier)',
    async run(x) {
      const c = await x.connect();
      const got = x.collect(c);
      await sub(c, `${x.root}/#`, { qos: 1, properties: { subscriptionIdentifier: 42 } });
      await pub(c, `${x.root}/x`, 'm');
      await x.until(() => got.length === 1, 'the message');
      const si = got[0]?.packet.properties?.subscriptionIdentifier;
      expect(si === 42 || (Array.isArray(si) && si.includes(42)), `identifier ${JSON.stringify(si)}`);
    },
  },
  {
    name: 'request_response',
    clause: '§4.10 (Response Topic, Correlation Data)',
    async run(x) {
      const c = await x.connect();
      const got = x.collect(c);
      await sub(c, `${x.root}/req`);
      await pub(c, `${x.root}/req`, 'q', { qos: 1, properties: { responseTopic: `${x.root}/resp`, correlationData: Buffer.from('c-1') } });
      await x.until(() => got.length === 1, 'the request');
      const p = got[0]?.packet.properties;
      expect(p?.responseTopic === `${x.root}/resp` && String(p.correlationData) === 'c-1', 'both forwarded');
    },
  },
  {
    name: 'client_topic_aliases',
    clause: '§3.3.2.3.4 (Topic Alias, client to server)',
    async run(x) {
      const c = await x.connect();
      const got = x.collect(c);
      await sub(c, `${x.root}/#`);
      const r = await x.raw();
      const max = (r.packets[0] as mqttPacket.IConnackPacket).properties?.topicAliasMaximum ?? 0;
      expect(max >= 1, 'the broker offers topic aliases');
      r.send({
        cmd: 'publish',
        topic: `${x.root}/a`,
        payload: Buffer.from('1'),
        qos: 0,
        dup: false,
        retain: false,
        properties: { topicAlias: 1 },
      });
      r.send({ cmd: 'publish', topic: '', payload: Buffer.from('2'), qos: 0, dup: false, retain: false, properties: { topicAlias: 1 } });
      await x.until(() => got.length === 2, 'both messages');
      expect(
        got.every((g) => g.topic === `${x.root}/a`),
        'the alias resolved',
      );
    },
  },
  {
    name: 'server_topic_aliases',
    clause: '§3.3.2.3.4 (Topic Alias, server to client: never above the client’s Topic Alias Maximum)',
    async run(x) {
      const r = await x.raw({ properties: { topicAliasMaximum: 2 } });
      r.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: `${x.root}/#`, qos: 0 }] });
      await x.until(() => r.packets.some((p) => p.cmd === 'suback'), 'the SUBACK');
      const p = await x.connect();
      for (let i = 0; i < 4; i++) await pub(p, `${x.root}/t${i % 3}`, 'm');
      await x.until(() => publishes(r.packets).length === 4, 'four messages');
      expect(
        publishes(r.packets).every((m) => (m.properties?.topicAlias ?? 0) <= 2),
        'aliases within the maximum',
      );
    },
  },
  {
    name: 'maximum_packet_size',
    clause: '§3.1.2.11.4 (Maximum Packet Size: a larger message is not sent to that client)',
    async run(x) {
      const c = await x.connect({ properties: { maximumPacketSize: 200 } });
      const got = x.collect(c);
      await sub(c, `${x.root}/#`);
      const p = await x.connect();
      await pub(p, `${x.root}/big`, 'x'.repeat(500));
      await pub(p, `${x.root}/small`, 'ok');
      await x.until(() => got.length >= 1, 'the small message');
      await x.sleep(300);
      expect(got.length === 1 && got[0]?.topic === `${x.root}/small` && c.connected, `got ${got.map((g) => g.topic).join()}`);
    },
  },
  {
    name: 'flow_control',
    clause: '§3.1.2.11.3, §4.9 (Receive Maximum toward the client)',
    async run(x) {
      const r = await x.raw({ properties: { receiveMaximum: 2 } });
      r.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: `${x.root}/#`, qos: 1 }] });
      await x.until(() => r.packets.some((p) => p.cmd === 'suback'), 'the SUBACK');
      const p = await x.connect();
      for (let i = 0; i < 4; i++) await pub(p, `${x.root}/m`, `m${i}`);
      await pub(p, `${x.root}/marker`, 'end', { qos: 0 });
      await x.until(() => publishes(r.packets).some((m) => m.qos === 0), 'the QoS 0 marker');
      const q1 = () => publishes(r.packets).filter((m) => m.qos === 1);
      expect(q1().length <= 2, `${q1().length} in flight with Receive Maximum 2`);
      for (let i = 0; i < 4; i++) {
        await x.until(() => q1().length > i, `message ${i + 1}`);
        r.send({ cmd: 'puback', messageId: q1()[i]?.messageId as number });
      }
      expect(q1().length === 4, 'all four after acknowledgements');
    },
  },
  {
    name: 'will_delay',
    clause: '§3.1.3.2.2 (Will Delay Interval: no will when the client is back in time)',
    async run(x) {
      const w = await x.connect();
      const got = x.collect(w);
      await sub(w, `${x.root}/#`);
      const id = `wd-${Math.random().toString(16).slice(2, 8)}`;
      const opts = {
        clientId: id,
        properties: { sessionExpiryInterval: 30 },
        will: { topic: `${x.root}/will`, payload: Buffer.from('w'), qos: 1 as const, retain: false, properties: { willDelayInterval: 1 } },
      };
      const a = await x.connect(opts);
      a.stream.destroy();
      await x.sleep(100);
      const b = await x.connect({ clientId: id, clean: false, properties: { sessionExpiryInterval: 30 } });
      await x.sleep(1600);
      expect(got.length === 0, 'no will: the client came back in time');
      await b.endAsync(true);
      const c = await x.connect({ ...opts, clientId: `${id}-2` });
      c.stream.destroy();
      await x.until(() => got.length === 1, 'the will of a client that stayed away');
    },
  },
  {
    name: 'shared_subscriptions',
    clause: '§4.8.2 (Shared Subscriptions)',
    async run(x) {
      const m1 = await x.connect();
      const m2 = await x.connect();
      const g1 = x.collect(m1);
      const g2 = x.collect(m2);
      expect((await sub(m1, `$share/g/${x.root}/#`, { qos: 1 })) === 1, 'SUBACK 1');
      expect((await sub(m2, `$share/g/${x.root}/#`, { qos: 1 })) === 1, 'SUBACK 1');
      const p = await x.connect();
      for (let i = 0; i < 6; i++) await pub(p, `${x.root}/j${i}`, `j${i}`);
      await x.until(() => g1.length + g2.length >= 6, 'six deliveries');
      await x.sleep(300);
      expect(g1.length + g2.length === 6 && g1.length > 0 && g2.length > 0, `split ${g1.length}/${g2.length}`);
    },
  },
];
