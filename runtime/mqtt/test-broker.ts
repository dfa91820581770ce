/**
 * For tests of the embedded broker: one EmbeddedBroker on 127.0.0.1 port 0 over a fresh kitchen's token store,
 * mqtt.js MQTT 5 clients that log in with a token, and the lines the broker logged. Not imported by production code.
 */
import mqtt, {
  type IClientOptions,
  type IClientPublishOptions,
  type IClientSubscribeOptions,
  type IPublishPacket,
  type MqttClient,
} from 'mqtt';
import type { Test } from 'tap';
import type { MqttGrants } from '../../platform/http/mqtt-grants.js';
import { makeKitchen } from '../events/testing.js';
import { EmbeddedBroker, type EmbeddedBrokerOptions } from './broker.js';

export interface BrokerFixture {
  broker: EmbeddedBroker;
  kitchenId: string;
  logged: { msg: string; [k: string]: unknown }[];
  token(scopes: string[], mqttGrants?: Partial<MqttGrants>, name?: string): string;
  connect(token: string | undefined, opts?: IClientOptions): Promise<MqttClient>;
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
