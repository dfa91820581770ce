/**
 * The event hub: listens to every bus event, turns it into a CloudEvent with an id minted once, journals it,
 * and hands it to the transports (sinks) in the order they registered — the MQTT bridge first, so a safety
 * event reaches the local bus before anything slower. A failing journal or sink never stops the others.
 */
import { randomUUID } from 'node:crypto';
import type { BusEventName, BusEvents, EventBus } from './bus.js';
import { buildCloudEvent, defaultSource, type EventShape, shapeOf } from './cloudevent.js';
import type { EventJournal, StoredEvent } from './journal.js';

export type EventSink = (event: StoredEvent) => void;

export interface EventHubOptions {
  bus: EventBus;
  journal: EventJournal;
  kitchenId: string;
  /** CloudEvents `source` (default `svc://{kitchenId}/hub`). */
  source?: string;
  /** Called when the journal or a sink throws; the event still goes to every other sink. */
  onError?: (err: unknown, where: string) => void;
  /** Mints event ids (default random UUIDs). */
  newId?: () => string;
  /** The wall clock for each event's `time` (default `Date.now`). */
  wallNow?: () => number;
  /** The device runs on a simulated clock: each event also carries the device's time as `simtime`. */
  simulated?: boolean;
}

export class EventHub {
  private readonly urgent: EventSink[] = [];
  private readonly sinks: EventSink[] = [];
  private off: (() => void) | undefined;
  readonly kitchenId: string;
  readonly source: string;

  constructor(private readonly o: EventHubOptions) {
    this.kitchenId = o.kitchenId;
    this.source = o.source ?? defaultSource(o.kitchenId);
  }

  /**
   * Register a transport. Sinks run synchronously, in registration order. An `urgent` sink (the local bus) runs
   * before the event is written to the journal, so a slow disk never delays a safety event on the bus; the
   * others run after, so a stream that replays the journal and then follows live events misses nothing.
   */
  addSink(sink: EventSink, opts: { urgent?: boolean } = {}): () => void {
    const list = opts.urgent ? this.urgent : this.sinks;
    list.push(sink);
    return () => {
      const i = list.indexOf(sink);
      if (i >= 0) list.splice(i, 1);
    };
  }

  start(): void {
    if (this.off) return;
    this.off = this.o.bus.onAny((name, payload) => this.publish(name, payload));
  }

  stop(): void {
    this.off?.();
    this.off = undefined;
  }

  /** Journal one bus event and fan it out. Also usable directly (tests, benchmarks). */
  publish<K extends BusEventName>(name: K, payload: BusEvents[K]): StoredEvent {
    const shape: EventShape = shapeOf(name, payload);
    const pos = this.o.journal.reserve();
    const ce = buildCloudEvent(shape, {
      id: this.o.newId?.() ?? randomUUID(),
      seq: pos,
      kitchenId: this.kitchenId,
      source: this.source,
      wallTime: (this.o.wallNow ?? Date.now)(),
      ...(this.o.simulated ? { simulated: true } : {}),
    });
    const stored: StoredEvent = { pos, category: shape.category, ce, body: JSON.stringify(ce) };
    this.run(this.urgent, stored);
    try {
      this.o.journal.write(stored);
    } catch (err) {
      // The journal is down (disk full, locked): the event still goes out live; it just cannot be replayed.
      this.o.onError?.(err, 'journal');
    }
    this.run(this.sinks, stored);
    return stored;
  }

  private run(list: EventSink[], ev: StoredEvent): void {
    for (const sink of [...list]) {
      try {
        sink(ev);
      } catch (err) {
        this.o.onError?.(err, 'sink');
      }
    }
  }
}
