/**
 * Webhook subscriptions over HTTP (index-hub-executor.md §6):
 * - `POST /svc/v1/subscriptions {url, types, secret}` → 201 with the subscription (never the secret back, but
 *   the Standard Webhooks form of it, which a receiver's library needs);
 * - `GET /svc/v1/subscriptions`, `GET /svc/v1/subscriptions/{id}` (with delivery counts), `DELETE …/{id}`.
 * Scope `notify` or `admin`. A `notify` token sees and deletes its own subscriptions; `admin` all of them.
 * A subscription to anything beyond safety events also needs `read` (or `admin`): a webhook is a way to read.
 * A URL inside the machine or its link (loopback, link-local, the LAN, …) is refused with 422
 * `destination-not-allowed` unless the operator's allow-list opens it (guard.ts, platform/net/outbound.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ProblemError } from '../../platform/http/problems.js';
import { OutboundGuard } from '../../platform/net/outbound.js';
import { canReadAll } from '../events/filter.js';
import { checkDestination } from './guard.js';
import { standardWebhooksSecret } from './sign.js';
import type { Subscription, WebhookStore } from './store.js';

export const SUBSCRIPTIONS_PATH = '/svc/v1/subscriptions';
const SCOPES = ['notify', 'admin'] as const;

const createBody = {
  type: 'object',
  additionalProperties: false,
  required: ['url', 'types', 'secret'],
  properties: {
    url: { type: 'string', minLength: 8, maxLength: 2048 },
    types: {
      type: 'array',
      minItems: 1,
      maxItems: 32,
      uniqueItems: true,
      items: { type: 'string', pattern: '^svc(\\.[a-z0-9_]+)*\\.?$', maxLength: 100 },
    },
    secret: { type: 'string', minLength: 16, maxLength: 512 },
  },
} as const;

const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^sub_[0-9a-f]{16}$' } },
} as const;

function view(s: Subscription, extra: Record<string, unknown> = {}) {
  return { id: s.id, url: s.url, types: s.types, owner: s.owner, createdAt: s.createdAt, ...extra };
}

function checkUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ProblemError('validation-failed', 'url is not an absolute URL', {
      errors: [{ in: 'body', pointer: '/url', message: 'must be an absolute http(s) URL' }],
    });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ProblemError('validation-failed', 'url must be http or https', {
      errors: [{ in: 'body', pointer: '/url', message: 'must be an absolute http(s) URL' }],
    });
  }
  if (u.username || u.password) {
    throw new ProblemError('validation-failed', 'url must not carry credentials', {
      errors: [{ in: 'body', pointer: '/url', message: 'must not carry user info' }],
    });
  }
  u.hash = '';
  return u.toString();
}

function visible(req: FastifyRequest, s: Subscription | undefined): s is Subscription {
  if (!s) return false;
  const p = req.principal;
  return !!p && (p.scopes.includes('admin') || s.owner === p.id);
}

export const DEFAULT_MAX_SUBSCRIPTIONS_PER_TOKEN = 20;

export function installSubscriptionRoutes(
  app: FastifyInstance,
  o: { store: WebhookStore; maxPerToken?: number; guard?: OutboundGuard },
): void {
  const guard = o.guard ?? new OutboundGuard();
  const maxPerToken = o.maxPerToken ?? DEFAULT_MAX_SUBSCRIPTIONS_PER_TOKEN;
  app.post(SUBSCRIPTIONS_PATH, { config: { scope: SCOPES, idempotency: 'optional' }, schema: { body: createBody } }, async (req, reply) => {
    const body = req.body as { url: string; types: string[]; secret: string };
    const principal = req.principal!;
    const telemetry = body.types.find((p) => p.startsWith('svc.telemetry'));
    if (telemetry !== undefined) {
      throw new ProblemError(
        'validation-failed',
        'telemetry readings are not sent by webhook: read them over MQTT, SSE or the WebSocket feed',
        {
          errors: [{ in: 'body', pointer: `/types/${body.types.indexOf(telemetry)}`, message: 'telemetry is not delivered by webhook' }],
        },
      );
    }
    if (!canReadAll(principal.scopes) && !body.types.every((p) => p.startsWith('svc.safety.'))) {
      throw new ProblemError('forbidden', 'without the read scope a subscription may only ask for svc.safety. events', {
        requiredScope: ['read', 'admin'],
      });
    }
    if (o.store.ownedBy(principal.id).length >= maxPerToken) {
      throw new ProblemError('rate-limited', `this token already holds ${maxPerToken} subscriptions: delete one first`);
    }
    const url = checkUrl(body.url);
    await checkDestination(guard, url);
    const sub = o.store.create({ url, types: body.types, secret: body.secret, owner: principal.id });
    reply.code(201).header('location', `${SUBSCRIPTIONS_PATH}/${sub.id}`);
    return view(sub, { webhookSecret: standardWebhooksSecret(body.secret) });
  });

  app.get(SUBSCRIPTIONS_PATH, { config: { scope: SCOPES } }, async (req) => ({
    subscriptions: o.store
      .all()
      .filter((s) => visible(req, s))
      .map((s) => view(s)),
  }));

  app.get(`${SUBSCRIPTIONS_PATH}/:id`, { config: { scope: SCOPES }, schema: { params: idParams } }, async (req) => {
    const s = o.store.get((req.params as { id: string }).id);
    if (!visible(req, s)) throw new ProblemError('not-found', 'no such subscription');
    return view(s, { deliveries: o.store.stats(s.id) });
  });

  app.delete(`${SUBSCRIPTIONS_PATH}/:id`, { config: { scope: SCOPES }, schema: { params: idParams } }, async (req, reply) => {
    const s = o.store.get((req.params as { id: string }).id);
    if (!visible(req, s)) throw new ProblemError('not-found', 'no such subscription');
    o.store.delete(s.id);
    return reply.code(204).send();
  });
}
