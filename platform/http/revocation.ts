/**
 * Revocation that bites at once. A token is revoked in the store (`hearth token revoke`, often from another
 * process on the same data directory), but a stream, a WebSocket, an MQTT session or a webhook subscription that
 * was opened with it would otherwise live on. `RevocationWatch` watches the tokens table (a cheap count every
 * `intervalMs`, 250 ms by default) and tells its listeners the ids of tokens revoked since it last looked; each
 * transport closes what those tokens hold. `sharedRevocations(db)` gives every feature of one process the same
 * watch; it runs while somebody holds it.
 */
import type { Database } from 'better-sqlite3';

export type RevocationListener = (ids: ReadonlySet<string>) => void;

export class RevocationWatch {
  private readonly known = new Set<string>();
  private readonly listeners = new Set<RevocationListener>();
  private revokedCount = -1;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database,
    private readonly intervalMs = 250,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** Remember the tokens revoked so far (they hold nothing) and start looking for new revocations. */
  start(): void {
    if (this.timer) return;
    this.check(false);
    this.timer = setInterval(() => this.check(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Was this token id revoked (before the watch started, or seen since)? */
  isRevoked(id: string): boolean {
    return this.known.has(id);
  }

  /** Call `fn` with the ids of tokens revoked from now on; returns the unsubscribe. */
  onRevoke(fn: RevocationListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Look now (also called by the timer); returns the ids newly revoked. */
  check(notify = true): ReadonlySet<string> {
    const fresh = new Set<string>();
    try {
      if (!this.db.open) return fresh;
      const n = (this.db.prepare('SELECT COUNT(*) AS n FROM tokens WHERE revoked_at IS NOT NULL').get() as { n: number }).n;
      if (n === this.revokedCount) return fresh;
      this.revokedCount = n;
      for (const { id } of this.db.prepare('SELECT id FROM tokens WHERE revoked_at IS NOT NULL').all() as { id: string }[]) {
        if (this.known.has(id)) continue;
        this.known.add(id);
        fresh.add(id);
      }
    } catch (err) {
      this.onError(err);
      return fresh;
    }
    if (notify && fresh.size > 0) {
      for (const fn of [...this.listeners]) {
        try {
          fn(fresh);
        } catch (err) {
          this.onError(err);
        }
      }
    }
    return fresh;
  }
}

const shared = new WeakMap<Database, { watch: RevocationWatch; holders: number }>();

/** The process-wide watch of `db`'s tokens (started on first use); call `release()` when done with it. */
export function sharedRevocations(db: Database, onError?: (err: unknown) => void): { watch: RevocationWatch; release(): void } {
  let entry = shared.get(db);
  if (!entry) {
    entry = { watch: new RevocationWatch(db, 250, onError), holders: 0 };
    shared.set(db, entry);
    entry.watch.start();
  }
  entry.holders++;
  const held = entry;
  let released = false;
  return {
    watch: held.watch,
    release() {
      if (released) return;
      released = true;
      held.holders--;
      if (held.holders === 0) {
        held.watch.stop();
        shared.delete(db);
      }
    },
  };
}

/**
 * At most `max` things (open streams, subscriptions, requests in flight) per token. `take(id)` returns a release
 * function, or undefined when the token already holds `max`.
 */
export class PerTokenLimit {
  private readonly held = new Map<string, number>();

  constructor(readonly max: number) {}

  take(id: string): (() => void) | undefined {
    const n = this.held.get(id) ?? 0;
    if (n >= this.max) return undefined;
    this.held.set(id, n + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (this.held.get(id) ?? 1) - 1;
      if (left <= 0) this.held.delete(id);
      else this.held.set(id, left);
    };
  }

  count(id: string): number {
    return this.held.get(id) ?? 0;
  }

  /** Tokens holding anything (memory checks). */
  get size(): number {
    return this.held.size;
  }
}
