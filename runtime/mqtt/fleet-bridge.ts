/**
 * The fleet bridge (`hearth start --bridge-url mqtt://host:port`): forwards the kitchen's events, telemetry and
 * state to an external broker under a per-kitchen prefix, `{prefix}/{kitchenId}/{category}/{subject}` (same
 * CloudEvent JSON, QoS, retain flag and content type as the local bus), and brings commands back down from
 * `{prefix}/{kitchenId}/command/+`.
 *
 * Safety first, and local first: the bridge is an ordinary (not urgent) sink of the event hub, so every event,
 * a safety event above all, has gone to the local bus before the bridge sees it; the bridge only queues it and
 * sends later, so a slow or absent broker never delays the local loop. Commands from the fleet side go through
 * the same ACL as a local client's (`checkPublish`, as a principal with no scopes: only the commands any paired
 * token may send, today the e-stop) and the same handler (the supervisor's cutAll). Nothing else is accepted:
 * no limit change, no confirmation, no safety event can come in over the bridge.
 *
 * The broker may go away: the bridge keeps a bounded queue (when full, the oldest non-safety message is dropped
 * first; safety messages go only when the queue holds nothing else), reconnects with exponential backoff, and
 * reports its state in `status()` and as `svc.bridge.state` events. Its last will on the fleet broker is the
 * kitchen's retained `offline` availability.
 */
import type { IClientOptions, MqttClient } from 'mqtt';
import type { EventBus } from '../events/bus.js';
import { CLOUDEVENTS_CONTENT_TYPE } from '../events/cloudevent.js';
import type { EventHub } from '../events/hub.js';
import type { StoredEvent } from '../events/journal.js';
import { reasonOfMessage } from '../http/stop-body.js';
import { availabilityMessage } from './bridge.js';
import { checkPublish, commandTopic, placementOf } from './topics.js';
import type { CommandOrigin, OutgoingMessage } from './transport.js';
import { checkBrokerUrl } from './url.js';

export type BridgeState = 'connecting' | 'connected' | 'disconnected' | 'stopped';

export interface FleetBridgeOptions {
  /** `mqtt://`, `mqtts://`, `ws://` or `wss://`; user info in the URL is used as credentials. */
  url: string;
  username?: string;
  password?: string;
  /** TLS: CA bundle, client certificate and key (PEM), for `mqtts://` and `wss://`. */
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  /** Topic prefix on the fleet broker (default `hearth`): topics are `{prefix}/{kitchenId}/…`. */
  prefix?: string;
  clientId?: string;
  hub: EventHub;
  bus: EventBus;
  /** Messages kept while the broker is away (default 10,000). */
  queueLimit?: number;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** An e-stop request came over the bridge: the same handler as a local one (`reason` from its payload, if any). */
  estop: (message: string, origin: CommandOrigin, reason?: string) => void;
  now?: () => number;
  log?: (level: 'info' | 'warn' | 'error', msg: string, detail?: Record<string, unknown>) => void;
}

export interface BridgeStatus {
  url: string;
  prefix: string;
  state: BridgeState;
  since: string;
  queued: number;
  queueLimit: number;
  /** Messages dropped because the queue was full, since start. */
  dropped: number;
  /** Safety messages among them (only when the queue held nothing but safety messages). */
  droppedSafety: number;
  forwarded: number;
  commands: number;
  refusedCommands: number;
  reconnects: number;
  lastError?: string;
}

/** The principal commands from the fleet broker act as: a paired token with no scopes. */
export const BRIDGE_PRINCIPAL = { id: 'fleet-bridge', name: 'fleet-bridge', scopes: [] as string[] };
export const DEFAULT_BRIDGE_PREFIX = 'hearth';
export const PREFIX = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

interface Queued extends OutgoingMessage {
  safety: boolean;
}

/** A bounded FIFO that, when full, gives up the oldest non-safety message first. */
export class OutboundQueue {
  private items: Queued[] = [];
  dropped = 0;
  droppedSafety = 0;

  constructor(readonly limit: number) {}

  get length(): number {
    return this.items.length;
  }

  push(m: Queued): void {
    if (this.items.length >= this.limit) {
      const i = this.items.findIndex((x) => !x.safety);
      const [gone] = this.items.splice(i >= 0 ? i : 0, 1);
      this.dropped++;
      if (gone?.safety) this.droppedSafety++;
    }
    this.items.push(m);
  }

  shift(): Queued | undefined {
    return this.items.shift();
  }

