/**
 * The webhook outbox: every event matching a subscription becomes a row in SQLite first, then a POST. A failed
 * attempt (network error, timeout, any non-2xx) is retried with exponential backoff — doubling from `baseMs`,
 * capped at `capMs`, with jitter (a random point in the upper half of the delay) — until 24 hours after the event,
 * when the delivery is marked failed. Rows survive a restart: a new outbox on the same store resumes them.
 * `runDue()` does one pass (tests drive it with a fake clock); `start()` keeps passing on real timers.
 * Each attempt goes through the outbound guard: the receiver's name is resolved and every address checked at
 * that moment, the connection goes to a checked address, and redirects are not followed (a 3xx is a failure).
 */
import { OutboundGuard, OutboundRefused } from '../../platform/net/outbound.js';
import { guardedFetch, type OutboundFetch } from '../../platform/net/outbound-fetch.js';
import { LogLimiter } from '../events/log-limit.js';
import { matchesTypes } from './match.js';
import { deliveryHeaders } from './sign.js';
import type { Delivery, WebhookStore } from './store.js';

export interface OutboxOptions {
  store: WebhookStore;
  now?: () => number;
  /** In [0, 1): jitter source (default Math.random). */
  random?: () => number;
  /** First retry delay (default 1 s). */
  baseMs?: number;
  /** Longest delay between attempts (default 1 h). */
  capMs?: number;
  /** Give up this long after the event (default 24 h). */
  retryForMs?: number;
  /** Per-attempt timeout (default 10 s). */
  timeoutMs?: number;
  /** Deliveries in flight at once (default 8). */
  concurrency?: number;
  /** Where deliveries may go (default: public addresses only). */
  guard?: OutboundGuard;
  /** The HTTP client (default: through the guard, platform/net/outbound-fetch.ts; tests may inject one). */
  fetch?: OutboundFetch;
  log?: (level: 'info' | 'warn', msg: string, detail?: Record<string, unknown>) => void;
  /** False for an owner (token id) whose token was revoked: its subscriptions get nothing more. */
  ownerActive?: (owner: string) => boolean;
}

export const DAY_MS = 86_400_000;

export class WebhookOutbox {
  private readonly inFlight = new Set<number>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private passing: Promise<number> | undefined;
  private readonly now: () => number;
  /** A receiver that keeps failing must not fill the log: a few lines per subscription and minute. */
  private readonly logLimit: LogLimiter;
  private readonly post: OutboundFetch;

  constructor(private readonly o: OutboxOptions) {
    this.now = o.now ?? Date.now;
    this.post = o.fetch ?? guardedFetch(o.guard ?? new OutboundGuard());
    this.logLimit = new LogLimiter({ now: this.now });
  }

  /** Queue an event for every subscription whose type prefixes match it. */
  enqueue(event: { id: string; type: string }, body: string): number {
    const active = this.o.ownerActive ?? (() => true);
    const subs = this.o.store.all().filter((s) => matchesTypes(event.type, s.types) && active(s.owner));
    this.o.store.enqueue(
      subs.map((s) => s.id),
      event.id,
      body,
    );
    if (subs.length > 0 && this.running) this.kick();
    return subs.length;
  }

  /** The delay before retry number `attempt` (1 = the first retry). */
  backoff(attempt: number): number {
    const base = this.o.baseMs ?? 1000;
    const cap = this.o.capMs ?? 3_600_000;
    const d = Math.min(cap, base * 2 ** Math.min(attempt - 1, 40));
    return Math.round(d / 2 + (this.o.random ?? Math.random)() * (d / 2));
  }

  /** Deliver everything due now (concurrently, up to the limit); resolves with how many attempts were made. */
  async runDue(): Promise<number> {
    const limit = this.o.concurrency ?? 8;
    let attempts = 0;
    const workers: Promise<void>[] = [];
    const next = () => this.o.store.due(1, this.inFlight)[0];
    const work = async () => {
      for (let d = next(); d; d = next()) {
        const owner = this.o.store.get(d.subscriptionId)?.owner;
        if (owner !== undefined && this.o.ownerActive && !this.o.ownerActive(owner)) {
          this.o.store.failed(d.id, 'the subscription’s token was revoked', null, undefined);
          continue;
        }
        this.inFlight.add(d.id);
        try {
          await this.attempt(d);
          attempts++;
        } finally {
          this.inFlight.delete(d.id);
        }
      }
    };
    for (let i = 0; i < limit; i++) workers.push(work());
    await Promise.all(workers);
    return attempts;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.kick();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.passing;
  }

  private kick(): void {
    if (!this.running || this.passing) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.passing = this.runDue()
      .catch((err) => {
        this.o.log?.('warn', 'webhook pass failed', { err: String(err) });
        return 0;
      })
      .finally(() => {
        this.passing = undefined;
        this.schedule();
      });
  }

  private schedule(): void {
    if (!this.running) return;
    const due = this.o.store.nextDue();
    const wait = due === undefined ? 5000 : Math.max(0, Math.min(5000, due - this.now()));
    this.timer = setTimeout(() => this.kick(), wait);
    this.timer.unref();
  }

  private async attempt(d: Delivery): Promise<void> {
    const at = this.now();
    let status: number | null = null;
    let error: string;
    try {
      const res = await this.post(d.url, {
        method: 'POST',
        headers: deliveryHeaders(d.secret, d.eventId, d.body, new Date(at)),
        body: d.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.o.timeoutMs ?? 10_000),
      });
      status = res.status;
      await res.arrayBuffer().catch(() => undefined);
      if (status >= 200 && status < 300) {
        this.o.store.delivered(d.id, status);
        return;
      }
      error = `receiver answered HTTP ${status}`;
    } catch (err) {
      const e = err as Error;
      error =
        e instanceof OutboundRefused
          ? `destination refused: ${e.message}`
          : e.name === 'TimeoutError' || (e.name === 'AbortError' && (e.cause as Error | undefined)?.name === 'TimeoutError')
            ? 'timed out'
            : `cannot reach the receiver (${e.message})`;
    }
    const retryAt = this.now() + this.backoff(d.attempts + 1);
    const giveUp = retryAt - d.createdAt > (this.o.retryForMs ?? DAY_MS);
    this.o.store.failed(d.id, error, status, giveUp ? undefined : retryAt);
    const line = giveUp ? 'webhook delivery failed for good' : 'webhook delivery failed, will retry';
    const verdict = this.logLimit.allow(`${line}|${d.subscriptionId}`);
    if (verdict === false) return;
    this.o.log?.('warn', line, {
      ...(verdict > 0 ? { suppressed: verdict } : {}),
      subscription: d.subscriptionId,
      event: d.eventId,
      attempts: d.attempts + 1,
      error,
    });
  }
}
