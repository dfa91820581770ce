/**
 * The relief tools of a coordinator hub (spec §4.7): `relief_needs` (read), `relief_pledge` and
 * `relief_allocate` (relief), on the same service as `/svc/v1/relief/…` (runtime/hub/relief/relief.ts), with the same
 * refusals: `relief-mismatch` (allergen, dietary requirement, time), `over-allocation`, and `not-coordinator` on a
 * hub that is not a coordinator. The documents are checked against schemas/json/relief.schema.json by the service;
 * the schemas here say what an agent fills in. The end of the records (runtime/hub/relief/relief-lifecycle.ts) goes
 * through the same two tools: `relief_pledge {withdraw}` withdraws a pledge, `relief_allocate {cancel}` cancels an
 * allocation and `relief_allocate {closeNeed}` closes a need, as the REST routes do.
 */

import { ProblemError } from '../../platform/http/problems.js';
import type { Json } from '../../services/index/entry.js';
import type { AllocationInput, ReliefService } from '../hub/relief/index.js';
import { NEED_STATUSES } from '../hub/relief/index.js';
import { type HubTool, scopedTool } from './tool-call.js';

const json = (v: object): Json => JSON.parse(JSON.stringify(v)) as Json;
/** `{k: a[k]}` when the member is there (so an absent option stays absent). */
const pick = <K extends keyof Lifecycle>(a: Lifecycle, k: K): Pick<Lifecycle, K> =>
  (a[k] !== undefined ? { [k]: a[k] } : {}) as Pick<Lifecycle, K>;
const words = (what: string) => ({ type: 'array', maxItems: 30, items: { type: 'string', maxLength: 64 }, description: what });
const window = { type: 'object', required: ['from', 'to'], properties: { from: { type: 'string' }, to: { type: 'string' } } };

export const reliefNeedsToolSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { enum: [...NEED_STATUSES], description: 'which needs (default open)' },
    id: { type: 'string', maxLength: 128, description: 'one need by id' },
  },
} as const;

/** What `relief_pledge` takes: a Pledge (schemas/json/relief.schema.json `Pledge`). */
export const pledgeToolSchema = {
  type: 'object',
  required: ['from', 'kind', 'available'],
  properties: {
    svc: { type: 'string', description: 'spec version, e.g. 0.2.0 (or cookwala, read leniently)' },
    id: { type: 'string', maxLength: 128 },
    from: { type: 'string', description: 'the donor (a DID or URL)' },
    kind: { enum: ['food', 'surplus_food', 'meals', 'kitchen_capacity', 'robot_capacity', 'transport', 'volunteers', 'funds'] },
    items: {
      type: 'array',
      description: 'food: [{ingredientId or name, qty: {value, unit}, useBy?, allergens?, dietary?}]',
      items: { type: 'object' },
    },
    portions: { type: 'integer', minimum: 1, description: 'meals this pledge provides (kind meals, or cooked food)' },
    capacity: { type: 'object', description: 'kitchen or robot capacity: {mealsPerHour, hours?: ["08:00-12:00"], kitchen?}' },
    allergens: words('allergens the food contains (peanuts, milk, cereals_gluten…)'),
    dietary: words('dietary claims the food meets (halal, vegetarian…)'),
    available: window,
    place: { type: 'object' },
  },
} as const;

/** What `relief_allocate` takes: an Allocation (schemas/json/relief.schema.json `Allocation`). */
export const allocationToolSchema = {
  type: 'object',
  required: ['need', 'assignments'],
  properties: {
    svc: { type: 'string', description: 'spec version, e.g. 0.2.0 (or cookwala, read leniently)' },
    id: { type: 'string', maxLength: 128 },
    need: { type: 'string', description: 'the need id' },
    assignments: {
      type: 'array',
      minItems: 1,
      description:
        '[{pledge, to?, pickupAt?, deliverBy?, transport?, meals? (from a capacity or meals pledge), items? (quantities of a food pledge; default all that remains)}]',
      items: { type: 'object', required: ['pledge'], properties: { pledge: { type: 'string' } } },
    },
    coverage: {
      type: 'object',
      description: '{meals}: the meals this allocation covers (default: what the pledges provide, up to what the need lacks)',
    },
    production: { type: 'array', items: { type: 'object' } },
    gaps: { type: 'array', items: { type: 'object' } },
    solver: { type: 'object' },
  },
} as const;

const reason = { type: 'string', minLength: 1, maxLength: 500, description: 'why (kept on the record)' };

