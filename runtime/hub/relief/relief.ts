/**
 * Relief on a coordinator hub (spec §2 Need, Pledge, Allocation; §4.7 `relief_*`; scope `relief`): open needs,
 * pledges and the allocations of pledges to needs, with their handovers, in the hub's store. Only a hub started
 * as a coordinator (`--relief-coordinator`, config `relief: {coordinator: true}`) keeps them; any other hub
 * answers 409 `not-coordinator`. Every document is checked against schemas/json/relief.schema.json.
 *
 * An allocation is refused, and nothing changes, when a pledge does not meet the need (422 `relief-mismatch`:
 * an allergen the need avoids, a dietary requirement not met, not available in time; services/relief/rules.ts)
 * or asks for more than remains (409 `over-allocation`: more meals than the need still needs or its pledges
 * provide, more of a pledge than it has left). A need's remaining meals and people go down with each
 * allocation and it is `fulfilled` when nothing remains; a pledge is `allocated` when nothing of it remains.
 * Each assignment is then handed over: the giving side says `delivered`, the receiving side `received`.
 * A need is closed, a pledge withdrawn and an allocation cancelled by runtime/hub/relief/relief-lifecycle.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { Principal } from '../../../platform/http/auth.js';
import { ProblemError } from '../../../platform/http/problems.js';
import { type SchemaName, validate } from '../../../schemas/index.js';
import type { Json } from '../../../services/index/entry.js';
import {
  EPSILON,
  exhausted,
  initialRemaining,
  itemKey,
  type MenuRecipe,
  mealsNeeded,
  menuMismatch,
  mismatch,
  type NeedDoc,
  type PledgeDoc,
  type Remaining,
} from '../../../services/relief/rules.js';
import type { EventBus } from '../../events/bus.js';
import { actorOf } from '../sessions/index.js';
import { type CancelInput, type CloseNeedInput, ReliefLifecycle, type WithdrawInput } from './relief-lifecycle.js';
import { type AllocationRecord, type Assignment, type Handover, type NeedRecord, type PledgeRecord, ReliefRepo } from './relief-store.js';

export interface ReliefDeps {
  db: Database;
  bus: EventBus;
  now(): number;
  /** Whether this hub coordinates relief (else every relief route and tool answers `not-coordinator`). */
  coordinator: boolean;
  /** A recipe of this hub's catalog (for an allocation's production menu), or undefined when it holds none. */
  recipe?(id: string): MenuRecipe | undefined;
}

export type AllocationInput = Json & { id?: string; need: string; assignments: Assignment[]; coverage?: { meals?: number } };
export interface HandoverInput {
  pledge: string;
  step: 'delivered' | 'received';
  meals?: number;
  note?: string;
}

const NOT_COORDINATOR =
  'this hub is not a relief coordinator: start it with --relief-coordinator (config relief: {coordinator: true}) to keep needs, pledges and allocations';

const VOCAB_ID = /^(cw|x-[a-z0-9-]+)\.[a-z0-9_.-]+$/;

export class ReliefService {
  readonly repo: ReliefRepo;

  constructor(private readonly d: ReliefDeps) {
    this.repo = new ReliefRepo(d.db);
  }

  get coordinator(): boolean {
    return this.d.coordinator;
  }

  private iso(): string {
    return new Date(this.d.now()).toISOString();
  }

  private guard(): void {
    if (!this.d.coordinator) throw new ProblemError('not-coordinator', NOT_COORDINATOR);
  }

  /** Check `doc` against a relief schema: 422 `validation-failed` naming each member at fault. */
  private check(name: SchemaName, what: string, doc: unknown): void {
    const r = validate[name](doc);
    if (r.valid) return;
    const first = r.issues[0];
    throw new ProblemError('validation-failed', `not a valid ${what}: ${first?.path || '/'} ${first?.message ?? 'is invalid'}`, {
      errors: r.issues.slice(0, 20).map((i) => ({ in: 'body', pointer: i.path, message: i.message })),
    });
  }

  private emit(kind: 'need' | 'pledge' | 'allocation', rec: NeedRecord | PledgeRecord | AllocationRecord): void {
    const status = 'status' in rec && typeof rec.status === 'string' ? rec.status : String((rec as AllocationRecord).state);
    this.d.bus.emit('relief', {
      kind,
      at: rec.updatedAt,
      id: rec.id,
      status,
      ...(kind === 'allocation' ? { needId: (rec as AllocationRecord).need } : {}),
      record: { ...rec },
    });
  }

  listNeeds(status?: string): NeedRecord[] {
    this.guard();
    return this.repo.needs.list(status);
  }

