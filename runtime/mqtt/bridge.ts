/**
 * The MQTT bridge: every event of the hub goes out on the kitchen's bus as its CloudEvent JSON (MQTT 5 Content
 * Type `application/cloudevents+json`), on `svc/{kitchenId}/{category}/{subject}` with the category's QoS.
 * Safety alarms (a trip, an e-stop) are retained until a reset or cleared event, which then empties every
 * retained alarm topic. The hub's availability (`svc/{kitchenId}/availability/hub`, retained) says online while
 * the hub runs and offline when it stops (on an external broker the offline message is the hub's last will).
 */
import { randomUUID } from 'node:crypto';
import { buildCloudEvent, CLEARING_KINDS, CLOUDEVENTS_CONTENT_TYPE } from '../events/cloudevent.js';
import type { EventHub } from '../events/hub.js';
import type { StoredEvent } from '../events/journal.js';
import { availabilityTopic, notifyTopics, placementOf } from './topics.js';
import type { BusTransport, CommandOrigin, OutgoingMessage } from './transport.js';

export interface MqttBridgeOptions {
  hub: EventHub;
  transport: BusTransport;
  /** An e-stop request came over MQTT (any authenticated client may send one), with its payload. */
  onEstop?: (origin: CommandOrigin, payload: Buffer) => void;
  onError?: (err: unknown) => void;
  now?: () => number;
}

/** The retained availability message: a CloudEvent `svc.device.online` or `svc.device.offline`; `at` is wall-clock time. */
export function availabilityMessage(hub: Pick<EventHub, 'kitchenId' | 'source'>, online: boolean, at: string): OutgoingMessage {
  const ce = buildCloudEvent(
    {
      type: online ? 'svc.device.online' : 'svc.device.offline',
      category: 'availability',
      subject: 'hub',
      priority: 'high',
      time: at,
      data: { state: online ? 'online' : 'offline' },
    },
    { id: randomUUID(), seq: 0, kitchenId: hub.kitchenId, source: hub.source, wallTime: Date.parse(at) },
  );
  return {
    topic: availabilityTopic(hub.kitchenId),
    payload: JSON.stringify(ce),
    qos: 1,
    retain: true,
    contentType: CLOUDEVENTS_CONTENT_TYPE,
  };
}

export class MqttBridge {
  private off: (() => void) | undefined;
  private readonly retainedAlarms = new Set<string>();
  /** Topic → id of the emergency notification retained there. */
  private readonly retainedNotices = new Map<string, string>();
  private pending: Promise<unknown> = Promise.resolve();
  private published = 0;

  constructor(private readonly o: MqttBridgeOptions) {
    o.transport.onCommand((command, origin, payload) => {
      if (command === 'estop') o.onEstop?.(origin, payload);
    });
  }

  /** Messages handed to the broker so far. */
  get count(): number {
    return this.published;
  }

  async start(): Promise<void> {
    await this.o.transport.start();
    for (const topic of this.o.transport.retainedAlarms?.() ?? []) this.retainedAlarms.add(topic);
    this.off = this.o.hub.addSink((ev) => this.forward(ev), { urgent: true });
    await this.o.transport.publish(availabilityMessage(this.o.hub, true, this.iso()));
  }

  /** Resolves once everything handed to the broker so far has been accepted by it. */
  async flush(): Promise<void> {
    await this.pending;
  }

  async stop(): Promise<void> {
    this.off?.();
    this.off = undefined;
    await this.flush();
    await this.o.transport.publish(availabilityMessage(this.o.hub, false, this.iso())).catch((err) => this.o.onError?.(err));
    await this.o.transport.stop();
  }

  private iso(): string {
    return new Date((this.o.now ?? Date.now)()).toISOString();
  }

  private send(msg: OutgoingMessage): void {
    this.published++;
    const p = this.o.transport.publish(msg).catch((err) => this.o.onError?.(err));
    this.pending = p;
  }

  /**
   * A notification goes on the topic of each audience entry. An emergency is retained there (a later one replaces
   * it); its acknowledgement empties each of its topics that still holds it (or that this bridge has no record of,
   * as after a restart).
   */
  private forwardNotice(ev: StoredEvent): void {
    const { qos, retain } = placementOf(this.o.hub.kitchenId, ev);
    const topics = notifyTopics(this.o.hub.kitchenId, ev);
    for (const topic of topics) {
      this.send({ topic, qos, retain, payload: ev.body, contentType: CLOUDEVENTS_CONTENT_TYPE });
      if (retain) this.retainedNotices.set(topic, String(ev.ce.data.id));
    }
    if (ev.ce.type !== 'svc.notify.acknowledged' || ev.ce.data.urgency !== 'emergency') return;
    for (const topic of topics) {
      const held = this.retainedNotices.get(topic);
      if (held !== undefined && held !== ev.ce.data.id) continue;
      this.send({ topic, payload: '', qos: 1, retain: true });
      this.retainedNotices.delete(topic);
    }
  }

  private forward(ev: StoredEvent): void {
    if (ev.category === 'notify') {
      this.forwardNotice(ev);
      return;
    }
    const where = placementOf(this.o.hub.kitchenId, ev);
    this.send({ ...where, payload: ev.body, contentType: CLOUDEVENTS_CONTENT_TYPE });
    if (where.retain) this.retainedAlarms.add(where.topic);
    if (CLEARING_KINDS.has(ev.ce.type)) {
      for (const topic of this.retainedAlarms) this.send({ topic, payload: '', qos: 2, retain: true });
      this.retainedAlarms.clear();
    }
  }
}
