/**
 * Hub REST for handoffs (spec §2.2 Handoff): `GET /svc/v1/handoffs` and `GET …/{id}` (read), `POST
 * /svc/v1/handoffs` to propose, `POST …/{id}/accept` (the receiving side), `POST …/{id}/complete` (the giving
 * side), `POST …/{id}/decline` (either side), all with `cook`. A person's side needs a person's token.
 */
import type { FastifyInstance } from 'fastify';
import { requirePrincipal } from '../../../platform/http/auth.js';
import { PREFIX } from '../sessions/index.js';
import type { HandoffService, ProposeInput } from './handoffs.js';
import { HANDOFF_STATES } from './leases-store.js';

const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } } as const;
const actor = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'id'],
  properties: {
    kind: { enum: ['human', 'robot', 'appliance', 'agent'] },
    id: { type: 'string', minLength: 1, maxLength: 100 },
    name: { type: 'string', maxLength: 100 },
  },
} as const;

/** The body of `POST /svc/v1/handoffs` and the arguments of `propose_handoff`. */
export const proposeSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['to'],
  properties: {
    to: actor,
    from: actor,
    taskId: { type: 'string', minLength: 1, maxLength: 100 },
    item: { type: 'string', minLength: 1, maxLength: 200 },
    location: { type: 'string', maxLength: 200 },
    hazards: { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 60 } },
    ttlSeconds: { type: 'integer', minimum: 10, maximum: 86400 },
  },
} as const;

export const declineSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { reason: { type: 'string', maxLength: 500 } },
} as const;

export const listHandoffsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { state: { enum: [...HANDOFF_STATES] }, task: { type: 'string', minLength: 1, maxLength: 100 } },
} as const;

type Id = { Params: { id: string } };

export function registerHandoffRoutes(http: FastifyInstance, handoffs: HandoffService): void {
  http.get<{ Querystring: { state?: string; task?: string } }>(
    `${PREFIX}/handoffs`,
    { config: { scope: 'read' }, schema: { querystring: listHandoffsSchema } },
    async (req) => ({
      items: handoffs.list({
        ...(req.query.state ? { state: req.query.state } : {}),
        ...(req.query.task ? { taskId: req.query.task } : {}),
      }),
    }),
  );
  http.post(
    `${PREFIX}/handoffs`,
    { config: { scope: 'cook', idempotency: 'required' }, schema: { body: proposeSchema } },
    async (req, reply) => {
      const h = handoffs.propose(req.body as ProposeInput, requirePrincipal(req));
      return reply.code(201).header('location', `${PREFIX}/handoffs/${h.id}`).send(h);
    },
  );
  http.get<Id>(`${PREFIX}/handoffs/:id`, { config: { scope: 'read' }, schema: { params: idParams } }, async (req) =>
    handoffs.get(req.params.id),
  );
  const post = { scope: 'cook', idempotency: 'required' } as const;
  http.post<Id>(`${PREFIX}/handoffs/:id/accept`, { config: post, schema: { params: idParams } }, async (req) =>
    handoffs.accept(req.params.id, requirePrincipal(req)),
  );
  http.post<Id>(`${PREFIX}/handoffs/:id/complete`, { config: post, schema: { params: idParams } }, async (req) =>
    handoffs.complete(req.params.id, requirePrincipal(req)),
  );
  http.post<Id>(`${PREFIX}/handoffs/:id/decline`, { config: post, schema: { params: idParams, body: declineSchema } }, async (req) =>
    handoffs.decline(req.params.id, requirePrincipal(req), (req.body as { reason?: string } | undefined)?.reason),
  );
}