  need(id: string): NeedRecord {
    this.guard();
    const n = this.repo.needs.get(id);
    if (!n) throw new ProblemError('not-found', `no need ${id} on this hub`);
    return n;
  }

  /** Post an open need. Its id is kept (or made); a need posted twice is 409. */
  postNeed(doc: Json, by: Principal): NeedRecord {
    this.guard();
    this.check('reliefNeed', 'Need', doc);
    const n = doc as unknown as NeedDoc;
    if (n.status !== undefined && n.status !== 'open')
      throw new ProblemError('validation-failed', `a need is posted open, not ${n.status}`);
    const id = typeof n.id === 'string' ? n.id : `need-${randomUUID()}`;
    if (this.repo.needs.get(id)) throw new ProblemError('conflict', `need ${id} was already posted on this hub`, { id });
    const at = this.iso();
    const meals = mealsNeeded(n);
    const rec: NeedRecord = {
      ...n,
      $kind: 'Need',
      id,
      status: 'open',
      mealsNeeded: meals,
      allocated: { meals: 0 },
      remaining: { meals, people: n.people },
      allocations: [],
      postedBy: actorOf(by),
      postedAt: at,
      updatedAt: at,
    };
    this.repo.needs.insert(rec, this.d.now());
    this.emit('need', rec);
    return rec;
  }

  listPledges(status?: string): PledgeRecord[] {
    this.guard();
    return this.repo.pledges.list(status);
  }

  pledge(id: string): PledgeRecord {
    this.guard();
    const p = this.repo.pledges.get(id);
    if (!p) throw new ProblemError('not-found', `no pledge ${id} on this hub`);
    return p;
  }

  /** Post a pledge; what it offers to allocate (meals of capacity or portions, item quantities) is its `remaining`. */
  postPledge(doc: Json, by: Principal): PledgeRecord {
    this.guard();
    this.check('reliefPledge', 'Pledge', doc);
    const p = doc as unknown as PledgeDoc;
    if (p.status !== undefined && p.status !== 'open')
      throw new ProblemError('validation-failed', `a pledge is posted open, not ${String(p.status)}`);
    if (Date.parse(p.available.to) <= Date.parse(p.available.from))
      throw new ProblemError('validation-failed', 'available.to must come after available.from');
    const keys = (p.items ?? []).map(itemKey);
    const twice = keys.find((k, i) => keys.indexOf(k) !== i);
    if (twice !== undefined) throw new ProblemError('validation-failed', `item ${twice} is listed twice; give one quantity`);
    const id = typeof p.id === 'string' ? p.id : `pl-${randomUUID()}`;
    if (this.repo.pledges.get(id)) throw new ProblemError('conflict', `pledge ${id} was already posted on this hub`, { id });
    const at = this.iso();
    const rec: PledgeRecord = {
      ...p,
      $kind: 'Pledge',
      id,
      status: 'open',
      remaining: initialRemaining(p),
      allocations: [],
      postedBy: actorOf(by),
      postedAt: at,
      updatedAt: at,
    };
    this.repo.pledges.insert(rec, this.d.now());
    this.emit('pledge', rec);
    return rec;
  }

  listAllocations(filter: { need?: string; state?: string } = {}): AllocationRecord[] {
    this.guard();
    return this.repo.allocations(filter);
  }

  allocation(id: string): AllocationRecord {
    this.guard();
    const a = this.repo.allocation(id);
    if (!a) throw new ProblemError('not-found', `no allocation ${id} on this hub`);
    return a;
  }