  unshift(m: Queued): void {
    this.items.unshift(m);
  }

  peekAll(): readonly Queued[] {
    return this.items;
  }
}

/** `svc/{k}/{category}/{subject}` → `{prefix}/{k}/{category}/{subject}`. */
export function fleetTopic(prefix: string, localTopic: string): string {
  return `${prefix}/${localTopic.split('/').slice(1).join('/')}`;
}

/** The URL without credentials, for logs and status. */
function shown(url: string): string {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  return u.toString().replace(/\/$/, '');
}

export class FleetBridge {
  private client: MqttClient | undefined;
  private off: (() => void) | undefined;
  private readonly queue: OutboundQueue;
  private readonly prefix: string;
  private readonly kitchenId: string;
  private stateNow: BridgeState = 'stopped';
  private since: number;
  private inflight = 0;
  private pumping = false;
  private backoff: number;
  private counts = { forwarded: 0, commands: 0, refusedCommands: 0, reconnects: 0 };
  private lastError: string | undefined;
  private readonly now: () => number;

  constructor(private readonly o: FleetBridgeOptions) {
    const bad = checkBrokerUrl(o.url);
    if (bad) throw new Error(`--bridge-url ${bad}`);
    this.prefix = o.prefix ?? DEFAULT_BRIDGE_PREFIX;
    if (!PREFIX.test(this.prefix))
      throw new Error(`bridge prefix ${JSON.stringify(this.prefix)}: use topic levels of letters, digits, - and _`);
    this.kitchenId = o.hub.kitchenId;
    this.queue = new OutboundQueue(o.queueLimit ?? 10_000);
    this.now = o.now ?? Date.now;
    this.since = this.now();
    this.backoff = o.minBackoffMs ?? 1000;
  }

  status(): BridgeStatus {
    return {
      url: shown(this.o.url),
      prefix: `${this.prefix}/${this.kitchenId}`,
      state: this.stateNow,
      since: new Date(this.since).toISOString(),
      queued: this.queue.length,
      queueLimit: this.queue.limit,
      dropped: this.queue.dropped,
      droppedSafety: this.queue.droppedSafety,
      ...this.counts,
      ...(this.lastError ? { lastError: this.lastError } : {}),
    };
  }

  /** Start forwarding. Never waits for the broker: an absent broker is the `connecting` state, not an error. */
  async start(): Promise<void> {
    if (this.client) return;
    const u = new URL(this.o.url);
    const will = availabilityMessage(this.o.hub, false, new Date(this.now()).toISOString());
    const opts: IClientOptions = {
      protocolVersion: 5,
      clientId: this.o.clientId ?? `hearth-bridge-${this.kitchenId}`,
      clean: true,
      reconnectPeriod: this.backoff,
      connectTimeout: 10_000,
      username: this.o.username ?? (u.username ? decodeURIComponent(u.username) : undefined),
      password: this.o.password ?? (u.password ? decodeURIComponent(u.password) : undefined),
      will: {
        topic: fleetTopic(this.prefix, will.topic),
        payload: Buffer.from(will.payload),
        qos: 1,
        retain: true,
        properties: { contentType: CLOUDEVENTS_CONTENT_TYPE },
      },
      ...(this.o.ca ? { ca: this.o.ca } : {}),
      ...(this.o.cert ? { cert: this.o.cert } : {}),
      ...(this.o.key ? { key: this.o.key } : {}),
    };
    u.username = '';
    u.password = '';
    const { default: mqtt } = await import('mqtt');
    this.setState('connecting');
    // Events are queued from now on, whether or not the broker is there yet.
    this.off = this.o.hub.addSink((ev) => this.forward(ev));
    const client = mqtt.connect(u.toString(), opts);
    this.client = client;
    client.on('connect', () => this.onConnect(client));
    client.on('close', () => {
      if (this.stateNow === 'stopped') return;
      if (this.stateNow === 'connected') this.setState('disconnected');
      // Exponential backoff between attempts, reset by a successful connection.
      this.backoff = Math.min(this.backoff * 2, this.o.maxBackoffMs ?? 30_000);
      client.options.reconnectPeriod = this.backoff;
    });
    client.on('reconnect', () => {
      this.counts.reconnects++;
    });
    client.on('error', (err) => {
      this.lastError = err.message;
    });
    client.on('message', (topic, payload) => this.onCommand(topic, payload));
  }

