/**
 * Leases (spec §2.2 Lease, §7 `lease-conflict`): a resource (this hub's device, one of its parts — a burner, a
 * zone, the oven's cavity — or any other named resource such as a vessel or a counter zone) is held by one
 * holder at a time. A resource is a path: `demo:hob` holds every `demo:hob/<part>`, and a part conflicts with a
 * hold on its device. Two `shared_read` holds may overlap; an `exclusive` hold overlaps nothing.
 *
 * A lease lasts until `until` (device clock) unless renewed; a sweep on the hub's clock expires it. A session
 * takes the lease of the device it cooks on when it starts (SessionService.start calls claimForSession), keeps
 * it renewed while it is active, and lets go when it completes, is aborted or fails; an e-stop revokes every
 * lease. Each change is an event (`svc.lease.granted|renewed|released|expired|revoked`).
 */
import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { Clock } from '../../../drivers/types.js';
import type { Principal } from '../../../platform/http/auth.js';
import { ProblemError } from '../../../platform/http/problems.js';
import type { EventBus } from '../../events/bus.js';
import { FINAL_SESSION_STATES, type SessionState, SVC_VERSION } from '../types.js';
import { type Lease, type LeaseMode, LeaseRepo } from './leases-store.js';

export const LEASE_TTL_DEFAULT_S = 300;
export const LEASE_TTL_MIN_S = 5;
export const LEASE_TTL_MAX_S = 3600;
/** A session's device lease lasts this long and is renewed while the session is active. */
export const SESSION_LEASE_TTL_MS = 10 * 60_000;
/** How often (device clock) the hub expires leases and handoffs and renews the sessions' leases. */
export const SWEEP_MS = 1000;

/** A resource: a path of up to four levels, `<device or kind:name>[/<part>…]`. */
export const RESOURCE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9:._-]{0,99}(/[A-Za-z0-9][A-Za-z0-9._-]{0,59}){0,3}$';

export interface ClaimInput {
  resource: string;
  mode?: LeaseMode;
  ttlSeconds?: number;
  sessionId?: string;
  note?: string;
}

export interface LeaseDeps {
  db: Database;
  bus: EventBus;
  clock: Pick<Clock, 'now' | 'setInterval' | 'clearInterval'>;
  /** This hub's device: its actor id and its parts (heater ids: burners, zones, the oven's cavity). */
  device: () => { id: string; parts: readonly string[] };
  /** The state of session `id`, or undefined when there is none. */
  sessionState: (id: string) => SessionState | undefined;
}

export type LeaseEventKind = 'granted' | 'renewed' | 'released' | 'expired' | 'revoked';

/** Does a hold on `a` cover or sit under a hold on `b` (same path, or one is a prefix of the other)? */
export function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

const actorOf = (p: Principal) => ({ id: p.id, kind: p.kind });

export class LeaseService {
  readonly repo: LeaseRepo;
  private readonly unsubscribe: (() => void)[] = [];
  private timer: unknown;
  /** Set by the handoff service so one sweep serves both. */
  private readonly sweepers: ((now: number) => void)[] = [];

  constructor(private readonly d: LeaseDeps) {
    this.repo = new LeaseRepo(d.db);
  }

  private iso(ms = this.d.clock.now()): string {
    return new Date(ms).toISOString();
  }

  open(): void {
    this.unsubscribe.push(
      this.d.bus.on('session.updated', (e) => {
        if (FINAL_SESSION_STATES.includes(e.state as SessionState)) this.releaseForSession(e.sessionId, `session_${e.state}`);
      }),
      this.d.bus.on('safety', (e) => {
        if (e.kind === 'estop') this.revokeAll('estop');
      }),
    );
    this.timer = this.d.clock.setInterval(() => this.sweep(), SWEEP_MS);
    this.sweep();
  }

