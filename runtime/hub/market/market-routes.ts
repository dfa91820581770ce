/**
 * Hub REST for the market: `GET /svc/v1/offers` (any token; the query of `GET /v1/offers` on the index) over the
 * configured offers; `POST /svc/v1/quotes` (`order:create`) routes a QuoteRequest and returns it with its
 * quotes; `GET /svc/v1/quotes/{id}` (`read`); `POST /svc/v1/quotes/{id}/order {quoteId, mandate?}`
 * (`order:create`) makes the quote an OrderIntent awaiting approval; `POST /svc/v1/quotes/{id}/approve
 * {quoteId}` (a person's token with `order:create` or `admin`; an agent gets 403 `not-human-approver`).
 */
import type { FastifyInstance } from 'fastify';
import { requirePrincipal } from '../../../platform/http/auth.js';
import { ProblemError } from '../../../platform/http/problems.js';
import { offerQueryFromUrl, type QuoteRequestInput } from '../../../services/market/index.js';
import { PREFIX } from '../sessions/index.js';
import type { MarketService } from './market.js';

const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^qr-[0-9a-f-]{36}$' } },
} as const;

/** The body of `POST /svc/v1/quotes` and the arguments of `request_quote`: market.schema.json QuoteRequest. */
export const quoteRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      minItems: 1,
      maxItems: 50,
      items: {
        type: 'object',
        additionalProperties: false,
        minProperties: 1,
        properties: {
          ingredientId: { type: 'string', pattern: '^(cw|x-[a-z0-9-]+)\\.[a-z0-9_.-]+$', maxLength: 128 },
          offerId: { type: 'string', minLength: 1, maxLength: 128 },
          recipeId: { type: 'string', minLength: 1, maxLength: 200 },
          quantity: { type: 'number', exclusiveMinimum: 0, maximum: 1000000 },
          unit: { type: 'string', minLength: 1, maxLength: 20 },
        },
        anyOf: [{ required: ['ingredientId'] }, { required: ['offerId'] }, { required: ['recipeId'] }],
        dependentRequired: { unit: ['quantity'] },
      },
    },
    country: { type: 'string', pattern: '^[A-Z]{2}$' },
    currency: { type: 'string', pattern: '^[A-Z]{3}$' },
    fulfillment: { enum: ['delivery', 'pickup', 'shipping', 'on_site', 'digital'] },
    providers: { type: 'array', maxItems: 50, items: { type: 'string', minLength: 3, maxLength: 200 } },
    note: { type: 'string', maxLength: 500 },
    /** An agent's signed AgentMandate: verified in full; its allowedProviders narrow where the request goes. */
    mandate: { type: 'object', maxProperties: 40 },
  },
} as const;

export const quoteActionSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['quoteId'],
  properties: { quoteId: { type: 'string', pattern: '^qt-[0-9a-f-]{36}$' }, mandate: { type: 'object', maxProperties: 40 } },
} as const;

const approveSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['quoteId'],
  properties: { quoteId: quoteActionSchema.properties.quoteId },
} as const;

type Id = { Params: { id: string } };

export function registerMarketRoutes(http: FastifyInstance, m: MarketService): void {
  http.get(`${PREFIX}/offers`, async (req) => {
    requirePrincipal(req);
    try {
      return m.searchOffers(offerQueryFromUrl((req.query ?? {}) as Record<string, unknown>));
    } catch (err) {
      throw new ProblemError('validation-failed', (err as Error).message);
    }
  });
  http.post(
    `${PREFIX}/quotes`,
    { config: { scope: 'order:create', idempotency: 'required' }, schema: { body: quoteRequestSchema } },
    async (req, reply) => {
      const rec = m.request(req.body as QuoteRequestInput & { mandate?: unknown }, requirePrincipal(req));
      return reply.code(201).header('location', `${PREFIX}/quotes/${rec.id}`).send(rec);
    },
  );
  http.get<Id>(`${PREFIX}/quotes/:id`, { config: { scope: 'read' }, schema: { params: idParams } }, async (req) => m.get(req.params.id));
  http.post<Id>(
    `${PREFIX}/quotes/:id/order`,
    { config: { scope: 'order:create', idempotency: 'required' }, schema: { params: idParams, body: quoteActionSchema } },
    async (req, reply) => {
      const b = req.body as { quoteId: string; mandate?: unknown };
      const r = m.order(req.params.id, b.quoteId, requirePrincipal(req), b.mandate);
      return reply.code(201).header('location', `${PREFIX}/orders/${r.order.id}`).send(r);
    },
  );
  http.post<Id>(
    `${PREFIX}/quotes/:id/approve`,
    { config: { scope: ['order:create', 'admin'], idempotency: 'required' }, schema: { params: idParams, body: approveSchema } },
    async (req) => m.approve(req.params.id, (req.body as { quoteId: string }).quoteId, requirePrincipal(req)),
  );
}
