/**
 * Hub REST for relief on a coordinator hub (runtime/hub/relief/relief.ts): needs, pledges and allocations under
 * `/svc/v1/relief`, read with `read`, written with `relief` (every POST takes an Idempotency-Key), and their
 * end (runtime/hub/relief/relief-lifecycle.ts): a need closed, a pledge withdrawn, an allocation cancelled. The bodies
 * are the reference's Need, Pledge and Allocation documents, checked against schemas/json/relief.schema.json by
 * the service (the route only bounds their size). On a hub that is not a coordinator every route answers 409
 * `not-coordinator` (after the token and scope checks).
 */
import type { FastifyInstance } from 'fastify';
import { requirePrincipal } from '../../../platform/http/auth.js';
import type { Json } from '../../../services/index/entry.js';
import { PREFIX } from '../sessions/index.js';
import type { AllocationInput, HandoverInput, ReliefService } from './relief.js';
import type { CancelInput, CloseNeedInput, WithdrawInput } from './relief-lifecycle.js';
import { ALLOCATION_STATES, NEED_STATUSES, PLEDGE_STATUSES } from './relief-store.js';

const R = `${PREFIX}/relief`;
const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 2, maxLength: 128, pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]*$' } },
} as const;
/** A document; its schema is applied by the service (so REST, MCP and A2A refuse it with the same words). */
export const reliefDocSchema = { type: 'object', maxProperties: 60 } as const;
const reliefPost = { scope: 'relief', idempotency: 'required' } as const;

export const listNeedsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { status: { enum: [...NEED_STATUSES] } },
} as const;
const listPledgesSchema = { type: 'object', additionalProperties: false, properties: { status: { enum: [...PLEDGE_STATUSES] } } } as const;
const listAllocationsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { need: idParams.properties.id, state: { enum: [...ALLOCATION_STATES] } },
} as const;

/** `POST /svc/v1/relief/allocations/{id}/handover`: one side of an assignment's handover. */
export const handoverSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['pledge', 'step'],
  properties: {
    pledge: idParams.properties.id,
    step: { enum: ['delivered', 'received'] },
    meals: { type: 'integer', minimum: 0, maximum: 10000000 },
    note: { type: 'string', maxLength: 500 },
  },
} as const;

const reason = { type: 'string', minLength: 1, maxLength: 500 } as const;
/** `POST /svc/v1/relief/needs/{id}/close`: why, and whether its allocations not yet on the road are cancelled too. */
export const closeNeedSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { reason, cancelAllocations: { type: 'boolean' } },
} as const;
/** `POST /svc/v1/relief/pledges/{id}/withdraw`: why, and whether its allocations not yet handed over are cancelled with it. */
export const withdrawSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { reason, cascade: { type: 'boolean' } },
} as const;
/** `POST /svc/v1/relief/allocations/{id}/cancel`. */
export const cancelSchema = { type: 'object', additionalProperties: false, properties: { reason } } as const;

type Id = { Params: { id: string } };
const bodyOf = <T>(b: unknown): T => (b ?? {}) as T;

export function registerReliefRoutes(http: FastifyInstance, relief: ReliefService): void {
  http.get<{ Querystring: { status?: string } }>(
    `${R}/needs`,
    { config: { scope: 'read' }, schema: { querystring: listNeedsSchema } },
    async (req) => ({ items: relief.listNeeds(req.query.status) }),
  );
  http.post(`${R}/needs`, { config: reliefPost, schema: { body: reliefDocSchema } }, async (req, reply) => {
    const rec = relief.postNeed(req.body as Json, requirePrincipal(req));
    return reply.code(201).header('location', `${R}/needs/${rec.id}`).send(rec);
  });
  http.get<Id>(`${R}/needs/:id`, { config: { scope: 'read' }, schema: { params: idParams } }, async (req) => relief.need(req.params.id));
  http.post<Id>(`${R}/needs/:id/close`, { config: reliefPost, schema: { params: idParams, body: closeNeedSchema } }, async (req) =>
    relief.closeNeed(req.params.id, bodyOf<CloseNeedInput>(req.body), requirePrincipal(req)),
  );

  http.get<{ Querystring: { status?: string } }>(
    `${R}/pledges`,
    { config: { scope: 'read' }, schema: { querystring: listPledgesSchema } },
    async (req) => ({ items: relief.listPledges(req.query.status) }),
  );
  http.post(`${R}/pledges`, { config: reliefPost, schema: { body: reliefDocSchema } }, async (req, reply) => {
    const rec = relief.postPledge(req.body as Json, requirePrincipal(req));
    return reply.code(201).header('location', `${R}/pledges/${rec.id}`).send(rec);
  });
  http.get<Id>(`${R}/pledges/:id`, { config: { scope: 'read' }, schema: { params: idParams } }, async (req) =>
    relief.pledge(req.params.id),
  );
  http.post<Id>(`${R}/pledges/:id/withdraw`, { config: reliefPost, schema: { params: idParams, body: withdrawSchema } }, async (req) =>
    relief.withdrawPledge(req.params.id, bodyOf<WithdrawInput>(req.body), requirePrincipal(req)),
  );

  http.get<{ Querystring: { need?: string; state?: string } }>(
    `${R}/allocations`,
    { config: { scope: 'read' }, schema: { querystring: listAllocationsSchema } },
    async (req) => ({ items: relief.listAllocations(req.query) }),
  );
  http.post(`${R}/allocations`, { config: reliefPost, schema: { body: reliefDocSchema } }, async (req, reply) => {
    const rec = relief.allocate(req.body as AllocationInput, requirePrincipal(req));
    return reply.code(201).header('location', `${R}/allocations/${rec.id}`).send(rec);
  });
  http.get<Id>(`${R}/allocations/:id`, { config: { scope: 'read' }, schema: { params: idParams } }, async (req) =>
    relief.allocation(req.params.id),
  );
  http.post<Id>(`${R}/allocations/:id/handover`, { config: reliefPost, schema: { params: idParams, body: handoverSchema } }, async (req) =>
    relief.handover(req.params.id, req.body as HandoverInput, requirePrincipal(req)),
  );
  http.post<Id>(`${R}/allocations/:id/cancel`, { config: reliefPost, schema: { params: idParams, body: cancelSchema } }, async (req) =>
    relief.cancelAllocation(req.params.id, bodyOf<CancelInput>(req.body), requirePrincipal(req)),
  );
}