  close(): void {
    for (const u of this.unsubscribe.splice(0)) u();
    if (this.timer !== undefined) this.d.clock.clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Run `fn(now)` on every sweep (the handoffs' expiry). */
  onSweep(fn: (now: number) => void): void {
    this.sweepers.push(fn);
  }

  private emit(kind: LeaseEventKind, l: Lease): void {
    this.d.bus.emit('lease', { kind, lease: { ...l }, at: this.iso() });
  }

  private save(l: Lease, kind: LeaseEventKind): Lease {
    this.repo.update(l, Date.parse(l.until));
    this.emit(kind, l);
    return l;
  }

  private end(l: Lease, state: 'released' | 'expired' | 'revoked', reason: string, by?: Principal): Lease {
    l.state = state;
    l.ended = { at: this.iso(), reason, ...(by ? { by: actorOf(by) } : {}) };
    return this.save(l, state);
  }

  private active(sessionId: string | undefined): boolean {
    if (!sessionId) return false;
    const state = this.d.sessionState(sessionId);
    return state !== undefined && !FINAL_SESSION_STATES.includes(state);
  }

  /** Expire what is due, keep active sessions' leases renewed, let go of ended sessions' leases. */
  sweep(): void {
    const now = this.d.clock.now();
    for (const l of this.repo.granted()) {
      if (l.sessionId) {
        if (!this.active(l.sessionId)) this.end(l, 'released', 'session_ended');
        else if (Date.parse(l.until) - now < SESSION_LEASE_TTL_MS / 2) {
          l.until = this.iso(now + SESSION_LEASE_TTL_MS);
          l.renewals += 1;
          this.save(l, 'renewed');
        }
      } else if (Date.parse(l.until) <= now) this.end(l, 'expired', 'ttl');
    }
    for (const fn of this.sweepers) fn(now);
  }

  get(id: string): Lease {
    this.sweep();
    const l = this.repo.get(id);
    if (!l) throw new ProblemError('not-found', `no lease ${id} on this hub`);
    return l;
  }

  /** Granted leases (optionally those overlapping `resource`), or the newest in any state with `all`. */
  list(opts: { resource?: string; all?: boolean } = {}): Lease[] {
    this.sweep();
    const items = opts.all ? this.repo.recent(200) : this.repo.granted();
    return opts.resource ? items.filter((l) => overlaps(l.resource, opts.resource as string)) : items;
  }

  private checkResource(resource: string): void {
    if (!new RegExp(RESOURCE_PATTERN).test(resource))
      throw new ProblemError('validation-failed', `resource ${JSON.stringify(resource.slice(0, 120))} is not a resource path`);
    const dev = this.d.device();
    if (!resource.startsWith(`${dev.id}/`)) return;
    const part = resource.slice(dev.id.length + 1);
    if (!dev.parts.includes(part))
      throw new ProblemError('not-found', `the device ${dev.id} has no part ${JSON.stringify(part)} (its parts: ${dev.parts.join(', ')})`, {
        parts: [...dev.parts],
      });
  }

  /**
   * Grant a lease, or refuse with 409 `lease-conflict` naming the holder and when its lease expires. A holder
   * claiming again exactly what it holds gets that lease back, renewed.
   */
  claim(input: ClaimInput, by: Principal): Lease {
    this.sweep();
    this.checkResource(input.resource);
    const mode = input.mode ?? 'exclusive';
    if (input.sessionId !== undefined) {
      const state = this.d.sessionState(input.sessionId);
      if (state === undefined) throw new ProblemError('not-found', `no session ${input.sessionId} on this hub`);
      if (FINAL_SESSION_STATES.includes(state))
        throw new ProblemError('conflict', `session ${input.sessionId} is ${state}; it holds nothing more`);
    }
    const holder = input.sessionId ?? by.id;
    const now = this.d.clock.now();
    const ttlMs =
      input.sessionId !== undefined && input.ttlSeconds === undefined
        ? SESSION_LEASE_TTL_MS
        : (input.ttlSeconds ?? LEASE_TTL_DEFAULT_S) * 1000;
    const held = this.repo.granted();
    const same = held.find((l) => l.holder === holder && l.resource === input.resource && l.mode === mode);
    if (same) {
      same.until = this.iso(now + ttlMs);
      same.renewals += 1;
      return this.save(same, 'renewed');
    }
    const blocking = held.filter(
      (l) => l.holder !== holder && overlaps(l.resource, input.resource) && (mode === 'exclusive' || l.mode === 'exclusive'),
    );
    const first = blocking[0];
    if (first) {
      const freeAt = this.iso(Math.max(...blocking.map((l) => Date.parse(l.until))));
      throw new ProblemError(
        'lease-conflict',
        `${input.resource} is held by ${first.holderKind} ${first.holder} (lease ${first.id} on ${first.resource}) until ${first.until}`,
        {
          resource: input.resource,
          holder: first.holder,
          holderKind: first.holderKind,
          leaseId: first.id,
          heldResource: first.resource,
          until: first.until,
          freeAt,
        },
      );
    }
    const lease: Lease = {
      svc: SVC_VERSION,
      id: `lease-${randomUUID()}`,
      resource: input.resource,
      holder,
      holderKind: input.sessionId !== undefined ? 'session' : by.kind,
      ...(input.sessionId !== undefined ? { sessionId: input.sessionId } : {}),
      mode,
      state: 'granted',
      from: this.iso(now),
      until: this.iso(now + ttlMs),
      claimedBy: actorOf(by),
      renewals: 0,
      ...(input.note ? { note: input.note } : {}),
    };
    this.repo.insert(lease, now + ttlMs, now);
    this.emit('granted', lease);
    return lease;
  }

  /** Who may renew or release a lease: the token that claimed it, or any person. */
  private mayManage(l: Lease, by: Principal, what: string): void {
    if (by.id !== l.claimedBy.id && by.kind !== 'human')
      throw new ProblemError('forbidden', `only the token that claimed lease ${l.id}, or a person, may ${what} it`);
  }

  renew(id: string, ttlSeconds: number | undefined, by: Principal): Lease {
    const l = this.get(id);
    this.mayManage(l, by, 'renew');
    if (l.state !== 'granted') throw new ProblemError('conflict', `lease ${id} is ${l.state}; claim the resource again`);
    const now = this.d.clock.now();
    const ttl = l.sessionId && ttlSeconds === undefined ? SESSION_LEASE_TTL_MS : (ttlSeconds ?? LEASE_TTL_DEFAULT_S) * 1000;
    l.until = this.iso(now + ttl);
    l.renewals += 1;
    return this.save(l, 'renewed');
  }

  /** Release a lease; one that has already ended is answered as it is. A session's lease goes when the session ends. */
  release(id: string, by: Principal): Lease {
    const l = this.get(id);
    this.mayManage(l, by, 'release');
    if (l.state !== 'granted') return l;
    if (this.active(l.sessionId))
      throw new ProblemError(
        'conflict',
        `lease ${id} belongs to session ${l.sessionId} while it is active; it is released when the session completes or is aborted`,
        { sessionId: l.sessionId },
      );
    return this.end(l, 'released', 'released', by);
  }

  /** The lease of this hub's whole device for a session that starts (409 `lease-conflict` when someone holds it). */
  claimForSession(sessionId: string, by: Principal): Lease {
    return this.claim({ resource: this.d.device().id, sessionId, note: 'taken when the session started' }, by);
  }

  releaseForSession(sessionId: string, reason: string): void {
    for (const l of this.repo.granted()) if (l.sessionId === sessionId) this.end(l, 'released', reason);
  }

  revokeAll(reason: string): void {
    for (const l of this.repo.granted()) this.end(l, 'revoked', reason);
  }
}