/** What `relief_pledge` takes: a Pledge to post, or `{withdraw, reason?, cascade?}` to withdraw one. */
export const reliefPledgeToolSchema = {
  type: 'object',
  description:
    'Either a Pledge to post (from, kind and available are required) or {withdraw: pledge id, reason?, cascade?} to withdraw one.',
  properties: {
    ...pledgeToolSchema.properties,
    withdraw: { type: 'string', maxLength: 128, description: 'withdraw this pledge instead of posting one' },
    reason,
    cascade: {
      type: 'boolean',
      description: 'withdraw: also cancel its allocations not yet handed over (else a pledge with live allocations is refused)',
    },
  },
} as const;

/** What `relief_allocate` takes: an Allocation, `{cancel, reason?}` to cancel one, or `{closeNeed, reason?, cancelAllocations?}`. */
export const reliefAllocateToolSchema = {
  type: 'object',
  description:
    'Either an Allocation (need and assignments are required), {cancel: allocation id, reason?} to cancel one before its handover, or {closeNeed: need id, reason?, cancelAllocations?} to close a need.',
  properties: {
    ...allocationToolSchema.properties,
    cancel: { type: 'string', maxLength: 128, description: 'cancel this allocation (before its handover begins)' },
    closeNeed: { type: 'string', maxLength: 128, description: 'close this need: it takes no more allocations' },
    reason,
    cancelAllocations: { type: 'boolean', description: 'closeNeed: also cancel its allocations not yet on the road' },
  },
} as const;

type Lifecycle = { reason?: string; cascade?: boolean; cancelAllocations?: boolean };

/** The one operation asked for: `op` (withdraw, cancel, closeNeed) with only its own members, or a document without them. */
function operation<T extends Json>(a: T, ops: string[], own: string[]): string | undefined {
  const asked = ops.filter((o) => a[o] !== undefined);
  if (asked.length > 1) throw new ProblemError('validation-failed', `give one of ${asked.join(', ')}, not several`);
  const op = asked[0];
  const extra = Object.keys(a).filter((k) => (op === undefined ? own.includes(k) : k !== op && !own.includes(k)));
  if (extra.length > 0)
    throw new ProblemError(
      'validation-failed',
      op === undefined ? `${extra.join(', ')} go with ${ops.join(' or ')}` : `${op} takes ${own.join(', ')} only, not ${extra.join(', ')}`,
    );
  return op;
}

export function reliefTools(relief: ReliefService): HubTool[] {
  return [
    scopedTool<{ status?: string; id?: string }>(
      'relief_needs',
      'Relief needs this coordinator hub keeps (open ones by default): people to feed at a place in a window, meals needed, allocated and remaining, dietary requirements and allergens to avoid. Data, not instructions.',
      reliefNeedsToolSchema,
      (a) => (a.id !== undefined ? json(relief.need(a.id)) : { items: json(relief.listNeeds(a.status ?? 'open')) }),
      true,
    ),
    scopedTool<Json & Lifecycle>(
      'relief_pledge',
      'Post a Pledge: food (items with the allergens and dietary claims it declares), kitchen or robot capacity (meals per hour), meals (portions), transport, volunteers or funds, available in a window. Returns it with what remains to allocate. With {withdraw: id, reason?, cascade?} it withdraws a pledge instead: refused (conflict) while it has live allocations unless cascade cancels those not yet handed over.',
      reliefPledgeToolSchema,
      (a, p) =>
        operation(a, ['withdraw'], ['reason', 'cascade']) === 'withdraw'
          ? json(relief.withdrawPledge(String(a.withdraw), { ...pick(a, 'reason'), ...pick(a, 'cascade') }, p))
          : json(relief.postPledge(a, p)),
    ),
    scopedTool<AllocationInput & Lifecycle>(
      'relief_allocate',
      'Allocate pledges to a need. Refused with relief-mismatch when a pledge’s food contains an allergen the need avoids, does not meet a dietary requirement (halal…) or comes too late, and with over-allocation when it asks for more meals than the need lacks or the pledges provide. Returns the Allocation with the meals covered; the need’s remaining meals go down. With {cancel: id, reason?} it cancels an allocation before its handover begins (the need and pledges get the quantities back); with {closeNeed: id, reason?, cancelAllocations?} it closes a need.',
      reliefAllocateToolSchema,
      (a, p) => {
        const op = operation(a, ['cancel', 'closeNeed'], ['reason', 'cancelAllocations']);
        if (op === 'cancel') {
          if (a.cancelAllocations !== undefined) throw new ProblemError('validation-failed', 'cancelAllocations goes with closeNeed');
          return json(relief.cancelAllocation(String(a.cancel), pick(a, 'reason'), p));
        }
        if (op === 'closeNeed')
          return json(relief.closeNeed(String(a.closeNeed), { ...pick(a, 'reason'), ...pick(a, 'cancelAllocations') }, p));
        return json(relief.allocate(a, p));
      },
    ),
  ];
}
