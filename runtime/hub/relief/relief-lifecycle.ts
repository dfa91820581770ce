/**
 * The end of relief records on a coordinator hub (runtime/hub/relief/relief.ts keeps them): a need is closed, a pledge
 * withdrawn, an allocation cancelled before its handover begins. Cancelling gives the quantities back: the need's
 * allocated meals go down and its remaining meals and people up again (a fulfilled need is open again), and each
 * assigned pledge gets back what the allocation took (meals, item quantities; `allocated` becomes `open`).
 *
 * - An allocation can be cancelled while it is `allocated`; once a side said `delivered` (`in_transit`) or it was
 *   received (`handed_over`) it is 409 `conflict`: the food has left the donor.
 * - A pledge with live allocations (`allocated` or `in_transit`) is not withdrawn (409 `conflict` naming them):
 *   a coordinator would not want a need to lose its cover without being told. With `cascade: true` the pledge's
 *   allocations not yet handed over are cancelled with it (and all of their pledges get their share back); one in
 *   transit still refuses the withdrawal, nothing changed.
 * - A closed need takes no more allocations; its allocations stay and are handed over as planned, unless
 *   `cancelAllocations: true` cancels those still `allocated` (a need called off: the site closed, the people
 *   moved). Those in transit stay.
 * Each change is one transaction; the records come back and go out as `svc.relief.*` events.
 */
import { ProblemError } from '../../../platform/http/problems.js';
import { EPSILON, exhausted, initialRemaining, itemKey } from '../../../services/relief/rules.js';
import type { Actor } from '../types.js';
import type { AllocationRecord, Closure, NeedRecord, PledgeRecord, ReliefRepo } from './relief-store.js';

export interface CloseNeedInput {
  reason?: string;
  /** Cancel the need's allocations that are still `allocated` (not yet on the road). */
  cancelAllocations?: boolean;
}
export interface WithdrawInput {
  reason?: string;
  /** Cancel the pledge's allocations not yet handed over, instead of refusing while it has any. */
  cascade?: boolean;
}
export interface CancelInput {
  reason?: string;
}

/** What a lifecycle change touched, to emit once its transaction committed. */
export interface Changed {
  needs: Map<string, NeedRecord>;
  pledges: Map<string, PledgeRecord>;
  allocations: Map<string, AllocationRecord>;
}

const LIVE = new Set(['allocated', 'in_transit']);

export class ReliefLifecycle {
  constructor(
    private readonly repo: ReliefRepo,
    private readonly at: string,
    private readonly by: Actor,
  ) {}

  readonly changed: Changed = { needs: new Map(), pledges: new Map(), allocations: new Map() };

  private closure(reason: string | undefined, cancelled: string[] = []): Closure {
    return {
      by: this.by,
      at: this.at,
      ...(reason !== undefined ? { reason } : {}),
      ...(cancelled.length > 0 ? { cancelledAllocations: cancelled } : {}),
    };
  }

  private need(id: string): NeedRecord {
    const n = this.changed.needs.get(id) ?? this.repo.needs.get(id);
    if (!n) throw new ProblemError('not-found', `no need ${id} on this hub`);
    return n;
  }

  private pledge(id: string): PledgeRecord {
    const p = this.changed.pledges.get(id) ?? this.repo.pledges.get(id);
    if (!p) throw new ProblemError('not-found', `no pledge ${id} on this hub`);
    return p;
  }

  private allocation(id: string): AllocationRecord {
    const a = this.changed.allocations.get(id) ?? this.repo.allocation(id);
    if (!a) throw new ProblemError('not-found', `no allocation ${id} on this hub`);
    return a;
  }

  /** Why `a` cannot be cancelled, or undefined. */
  private notCancellable(a: AllocationRecord): ProblemError | undefined {
    if (a.state === 'cancelled')
      return new ProblemError('conflict', `allocation ${a.id} was already cancelled`, { allocation: a.id, state: a.state });
    if (a.state === 'allocated') return undefined;
    const begun = a.handovers.find((h) => h.delivered);
    const how = begun?.delivered
      ? ` (pledge ${begun.pledge} delivered by ${begun.delivered.by.kind} ${begun.delivered.by.id} at ${begun.delivered.at})`
      : '';
    return new ProblemError(
      'conflict',
      `allocation ${a.id} is ${a.state}: its handover has begun${how}, so it can no longer be cancelled`,
      {
        allocation: a.id,
        state: a.state,
      },
    );
  }

