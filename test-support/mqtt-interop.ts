/**
 * The project's own MQTT 5 broker conformance cases (`npm run interop:mqtt`): one harness, run against Debian's
 * mosquitto and against Hearth's embedded broker. NOT the Eclipse Paho interoperability suite (it is not shipped by
 * npm or Debian): our own list of the behaviours MQTT 5 clients rely on, each citing its clause of MQTT 5.0
 * (OASIS Standard, 7 March 2019), driven by mqtt.js and, where a client must misbehave (hold acknowledgements,
 * stop pinging), by a bare mqtt-packet client. Cases live in mqtt-interop-cases.ts.
 */
import { once } from 'node:events';
import { connect as netConnect, type Socket } from 'node:net';
import mqtt, { type IClientOptions, type IPublishPacket, type MqttClient } from 'mqtt';
import mqttPacket from 'mqtt-packet';

export interface Target {
  name: string;
  host: string;
  port: number;
  username: string;
  password: string;
}

export interface Ctx {
  target: Target;
  /** A topic root of this case alone: `interop/{run}/{case}`. */
  root: string;
  connect(opts?: IClientOptions): Promise<MqttClient>;
  /** Not yet connected: call `.connect()` once the listeners are on. */
  later(opts?: IClientOptions): MqttClient;
  raw(opts?: {
    clientId?: string;
    keepalive?: number;
    properties?: mqttPacket.IConnectPacket['properties'];
    clean?: boolean;
  }): Promise<Raw>;
  collect(c: MqttClient): Received[];
  /** Resolves when `check` holds; throws `what` after 8 s. */
  until(check: () => boolean, what: string): Promise<void>;
  sleep(ms: number): Promise<void>;
}

export interface Received {
  topic: string;
  payload: string;
  packet: IPublishPacket;
}

export interface Raw {
  packets: mqttPacket.Packet[];
  send(p: mqttPacket.Packet): void;
  socket: Socket;
}

export interface Case {
  name: string;
  /** The clause of MQTT 5.0 it checks. */
  clause: string;
  run(ctx: Ctx): Promise<void>;
}

export class CaseFailure extends Error {}

export function expect(ok: unknown, what: string): asserts ok {
  if (!ok) throw new CaseFailure(what);
}

export interface CaseResult {
  name: string;
  clause: string;
  pass: boolean;
  detail?: string;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until(check: () => boolean, what: string, ms = 8000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new CaseFailure(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Run every case against `target`, one after another, each with its own clients (all closed after it). */
export async function runCases(target: Target, cases: readonly Case[], run = Date.now().toString(36)): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const c of cases) {
    const clients: MqttClient[] = [];
    const sockets: Socket[] = [];
    const base = {
      protocolVersion: 5 as const,
      reconnectPeriod: 0,
      username: target.username,
      password: target.password,
      connectTimeout: 8000,
    };
    const url = `mqtt://${target.host}:${target.port}`;
    const ctx: Ctx = {
      target,
      root: `interop/${run}/${c.name}`,
      async connect(opts = {}) {
        const client = mqtt.connect(url, { ...base, clientId: `i-${Math.random().toString(16).slice(2, 10)}`, ...opts });
        clients.push(client);
        await new Promise<void>((resolve, reject) => {
          client.once('connect', () => resolve());
          client.once('error', reject);
          client.once('close', () => reject(new CaseFailure('closed before CONNACK')));
        });
        client.on('error', () => {});
        return client;
      },
      later(opts = {}) {
        const client = mqtt.connect(url, {
          ...base,
          clientId: `i-${Math.random().toString(16).slice(2, 10)}`,
          ...opts,
          manualConnect: true,
        });
        client.on('error', () => {});
        clients.push(client);
        return client;
      },
      async raw(opts = {}) {
        const socket = netConnect(target.port, target.host);
        sockets.push(socket);
        socket.on('error', () => {});
        await once(socket, 'connect');
        const parser = mqttPacket.parser({ protocolVersion: 5 });
        const packets: mqttPacket.Packet[] = [];
        parser.on('packet', (p) => packets.push(p));
        parser.on('error', () => {});
        socket.on('data', (d) => parser.parse(d));
        const send = (p: mqttPacket.Packet) => socket.write(mqttPacket.generate(p, { protocolVersion: 5 }));
        send({
          cmd: 'connect',
          protocolId: 'MQTT',
          protocolVersion: 5,
          clean: opts.clean ?? true,
          clientId: opts.clientId ?? `r-${Math.random().toString(16).slice(2, 10)}`,
          keepalive: opts.keepalive ?? 60,
          username: target.username,
          password: Buffer.from(target.password),
          ...(opts.properties ? { properties: opts.properties } : {}),
        });
        await until(() => packets.some((p) => p.cmd === 'connack'), 'the CONNACK');
        return { packets, send, socket };
      },
      collect(client) {
        const got: Received[] = [];
        client.on('message', (topic, payload, packet) => got.push({ topic, payload: payload.toString(), packet }));
        return got;
      },
      until,
      sleep,
    };
    try {
      await Promise.race([
        c.run(ctx),
        sleep(20_000).then(() => {
          throw new CaseFailure('the case took more than 20 s');
        }),
      ]);
      results.push({ name: c.name, clause: c.clause, pass: true });
    } catch (err) {
      results.push({ name: c.name, clause: c.clause, pass: false, detail: (err as Error).message.split('\n')[0]?.slice(0, 160) ?? '' });
    } finally {
      for (const client of clients) await client.endAsync(true).catch(() => {});
      for (const s of sockets) s.destroy();
    }
  }
  return results;
}

/** Helpers of the cases: a reason code out of an acknowledgement or a refusal (mqtt.js rejects on one). */
export async function code(p: Promise<unknown>): Promise<number> {
  try {
    const ack = (await p) as { reasonCode?: number; granted?: number[] } | { qos: number }[] | undefined;
    if (Array.isArray(ack)) return ack[0]?.qos ?? -1;
    return ack?.reasonCode ?? 0;
  } catch (err) {
    const e = err as { code?: unknown; packet?: { granted?: number[] } };
    if (typeof e.code === 'number') return e.code;
    if (e.packet?.granted?.[0] !== undefined) return e.packet.granted[0];
    throw err;
  }
}

export const sub = (c: MqttClient, filter: string, opts: object = { qos: 2 }) => code(c.subscribeAsync(filter, opts));
export const pub = (c: MqttClient, topic: string, payload: string | Buffer, opts: object = { qos: 1 }) =>
  code(c.publishAsync(topic, payload, opts));
export const publishes = (packets: mqttPacket.Packet[]) => packets.filter((p): p is mqttPacket.IPublishPacket => p.cmd === 'publish');
