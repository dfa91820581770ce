/**
 * Hub REST for advice (spec §4.3): `POST /svc/v1/advise/{intent}` (read) answers an AdviceRequest with the hub's
 * full context; `POST /svc/v1/advise/{intent}/apply {responseId, optionId, serveAt?, mandate?}` (cook) turns a
 * chosen option into a planned session; `POST /svc/v1/ask {text, lang?}` (any token) maps free text onto an
 * intent first. The same service functions (services/advice) answer the MCP tools; the engine loads on the first
 * call (services/advice/lazy.ts), not when `hearth start` registers these routes.
 */
import type { FastifyInstance } from 'fastify';
import { requirePrincipal } from '../../../platform/http/auth.js';
import type { AdviceContext, AdviceRequest } from '../../../services/advice/index.js';
import { adviceEngine } from '../../../services/advice/lazy.js';
import { adviceRequestSchema, applySchema, askSchema } from '../../../services/advice/request-schema.js';
import { PREFIX } from '../sessions/index.js';

const intentParams = {
  type: 'object',
  required: ['intent'],
  properties: { intent: { type: 'string', pattern: '^[a-z_]{2,40}$' } },
} as const;

type Intent = { Params: { intent: string } };

export function registerAdviceRoutes(http: FastifyInstance, ctx: AdviceContext): void {
  http.post<Intent>(
    `${PREFIX}/advise/:intent`,
    { config: { scope: 'read', idempotency: 'optional' }, schema: { params: intentParams, body: adviceRequestSchema } },
    async (req) => (await adviceEngine()).advise(ctx, { ...(req.body as AdviceRequest), intent: req.params.intent }, req.principal),
  );
  http.post<Intent>(
    `${PREFIX}/advise/:intent/apply`,
    { config: { scope: 'cook', idempotency: 'required' }, schema: { params: intentParams, body: applySchema } },
    async (req, reply) => {
      const session = (await adviceEngine()).applyAdvice(ctx, req.body as { responseId: string; optionId: string }, requirePrincipal(req));
      return reply
        .code(201)
        .header('location', `${PREFIX}/sessions/${String(session.id)}`)
        .send(session);
    },
  );
  http.post(`${PREFIX}/ask`, { config: { idempotency: 'optional' }, schema: { body: askSchema } }, async (req) =>
    (await adviceEngine()).ask(ctx, req.body as { text: string; lang?: string }, requirePrincipal(req)),
  );
}
