/**
 * One live consumer of the event stream (an SSE response or a WebSocket): it replays the journal after a
 * position, then follows live events, in order, each at most once. Live events that arrive during the replay
 * or while the consumer is slow wait in a bounded queue; when the queue overflows the stream closes, and the
 * consumer resumes from its last event id (nothing is lost, the journal still has it).
 */
import { type EventFilter, matches } from './filter.js';
import type { EventHub } from './hub.js';
import type { EventJournal, StoredEvent } from './journal.js';

export interface StreamTarget {
  /** Write one event; false when the consumer's buffer is full (wait for `drain` before the next). */
  send(event: StoredEvent): boolean;
  /** Resolves once the consumer can take more (or has gone). */
  drain(): Promise<void>;
  /** Close the consumer (overflow or hub shutdown). */
  close(reason: string): void;
}

export interface StreamOptions {
  hub: EventHub;
  journal: EventJournal;
  filter: EventFilter;
  target: StreamTarget;
  /** Most live events waiting for a slow consumer (default 10 000). */
  maxQueue?: number;
}

/** Journal rows read per slice of a replay (about 2 ms of CPU on a Pi-class core); the loop is yielded between slices. */
const BATCH = 200;

export class EventStream {
  private readonly queue: StoredEvent[] = [];
  private lastPos = 0;
  private replaying = true;
  private pumping = false;
  private closed = false;
  private readonly off: () => void;

  constructor(private readonly o: StreamOptions) {
    this.off = o.hub.addSink((ev) => this.onLive(ev));
  }

  /** Replay what came after `after` (a journal position; undefined = only live events), then follow. */
  async start(after: number | undefined): Promise<void> {
    try {
      if (after === undefined) {
        this.lastPos = this.o.journal.nextPos() - 1;
      } else {
        this.lastPos = after;
        for (;;) {
          const rows = this.o.journal.readAfter(this.lastPos, BATCH);
          for (const ev of rows) {
            if (this.closed) return;
            this.lastPos = ev.pos;
            if (matches(ev.ce, this.o.filter) && !this.o.target.send(ev)) await this.o.target.drain();
          }
          if (rows.length < BATCH) break;
          // Yield between slices: a replay of a long journal (100k rows) must not hold the event loop, even
          // when the consumer keeps up or the filter drops every row (nothing else would await).
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
    } finally {
      this.replaying = false;
    }
    await this.pump();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.off();
    this.queue.length = 0;
  }

  private onLive(ev: StoredEvent): void {
    if (this.closed || !matches(ev.ce, this.o.filter)) return;
    this.queue.push(ev);
    if (this.queue.length > (this.o.maxQueue ?? 10_000)) {
      this.close();
      this.o.target.close('consumer too slow: resume with the last event id');
      return;
    }
    if (!this.replaying && !this.pumping) void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.pumping || this.replaying) return;
    this.pumping = true;
    try {
      while (this.queue.length > 0 && !this.closed) {
        const ev = this.queue.shift() as StoredEvent;
        if (ev.pos !== 0) {
          if (ev.pos <= this.lastPos) continue;
          this.lastPos = ev.pos;
        }
        if (!this.o.target.send(ev)) await this.o.target.drain();
      }
    } finally {
      this.pumping = false;
    }
  }
}
