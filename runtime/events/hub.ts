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
}

export class EventHub {
  private readonly sinks: EventSink[] = [];
  private off: (() => void) | undefined;
  readonly kitchenId: string;
  readonly source: string;

  constructor(private readonly o: EventHubOptions) {
    this.kitchenId = o.kitchenId;
    this.source = o.source ?? defaultSource(o.kitchenId);
  }

  /** Register a transport. Sinks run synchronously, in registration order. Returns an unsubscribe function. */
  addSink(sink: EventSink): () => void {
    this.sinks.push(sink);
    return () => {
      const i = this.sinks.indexOf(sink);
      if (i >= 0) this.sinks.splice(i, 1);
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
    const shape = shapeOf(name, payload);
    const stored = this.record(shape);
    for (const sink of [...this.sinks]) {
      try {
        sink(stored);
      } catch (err) {
        this.o.onError?.(err, 'sink');
      }
    }
    return stored;
  }

  private record(shape: EventShape): StoredEvent {
    const id = this.o.newId?.() ?? randomUUID();
    const meta = (seq: number) => ({ id, seq, kitchenId: this.kitchenId, source: this.source });
    try {
      return this.o.journal.append(shape.category, (pos) => buildCloudEvent(shape, meta(pos)));
    } catch (err) {
      // The journal is down (disk full, locked): the event still goes out live, without a resumable position.
      this.o.onError?.(err, 'journal');
      const ce = buildCloudEvent(shape, meta(0));
      return { pos: 0, category: shape.category, ce, body: JSON.stringify(ce) };
    }
  }
}
