/**
 * For tests of the embedded broker: one EmbeddedBroker on 127.0.0.1 port 0 over a fresh kitchen's token store,
 * mqtt.js MQTT 5 clients that log in with a token, and the lines the broker logged. Not imported by production code.
 */

import { once } from 'node:events';
import { connect as netConnect, type Socket } from 'node:net';
import mqtt, {
  type IClientOptions,
  type IClientPublishOptions,
  type IClientSubscribeOptions,
  type IPublishPacket,
  type MqttClient,
} from 'mqtt';
import mqttPacket from 'mqtt-packet';
import type { Test } from 'tap';
import type { MqttGrants } from '../../platform/http/mqtt-grants.js';
import { makeKitchen, until } from '../events/testing.js';
import { EmbeddedBroker, type EmbeddedBrokerOptions } from './broker.js';

export interface BrokerFixture {
  broker: EmbeddedBroker;
  kitchenId: string;
  logged: { msg: string; [k: string]: unknown }[];
  token(scopes: string[], mqttGrants?: Partial<MqttGrants>, name?: string): string;
  connect(token: string | undefined, opts?: IClientOptions): Promise<MqttClient>;
  /** A client not yet connected (call `.connect()` once its listeners are on: queued messages come at once). */
  connectLater(token: string, opts?: IClientOptions): MqttClient;
}

export async function startBroker(t: Test, extra: Partial<EmbeddedBrokerOptions> = {}): Promise<BrokerFixture> {
  const k = makeKitchen({ kitchenId: 'k1' });
  const logged: BrokerFixture['logged'] = [];
  const broker = new EmbeddedBroker({
    kitchenId: 'k1',
    tokens: k.tokens,
    host: '127.0.0.1',
    port: 0,
    log: (msg, detail) => logged.push({ msg, ...detail }),
    ...extra,
  });
  await broker.start();
  const clients: MqttClient[] = [];
  t.teardown(async () => {
    for (const c of clients) await c.endAsync(true).catch(() => {});
    await broker.stop();
    k.db.close();
  });
  return {
    broker,
    kitchenId: 'k1',
    logged,
    token: (scopes, grants, name) => k.tokens.create({ scopes, ...(grants ? { mqtt: grants } : {}), ...(name ? { name } : {}) }).token,
    connectLater(token, opts = {}) {
      const c = mqtt.connect(`mqtt://127.0.0.1:${broker.port}`, {
        protocolVersion: 5,
        reconnectPeriod: 0,
        username: 'me',
        password: token,
        ...opts,
        manualConnect: true,
      });
      clients.push(c);
      return c;
    },
    async connect(token, opts = {}) {
      const c = await mqtt.connectAsync(
        `mqtt://127.0.0.1:${broker.port}`,
        {
          protocolVersion: 5,
          reconnectPeriod: 0,
          clientId: `c-${Math.random().toString(16).slice(2)}`,
          ...(token ? { username: 'me', password: token } : {}),
          ...opts,
        },
        false,
      );
      clients.push(c);
      return c;
    },
  };
}

/** Messages a client receives, in order. */
export function collect(c: MqttClient): { topic: string; payload: Buffer; packet: IPublishPacket }[] {
  const got: { topic: string; payload: Buffer; packet: IPublishPacket }[] = [];
  c.on('message', (topic, payload, packet) => got.push({ topic, payload, packet }));
  return got;
}

/** The PUBACK/PUBREC reason code of a QoS 1/2 publish (0 = success; mqtt.js rejects on a failure code). */
export async function pubCode(
  c: MqttClient,
  topic: string,
  payload: string | Buffer,
  opts: IClientPublishOptions = { qos: 1 },
): Promise<number> {
  try {
    const ack = await c.publishAsync(topic, payload, opts);
    return (ack as { reasonCode?: number } | undefined)?.reasonCode ?? 0;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'number') return code;
    throw err;
  }
}

/** The SUBACK code of one subscription (granted QoS, or the failure reason code). */
export async function subCode(c: MqttClient, filter: string, opts: IClientSubscribeOptions = { qos: 1 }): Promise<number> {
  try {
    const granted = await c.subscribeAsync(filter, opts);
    return granted[0]?.qos ?? -1;
  } catch (err) {
    const g = (err as { packet?: { granted?: number[] } }).packet?.granted;
    if (g && typeof g[0] === 'number') return g[0];
    throw err;
  }
}

/** A bare MQTT 5 client (mqtt-packet over a socket) for what mqtt.js does for us: holding acknowledgements back. */
export interface RawClient {
  packets: mqttPacket.Packet[];
  send(packet: mqttPacket.Packet): void;
  socket: Socket;
  /** Resolves once a packet matching `match` has arrived (or already had). */
  waitFor(match: (p: mqttPacket.Packet) => boolean, what: string): Promise<mqttPacket.Packet>;
}

export async function rawClient(
  t: Test,
  port: number,
  token: string,
  properties: mqttPacket.IConnectPacket['properties'] = {},
): Promise<RawClient> {
  const socket = netConnect(port, '127.0.0.1');
  t.teardown(() => {
    socket.destroy();
  });
  await once(socket, 'connect');
  const parser = mqttPacket.parser({ protocolVersion: 5 });
  const packets: mqttPacket.Packet[] = [];
  parser.on('packet', (p) => packets.push(p));
  socket.on('data', (d) => parser.parse(d));
  socket.on('error', () => {});
  const send = (p: mqttPacket.Packet) => socket.write(mqttPacket.generate(p, { protocolVersion: 5 }));
  const waitFor = async (match: (p: mqttPacket.Packet) => boolean, what: string) => {
    await until(() => packets.some(match), 10_000, what);
    return packets.find(match) as mqttPacket.Packet;
  };
  send({
    cmd: 'connect',
    protocolId: 'MQTT',
    protocolVersion: 5,
    clean: true,
    clientId: `raw-${Math.random().toString(16).slice(2)}`,
    keepalive: 60,
    username: 'raw',
    password: Buffer.from(token),
    properties,
  });
  await waitFor((p) => p.cmd === 'connack', 'the CONNACK');
  return { packets, send, socket, waitFor };
}
