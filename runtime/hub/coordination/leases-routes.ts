/**
 * Hub REST for leases (spec §2.2 Lease, §7 `lease-conflict`): `GET /svc/v1/leases` and `GET …/{id}` (read),
 * `POST /svc/v1/leases` to claim, `POST …/{id}/renew`, `DELETE …/{id}` or `POST …/{id}/release` (cook). A second
 * claim on a held resource answers 409 `lease-conflict` naming the holder and when its lease expires.
 */
import type { FastifyInstance } from 'fastify';
import { requirePrincipal } from '../../../platform/http/auth.js';
import { PREFIX } from '../sessions/index.js';
import { type ClaimInput, LEASE_TTL_MAX_S, LEASE_TTL_MIN_S, type LeaseService, RESOURCE_PATTERN } from './leases.js';
import { LEASE_MODES } from './leases-store.js';

const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } } as const;
const ttl = { type: 'integer', minimum: LEASE_TTL_MIN_S, maximum: LEASE_TTL_MAX_S } as const;

/** The body of `POST /svc/v1/leases` and the arguments of `claim_lease`. */
export const claimSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['resource'],
  properties: {
    resource: { type: 'string', pattern: RESOURCE_PATTERN, maxLength: 300 },
    mode: { enum: [...LEASE_MODES] },
    ttlSeconds: ttl,
    sessionId: { type: 'string', minLength: 1, maxLength: 100 },
    note: { type: 'string', maxLength: 300 },
  },
} as const;

export const renewSchema = { type: 'object', additionalProperties: false, properties: { ttlSeconds: ttl } } as const;

export const listLeasesSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    resource: { type: 'string', pattern: RESOURCE_PATTERN, maxLength: 300 },
    all: { type: 'boolean', description: 'the newest leases in every state, not only the granted ones' },
  },
} as const;

type Id = { Params: { id: string } };

export function registerLeaseRoutes(http: FastifyInstance, leases: LeaseService): void {
  http.get<{ Querystring: { resource?: string; all?: boolean } }>(
    `${PREFIX}/leases`,
    { config: { scope: 'read' }, schema: { querystring: listLeasesSchema } },
    async (req) => ({ items: leases.list(req.query) }),
  );
  http.post(
    `${PREFIX}/leases`,
    { config: { scope: 'cook', idempotency: 'required' }, schema: { body: claimSchema } },
    async (req, reply) => {
      const lease = leases.claim(req.body as ClaimInput, requirePrincipal(req));
      return reply.code(201).header('location', `${PREFIX}/leases/${lease.id}`).send(lease);
    },
  );
  http.get<Id>(`${PREFIX}/leases/:id`, { config: { scope: 'read' }, schema: { params: idParams } }, async (req) =>
    leases.get(req.params.id),
  );
  http.post<Id>(
    `${PREFIX}/leases/:id/renew`,
    { config: { scope: 'cook', idempotency: 'required' }, schema: { params: idParams, body: renewSchema } },
    async (req) => leases.renew(req.params.id, (req.body as { ttlSeconds?: number } | undefined)?.ttlSeconds, requirePrincipal(req)),
  );
  http.post<Id>(
    `${PREFIX}/leases/:id/release`,
    { config: { scope: 'cook', idempotency: 'required' }, schema: { params: idParams } },
    async (req) => leases.release(req.params.id, requirePrincipal(req)),
  );
  http.delete<Id>(`${PREFIX}/leases/:id`, { config: { scope: 'cook' }, schema: { params: idParams } }, async (req) =>
    leases.release(req.params.id, requirePrincipal(req)),
  );
}
