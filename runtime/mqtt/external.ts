/**
 * An external MQTT 5 broker (e.g. mosquitto) instead of the embedded one: the hub connects as a client and
 * publishes the same topics with the same QoS, retain flag and content type. Its last will is the retained
 * `offline` availability message. Access rules are then the broker's (docs/events.md shows a mosquitto ACL that
 * matches the embedded broker's); the hub listens for the e-stop command topic.
 */
import type { IClientOptions, MqttClient } from 'mqtt';
import { commandTopic } from './topics.js';
import { checkBrokerUrl } from './url.js';

export { checkBrokerUrl };

import type { BusTransport, CommandHandler, OutgoingMessage } from './transport.js';

export interface ExternalBrokerOptions {
  /** `mqtt://host:port`, `mqtts://…`, `ws://…` or `wss://…`; user info in the URL is used as credentials. */
  url: string;
  kitchenId: string;
  username?: string;
  password?: string;
  clientId?: string;
  /** The message the broker publishes if the hub vanishes (the availability topic, retained). */
  will?: OutgoingMessage;
  connectTimeoutMs?: number;
  /** How long to collect retained safety alarms at start (default 300 ms). */
  retainedWaitMs?: number;
}

export class ExternalBroker implements BusTransport {
  private client: MqttClient | undefined;
  private readonly handlers: CommandHandler[] = [];
  private readonly retained = new Set<string>();

  constructor(private readonly o: ExternalBrokerOptions) {
    const bad = checkBrokerUrl(o.url);
    if (bad) throw new Error(bad);
  }

  get urls(): string[] {
    const u = new URL(this.o.url);
    u.username = '';
    u.password = '';
    return [u.toString().replace(/\/$/, '')];
  }

  onCommand(handler: CommandHandler): void {
    this.handlers.push(handler);
  }

  async start(): Promise<void> {
    const u = new URL(this.o.url);
    const opts: IClientOptions = {
      protocolVersion: 5,
      clientId: this.o.clientId ?? `hearth-${this.o.kitchenId}`,
      clean: true,
      reconnectPeriod: 1000,
      connectTimeout: this.o.connectTimeoutMs ?? 10_000,
      username: this.o.username ?? (u.username ? decodeURIComponent(u.username) : undefined),
      password: this.o.password ?? (u.password ? decodeURIComponent(u.password) : undefined),
    };
    if (this.o.will) {
      opts.will = {
        topic: this.o.will.topic,
        payload: Buffer.from(this.o.will.payload),
        qos: this.o.will.qos,
        retain: this.o.will.retain,
        ...(this.o.will.contentType ? { properties: { contentType: this.o.will.contentType } } : {}),
      };
    }
    u.username = '';
    u.password = '';
    // The MQTT client library (about 110 modules) is loaded only when an external broker is used.
    const { default: mqtt } = await import('mqtt');
    const client = await mqtt.connectAsync(u.toString(), opts, false);
    this.client = client;
    // No Nagle on the hub's connection: a safety event must not wait for a delayed ACK.
    const noDelay = () => (client.stream as { setNoDelay?: (on: boolean) => void } | undefined)?.setNoDelay?.(true);
    noDelay();
    client.on('connect', noDelay);
    const estop = commandTopic(this.o.kitchenId, 'estop');
    client.on('message', (topic, payload) => {
      if (topic !== estop) return;
      for (const h of this.handlers) h('estop', { clientId: 'external-broker' }, payload);
    });
    await client.subscribeAsync(estop, { qos: 1 });
    // Learn which alarms a previous run left retained, so the next reset or cleared event clears them too.
    const safety = `svc/${this.o.kitchenId}/safety/#`;
    const learn = (topic: string, payload: Buffer, packet: { retain?: boolean }) => {
      if (packet.retain && payload.length > 0 && topic.startsWith(safety.slice(0, -1))) this.retained.add(topic);
    };
    client.on('message', learn);
    await client.subscribeAsync(safety, { qos: 1 });
    await new Promise((r) => setTimeout(r, this.o.retainedWaitMs ?? 300));
    client.off('message', learn);
    await client.unsubscribeAsync(safety);
  }

  retainedAlarms(): string[] {
    return [...this.retained];
  }

  async publish(msg: OutgoingMessage): Promise<void> {
    const client = this.client;
    if (!client) throw new Error('not connected to the MQTT broker');
    await client.publishAsync(msg.topic, typeof msg.payload === 'string' ? msg.payload : msg.payload, {
      qos: msg.qos,
      retain: msg.retain,
      ...(msg.contentType ? { properties: { contentType: msg.contentType } } : {}),
    });
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) await client.endAsync();
  }
}