  async stop(): Promise<void> {
    this.off?.();
    this.off = undefined;
    const client = this.client;
    this.client = undefined;
    this.setState('stopped');
    if (!client) return;
    if (client.connected) {
      const bye = availabilityMessage(this.o.hub, false, new Date(this.now()).toISOString());
      await client
        .publishAsync(fleetTopic(this.prefix, bye.topic), bye.payload, {
          qos: 1,
          retain: true,
          properties: { contentType: CLOUDEVENTS_CONTENT_TYPE },
        })
        .catch(() => undefined);
    }
    await client.endAsync(true).catch(() => undefined);
  }

  private setState(state: BridgeState, message?: string): void {
    if (state === this.stateNow) return;
    this.stateNow = state;
    this.since = this.now();
    const detail = { state, url: shown(this.o.url), queued: this.queue.length, dropped: this.queue.dropped };
    this.o.log?.(state === 'connected' || state === 'stopped' ? 'info' : 'warn', `fleet bridge ${state}`, detail);
    if (state === 'stopped') return;
    // Local only: the event hub hands it to every transport (the bridge itself forwards it when connected).
    this.o.bus.emit('bridge.state', { ...detail, at: new Date(this.since).toISOString(), ...(message ? { message } : {}) });
  }

  private onConnect(client: MqttClient): void {
    if (this.client !== client) return;
    this.backoff = this.o.minBackoffMs ?? 1000;
    client.options.reconnectPeriod = this.backoff;
    this.lastError = undefined;
    const online = availabilityMessage(this.o.hub, true, new Date(this.now()).toISOString());
    this.queue.unshift({ ...online, topic: fleetTopic(this.prefix, online.topic), safety: false });
    client.subscribe(`${this.prefix}/${this.kitchenId}/command/+`, { qos: 1 }, (err) => {
      if (err) this.lastError = `subscribe: ${err.message}`;
    });
    this.setState('connected');
    this.pump();
  }

  /** A message on `{prefix}/{k}/command/{subject}`: through the local ACL, then the local handler. */
  private onCommand(topic: string, payload: Buffer): void {
    const subject = topic.split('/').at(-1) ?? '';
    const local = commandTopic(this.kitchenId, subject);
    const verdict = checkPublish(this.kitchenId, local, BRIDGE_PRINCIPAL);
    const origin: CommandOrigin = { clientId: 'fleet-bridge', principal: BRIDGE_PRINCIPAL.name };
    if (verdict.ok && verdict.command === 'estop') {
      this.counts.commands++;
      // Bounded (a few KiB decoded at most); a payload that says nothing useful stops all the same.
      const { reason } = reasonOfMessage(payload);
      this.o.estop(`e-stop requested over the fleet bridge (${shown(this.o.url)}, ${topic})${reason ? `: ${reason}` : ''}`, origin, reason);
      this.o.log?.('warn', 'e-stop requested over the fleet bridge', { topic, ...(reason ? { reason } : {}) });
      return;
    }
    this.counts.refusedCommands++;
    this.o.log?.('warn', 'refused a command from the fleet bridge', {
      topic,
      reason: verdict.ok ? `command ${verdict.command} is not accepted over the bridge` : verdict.reason,
    });
  }

  private forward(ev: StoredEvent): void {
    const where = placementOf(this.kitchenId, ev);
    this.queue.push({
      ...where,
      topic: fleetTopic(this.prefix, where.topic),
      payload: ev.body,
      contentType: CLOUDEVENTS_CONTENT_TYPE,
      safety: ev.category === 'safety',
    });
    if (!this.pumping) {
      this.pumping = true;
      setImmediate(() => {
        this.pumping = false;
        this.pump();
      });
    }
  }

  /** Hand queued messages to the client while connected, at most 64 awaiting their acknowledgement. */
  private pump(): void {
    const client = this.client;
    while (client?.connected && this.inflight < 64 && this.queue.length > 0) {
      const m = this.queue.shift() as Queued;
      this.inflight++;
      client.publish(
        m.topic,
        m.payload,
        { qos: m.qos, retain: m.retain, ...(m.contentType ? { properties: { contentType: m.contentType } } : {}) },
        (err) => {
          this.inflight--;
          if (err) {
            // Not accepted (the connection went while sending): back to the head of the queue.
            this.lastError = err.message;
            if (this.stateNow !== 'stopped') this.queue.unshift(m);
          } else this.counts.forwarded++;
          if (this.queue.length > 0) setImmediate(() => this.pump());
        },
      );
    }
  }
}