  /** Cancel `a` and give its quantities back to its need and pledges. */
  private release(a: AllocationRecord, reason: string | undefined): void {
    const need = this.need(a.need);
    need.allocated.meals = Math.max(0, need.allocated.meals - a.coverage.meals);
    need.remaining.meals = need.mealsNeeded - need.allocated.meals;
    need.remaining.people = Math.ceil(need.remaining.meals / (need.mealsPerDay ?? 1));
    if (need.status === 'fulfilled' && need.remaining.meals > 0) need.status = 'open';
    need.updatedAt = this.at;
    this.save(need);
    for (const o of a.assignments) {
      const p = this.pledge(o.pledge);
      const full = initialRemaining(p);
      if (o.meals !== undefined && p.remaining.meals !== undefined)
        p.remaining.meals = Math.min(full.meals ?? Number.POSITIVE_INFINITY, p.remaining.meals + o.meals);
      for (const x of o.items ?? []) {
        const key = itemKey(x);
        const r = p.remaining.items?.find((k) => k.key === key);
        const cap = full.items?.find((k) => k.key === key)?.qty.value ?? Number.POSITIVE_INFINITY;
        if (r) r.qty.value = Math.min(cap, r.qty.value + x.qty.value);
        if (r && Math.abs(r.qty.value - cap) <= EPSILON) r.qty.value = cap;
      }
      if (p.status === 'allocated' && !exhausted(p.remaining)) p.status = 'open';
      p.updatedAt = this.at;
      this.save(p);
    }
    a.state = 'cancelled';
    a.cancelled = this.closure(reason);
    a.updatedAt = this.at;
    this.save(a);
  }

  private save(rec: NeedRecord | PledgeRecord | AllocationRecord): void {
    if (rec.$kind === 'Need') {
      this.repo.needs.update(rec);
      this.changed.needs.set(rec.id, rec);
    } else if (rec.$kind === 'Pledge') {
      this.repo.pledges.update(rec);
      this.changed.pledges.set(rec.id, rec);
    } else {
      this.repo.updateAllocation(rec);
      this.changed.allocations.set(rec.id, rec);
    }
  }

  cancelAllocation(id: string, input: CancelInput): AllocationRecord {
    const a = this.allocation(id);
    const refused = this.notCancellable(a);
    if (refused) throw refused;
    this.release(a, input.reason);
    return a;
  }

  withdrawPledge(id: string, input: WithdrawInput): PledgeRecord {
    const p = this.pledge(id);
    if (p.status === 'withdrawn')
      throw new ProblemError(
        'conflict',
        `pledge ${id} was already withdrawn (by ${p.withdrawn?.by.id ?? '?'} at ${p.withdrawn?.at ?? '?'})`,
      );
    const live = p.allocations.map((a) => this.allocation(a)).filter((a) => LIVE.has(a.state));
    const list = live.map((a) => ({ id: a.id, state: a.state, need: a.need }));
    if (live.length > 0 && input.cascade !== true)
      throw new ProblemError(
        'conflict',
        `pledge ${id} has live allocations (${list.map((a) => `${a.id} ${a.state} for ${a.need}`).join(', ')}): cancel them first, or withdraw with cascade: true to cancel those not yet handed over`,
        { pledge: id, allocations: list },
      );
    const moving = live.find((a) => a.state !== 'allocated');
    if (moving)
      throw new ProblemError(
        'conflict',
        `pledge ${id} cannot be withdrawn: allocation ${moving.id} is ${moving.state} (its handover has begun); let it be handed over first`,
        { pledge: id, allocations: list },
      );
    for (const a of live) this.release(a, input.reason ?? `pledge ${id} withdrawn`);
    const fresh = this.pledge(id);
    fresh.status = 'withdrawn';
    fresh.withdrawn = this.closure(
      input.reason,
      live.map((a) => a.id),
    );
    fresh.updatedAt = this.at;
    this.save(fresh);
    return fresh;
  }

  closeNeed(id: string, input: CloseNeedInput): NeedRecord {
    const n = this.need(id);
    if (n.status === 'closed')
      throw new ProblemError('conflict', `need ${id} was already closed (by ${n.closed?.by.id ?? '?'} at ${n.closed?.at ?? '?'})`);
    const cancel =
      input.cancelAllocations === true ? n.allocations.map((a) => this.allocation(a)).filter((a) => a.state === 'allocated') : [];
    for (const a of cancel) this.release(a, input.reason ?? `need ${id} closed`);
    const fresh = this.need(id);
    fresh.status = 'closed';
    fresh.closed = this.closure(
      input.reason,
      cancel.map((a) => a.id),
    );
    fresh.updatedAt = this.at;
    this.save(fresh);
    return fresh;
  }
}