  /** Allocate pledges to a need, or refuse with nothing changed (relief-mismatch, over-allocation, not-found). */
  allocate(input: AllocationInput, by: Principal): AllocationRecord {
    this.guard();
    this.check('reliefAllocation', 'Allocation', input);
    const id = typeof input.id === 'string' ? input.id : `alloc-${randomUUID()}`;
    const at = this.iso();
    const out = this.repo.transaction(() => {
      if (this.repo.allocation(id)) throw new ProblemError('conflict', `allocation ${id} was already made on this hub`, { id });
      const need = this.repo.needs.get(input.need);
      if (!need) throw new ProblemError('not-found', `no need ${input.need} on this hub`);
      if (need.status === 'closed') throw new ProblemError('conflict', `need ${need.id} is closed`);
      const over = (detail: string, extra: Json = {}) =>
        new ProblemError('over-allocation', detail, { need: need.id, remaining: { ...need.remaining }, ...extra });
      if (need.remaining.meals === 0) throw over(`need ${need.id} is fulfilled: no meals remain to allocate`);
      const pledges = input.assignments.map((a, i) => {
        if (input.assignments.findIndex((b) => b.pledge === a.pledge) !== i)
          throw new ProblemError('validation-failed', `pledge ${a.pledge} is assigned twice in one allocation`);
        const p = this.repo.pledges.get(a.pledge);
        if (!p) throw new ProblemError('not-found', `no pledge ${a.pledge} on this hub`);
        if (p.status === 'withdrawn') throw new ProblemError('conflict', `pledge ${p.id} was withdrawn`);
        return p;
      });
      for (const p of pledges) {
        const m = mismatch(need, p);
        if (m) throw new ProblemError('relief-mismatch', m.detail, { reason: m.reason, need: need.id, pledge: p.id, ...m.extra });
      }
      // The production menu: recipes this hub holds are checked against the need; the others are listed as not held.
      const menuIds = [...new Set(this.menu(input).map((m) => m.recipeId))];
      const held = menuIds.map((r) => this.d.recipe?.(r)).filter((r): r is MenuRecipe => r !== undefined);
      const menuFault = menuMismatch(need, held);
      if (menuFault)
        throw new ProblemError('relief-mismatch', menuFault.detail, { reason: menuFault.reason, need: need.id, ...menuFault.extra });
      const target = input.coverage?.meals;
      if (target !== undefined && target > need.remaining.meals)
        throw over(`the allocation covers ${target} meals; need ${need.id} has ${need.remaining.meals} left`);
      const want = target ?? need.remaining.meals;
      let provided = 0;
      const rems = new Map<string, Remaining>();
      const taken = input.assignments.map((a, i) => {
        const p = pledges[i] as PledgeRecord;
        const rem = structuredClone(p.remaining);
        const o: Assignment = { ...a };
        if (rem.meals !== undefined) {
          if (a.meals !== undefined && a.meals > rem.meals)
            throw over(`pledge ${p.id} has ${rem.meals} meals left; the assignment asks for ${a.meals}`, {
              pledge: p.id,
              pledgeRemaining: rem,
            });
          const take = a.meals ?? Math.min(rem.meals, Math.max(0, want - provided));
          rem.meals -= take;
          provided += take;
          if (take > 0) o.meals = take;
          else delete o.meals;
        } else if (a.meals !== undefined) throw over(`pledge ${p.id} (${p.kind}) provides no meals`, { pledge: p.id });
        if (rem.items !== undefined) {
          const asked =
            a.items?.map((x) => ({ key: itemKey(x), qty: x.qty })) ??
            rem.items.filter((x) => x.qty.value > EPSILON).map((x) => ({ key: x.key, qty: { ...x.qty } }));
          if (asked.length === 0 && rem.meals === undefined)
            throw over(`pledge ${p.id} has nothing left`, { pledge: p.id, pledgeRemaining: rem });
          for (const x of asked) {
            const r = rem.items.find((k) => k.key === x.key);
            if (!r) throw new ProblemError('validation-failed', `pledge ${p.id} has no item ${x.key}`);
            if (r.qty.unit !== x.qty.unit)
              throw new ProblemError('validation-failed', `pledge ${p.id} gives ${x.key} in ${r.qty.unit}, not ${x.qty.unit}`);
            if (x.qty.value > r.qty.value + EPSILON)
              throw over(`pledge ${p.id} has ${r.qty.value} ${r.qty.unit} of ${x.key} left; the assignment asks for ${x.qty.value}`, {
                pledge: p.id,
                pledgeRemaining: rem,
              });
            r.qty.value = Math.max(0, r.qty.value - x.qty.value);
          }
          o.items = asked.map((x) => ({ ...(VOCAB_ID.test(x.key) ? { ingredientId: x.key } : { name: x.key }), qty: { ...x.qty } }));
        } else if (a.items !== undefined) throw new ProblemError('validation-failed', `pledge ${p.id} (${p.kind}) has no items to take`);
        rems.set(p.id, rem);
        return o;
      });
      const meals = target ?? Math.min(provided, need.remaining.meals);
      if (meals <= 0)
        throw over(
          'the assigned pledges provide no meals: food alone needs kitchen or robot capacity, or a pledge that declares its portions',
          { provided },
        );
      if (meals > provided) throw over(`the assigned pledges provide ${provided} meals; the allocation covers ${meals}`, { provided });
      need.allocated.meals += meals;
      need.remaining.meals = need.mealsNeeded - need.allocated.meals;
      need.remaining.people = Math.ceil(need.remaining.meals / (need.mealsPerDay ?? 1));
      need.status = need.remaining.meals === 0 ? 'fulfilled' : 'open';
      need.allocations.push(id);
      need.updatedAt = at;
      this.repo.needs.update(need);
      for (const p of pledges) {
        p.remaining = rems.get(p.id) as Remaining;
        if (exhausted(p.remaining)) p.status = 'allocated';
        p.allocations.push(id);
        p.updatedAt = at;
        this.repo.pledges.update(p);
      }
      const rec: AllocationRecord = {
        ...input,
        $kind: 'Allocation',
        id,
        need: need.id,
        assignments: taken,
        coverage: { ...input.coverage, meals, pct: Math.round((meals / need.mealsNeeded) * 1000) / 10 },
        state: 'allocated',
        handovers: taken.map((a) => ({ pledge: a.pledge, ...(a.to !== undefined ? { to: a.to } : {}) })),
        ...(menuIds.length > 0
          ? { menuCheck: { held: held.map((r) => r.recipeId), notHeld: menuIds.filter((r) => !held.some((x) => x.recipeId === r)) } }
          : {}),
        postedBy: actorOf(by),
        postedAt: at,
        updatedAt: at,
      };
      this.repo.insertAllocation(rec, this.d.now());
      return { rec, need, pledges };
    });
    this.emit('allocation', out.rec);
    this.emit('need', out.need);
    for (const p of out.pledges) this.emit('pledge', p);
    return out.rec;
  }

