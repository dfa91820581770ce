/**
 * Hub REST for notifications (runtime/hub/notify/notify.ts): `POST /svc/v1/notify` (scope `notify`; 202 once it is on
 * the event bus, 429 `rate-limited` with Retry-After past the sender's budget), `GET /svc/v1/notifications`
 * (`read`; newest first, `?audience=` narrows) and `POST /svc/v1/notifications/{id}/ack` (`read`, `notify` or `admin`:
 * someone saw it, optionally choosing one of its actions).
 */
import type { FastifyInstance } from 'fastify';
import type { Principal } from '../../../platform/http/auth.js';
import { ProblemError } from '../../../platform/http/problems.js';
import { PREFIX } from '../sessions/index.js';
import { type NotifyInput, type NotifyService, notifySchema } from './notify.js';

const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } } as const;
const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    audience: { type: 'string', minLength: 1, maxLength: 80 },
    limit: { type: 'integer', minimum: 1, maximum: 200 },
  },
} as const;
/** The ack's body is optional: none, `{}` or `{actionId}`. */
function actionIdOf(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  const b = body as Record<string, unknown>;
  const keys = typeof body === 'object' && !Array.isArray(body) ? Object.keys(b) : ['?'];
  const id = b.actionId;
  if (keys.some((k) => k !== 'actionId') || (id !== undefined && (typeof id !== 'string' || id.length < 1 || id.length > 40)))
    throw new ProblemError('validation-failed', 'body: send nothing, {} or {"actionId": "<one of the notification’s actions>"}');
  return id as string | undefined;
}

function who(p: Principal | null): Principal {
  if (!p) throw new Error('unreachable: scope checked');
  return p;
}

export function registerNotifyRoutes(http: FastifyInstance, n: NotifyService): void {
  http.post(
    `${PREFIX}/notify`,
    { config: { scope: 'notify', idempotency: 'required' }, schema: { body: notifySchema } },
    async (req, reply) => reply.code(202).send(n.send(req.body as NotifyInput, who(req.principal))),
  );
  http.get<{ Querystring: { audience?: string; limit?: number } }>(
    `${PREFIX}/notifications`,
    { config: { scope: 'read' }, schema: { querystring: listQuery } },
    async (req) => ({ items: n.list(req.query.limit ?? 50, req.query.audience) }),
  );
  http.post<{ Params: { id: string } }>(
    `${PREFIX}/notifications/:id/ack`,
    { config: { scope: ['read', 'notify', 'admin'], idempotency: 'optional' }, schema: { params: idParams } },
    async (req) => n.acknowledge(req.params.id, who(req.principal), actionIdOf(req.body)),
  );
}
