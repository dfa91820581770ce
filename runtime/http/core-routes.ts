/**
 * The Core (executor) API, semantics §6: executions (start, status with ETag, stop, resume with If-Match, log),
 * safety limits, capabilities, recalls and incidents. Start and resume need the `cook` scope, status and log
 * `read`; the rest need no token. Every POST takes an Idempotency-Key (stop: optional, and stop never
 * depends on its body: heat is cut before the body is even read).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { parseJson } from '../../core/canonical.js';
import { ProblemError } from '../../platform/http/problems.js';
import { createValidatorCompiler } from '../../platform/http/validation.js';
import type { AppContext } from '../app/context.js';
import type { ExecuteRequest, ExecutionStatus } from '../executor/types.js';
import { storeIncident } from '../store/recalls.js';
import { registerLimitRoutes } from '../supervisor/limit-routes.js';
import { parseRecallsSince } from './recalls-since.js';
import { executeRequestSchema, executionParams, incidentReportSchema, recallsQuery, resumeRequestSchema } from './schemas.js';

type IdParams = { Params: { id: string } };

function sendStatus(reply: FastifyReply, status: ExecutionStatus, code = 200): FastifyReply {
  return reply.code(code).header('etag', `"${status.seq}"`).header('cache-control', 'no-cache').send(status);
}

function notFound(id: string): ProblemError {
  return new ProblemError('not-found', `no execution ${id} on this device`);
}

const validateResume = (() => {
  const compile = createValidatorCompiler();
  return compile({
    schema: resumeRequestSchema as unknown as FastifySchema,
    method: 'POST',
    url: '/v1/executions/:id/resume',
    httpPart: 'body',
  });
})();

export function registerCoreRoutes(ctx: AppContext, now: () => number): void {
  const { http } = ctx;

  http.post(
    '/v1/executions',
    { config: { scope: 'cook', idempotency: 'required' }, schema: { body: executeRequestSchema } },
    async (req, reply) => {
      const body = req.body as ExecuteRequest;
      if (req.idempotency && body.idempotencyKey !== req.idempotency.key) {
        throw new ProblemError('validation-failed', 'body /idempotencyKey: must equal the Idempotency-Key header', {
          errors: [{ in: 'body', pointer: '/idempotencyKey', message: 'must equal the Idempotency-Key header' }],
        });
      }
      const r = ctx.executor.start(body, req.principal);
      if (r.kind === 'unknown_recipe') throw new ProblemError('unknown-recipe', `this device holds no recipe ${JSON.stringify(r.recipe)}`);
      reply.header('location', `/v1/executions/${r.status.id}`);
      return sendStatus(reply, r.status, 202);
    },
  );

  http.get<IdParams>('/v1/executions/:id', { config: { scope: 'read' }, schema: { params: executionParams } }, async (req, reply) => {
    const status = ctx.executor.status(req.params.id);
    if (!status) throw notFound(req.params.id);
    const inm = req.headers['if-none-match'];
    if (typeof inm === 'string' && inm.split(',').some((t) => t.trim() === `"${status.seq}"`)) {
      return reply.code(304).header('etag', `"${status.seq}"`).send();
    }
    return sendStatus(reply, status);
  });

  http.get<IdParams>('/v1/executions/:id/log', { config: { scope: 'read' }, schema: { params: executionParams } }, async (req) => {
    const log = ctx.executor.executionLog(req.params.id);
    if (log === undefined) throw notFound(req.params.id);
    if (log === 'running') throw new ProblemError('not-found', `execution ${req.params.id} has not ended; its log is served once it has`);
    return log;
  });

  http.post<IdParams>(
    '/v1/executions/:id/resume',
    { config: { scope: 'cook', idempotency: 'required' }, schema: { params: executionParams } },
    async (req, reply) => {
      if (req.body !== undefined) {
        const v = validateResume(req.body);
        if ((v as { error?: Error }).error) throw Object.assign((v as { error: Error }).error, { validationContext: 'body' });
      }
      const ifMatch = req.headers['if-match'];
      if (typeof ifMatch !== 'string' || ifMatch.trim() === '')
        throw new ProblemError('precondition-required', 'resume needs If-Match with the ETag of the status you saw');
      const r = ctx.executor.resume(req.params.id, ifMatch);
      switch (r.kind) {
        case 'not_found':
          throw notFound(req.params.id);
        case 'precondition_failed':
          throw new ProblemError('precondition-failed', `the status has moved on: its ETag is now "${r.current}"`, {
            currentSeq: r.current,
          });
        case 'conflict':
          throw new ProblemError(r.why === 'presence' ? 'presence-required' : 'conflict', r.message);
        case 'ok':
          return sendStatus(reply, r.status, 202);
      }
    },
  );

  registerStop(http, ctx);

  http.get('/v1/safety-limits', async () => ctx.device.limitsInForce);
  // Tries to change the limits are refused (a loosening one is a safety event): see runtime/supervisor/limit-routes.ts.
  registerLimitRoutes(http, { supervisor: ctx.supervisor, limitSets: () => ctx.device.limitSets });
  http.get('/v1/capabilities', async () => ctx.device.capabilities);

  http.get<{ Querystring: { since?: string } }>('/v1/recalls', { schema: { querystring: recallsQuery } }, async (req) => {
    const since = req.query.since === undefined ? undefined : parseRecallsSince(req.query.since);
    return ctx.executor.recalls.since(since);
  });

  http.post('/v1/incidents', { config: { idempotency: 'required' }, schema: { body: incidentReportSchema } }, async (req, reply) => {
    const doc = req.body as { id: string };
    const stored = storeIncident(ctx.db, doc, now());
    return reply.code(202).send({ core: '0.2.0', kind: 'IncidentReceipt', id: doc.id, received: stored ? 'stored' : 'duplicate' });
  });
}

/**
 * Stop lives in its own scope: no token, an optional Idempotency-Key, and any body (or none) is accepted:
 * the stop itself happens in onRequest, before the body is read, so nothing about the body can delay it.
 */
function registerStop(http: FastifyInstance, ctx: AppContext): void {
  http.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'string', bodyLimit: 64 * 1024 },
      (_req: FastifyRequest, body: string | Buffer, done: (err: Error | null, v?: unknown) => void) => {
        try {
          const text = body.toString();
          done(null, text.trim() === '' ? undefined : parseJson(text));
        } catch {
          done(null, undefined);
        }
      },
    );
    scope.post<IdParams>(
      '/v1/executions/:id/stop',
      {
        config: { idempotency: 'optional' },
        onRequest: async (req) => {
          const id = (req.params as { id?: string }).id ?? '';
          (req as FastifyRequest & { stopped?: ExecutionStatus }).stopped = ctx.executor.stop(id);
        },
      },
      async (req, reply) => {
        const status = (req as FastifyRequest & { stopped?: ExecutionStatus }).stopped;
        if (!status) throw notFound(req.params.id);
        return sendStatus(reply, status, 202);
      },
    );
  });
}