  /** Run one lifecycle change in a transaction, then emit what it changed (allocations, needs, pledges). */
  private lifecycle<T>(by: Principal, fn: (l: ReliefLifecycle) => T): T {
    this.guard();
    const l = new ReliefLifecycle(this.repo, this.iso(), actorOf(by));
    const out = this.repo.transaction(() => fn(l));
    for (const a of l.changed.allocations.values()) this.emit('allocation', a);
    for (const n of l.changed.needs.values()) this.emit('need', n);
    for (const p of l.changed.pledges.values()) this.emit('pledge', p);
    return out;
  }

  /** Close a need (no more allocations); `cancelAllocations` cancels those not yet on the road. */
  closeNeed(id: string, input: CloseNeedInput, by: Principal): NeedRecord {
    return this.lifecycle(by, (l) => l.closeNeed(id, input));
  }

  /** Withdraw a pledge: refused while it has live allocations, unless `cascade` cancels them. */
  withdrawPledge(id: string, input: WithdrawInput, by: Principal): PledgeRecord {
    return this.lifecycle(by, (l) => l.withdrawPledge(id, input));
  }

  /** Cancel an allocation before its handover begins; its need and pledges get their quantities back. */
  cancelAllocation(id: string, input: CancelInput, by: Principal): AllocationRecord {
    return this.lifecycle(by, (l) => l.cancelAllocation(id, input));
  }

  private menu(input: AllocationInput): { recipeId: string }[] {
    const production = Array.isArray(input.production) ? (input.production as { menu?: { recipeId: string }[] }[]) : [];
    return production.flatMap((p) => p.menu ?? []);
  }

  /** One side of an assignment's handover: `delivered` (the giving side), then `received` (the receiving side). */
  handover(id: string, input: HandoverInput, by: Principal): AllocationRecord {
    this.guard();
    const a = this.allocation(id);
    if (a.state === 'cancelled') throw new ProblemError('conflict', `allocation ${id} was cancelled`);
    const h = a.handovers.find((x) => x.pledge === input.pledge);
    if (!h) throw new ProblemError('not-found', `allocation ${id} assigns no pledge ${input.pledge}`);
    const done = h[input.step];
    if (done)
      throw new ProblemError(
        'conflict',
        `pledge ${input.pledge} was already ${input.step} (by ${done.by.kind} ${done.by.id} at ${done.at})`,
      );
    if (input.step === 'received' && !h.delivered)
      throw new ProblemError('conflict', `pledge ${input.pledge} is not delivered yet; the giving side says delivered first`);
    const at = this.iso();
    h[input.step] = {
      by: actorOf(by),
      at,
      ...(input.meals !== undefined ? { meals: input.meals } : {}),
      ...(input.note !== undefined ? { note: input.note } : {}),
    };
    a.state = a.handovers.every((x: Handover) => x.received) ? 'handed_over' : 'in_transit';
    a.updatedAt = at;
    this.repo.updateAllocation(a);
    this.d.bus.emit('relief', {
      kind: 'handover',
      at,
      id: a.id,
      status: a.state,
      needId: a.need,
      pledgeId: input.pledge,
      step: input.step,
      record: { ...h },
    });
    return a;
  }
}
