/**
 * The Core (executor) API, semantics §6: executions (start, status with ETag, stop, resume with If-Match, log),
 * safety limits, capabilities, recalls and incidents. Start and resume need the `cook` scope, status and log
 * `read`; the rest need no token. Every POST takes an Idempotency-Key (stop: accepted, never needed, and
 * stop never depends on its body: heat is cut before the body is even read).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { ProblemError } from '../../platform/http/problems.js';
import { createValidatorCompiler } from '../../platform/http/validation.js';
import type { AppContext } from '../app/context.js';
import type { ExecuteRequest, ExecutionStatus } from '../executor/types.js';
import { storeIncident } from '../store/recalls.js';
import { registerLimitRoutes } from '../supervisor/limit-routes.js';
import { parseRecallsSince } from './recalls-since.js';
import { executeRequestSchema, executionParams, incidentReportSchema, recallsQuery, resumeRequestSchema } from './schemas.js';
import { acceptAnyStopBody, reasonOf, stopBodyOf } from './stop-body.js';

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

  // Synchronous: it sends before it returns (a throw is answered as a rejection would be), so a status read pays
  // no promise for its handler.
  http.get<IdParams>('/v1/executions/:id', { config: { scope: 'read' }, schema: { params: executionParams } }, (req, reply) => {
    const status = ctx.executor.status(req.params.id);
    if (!status) throw notFound(req.params.id);
    const inm = req.headers['if-none-match'];
    if (typeof inm === 'string' && inm.split(',').some((t) => t.trim() === `"${status.seq}"`)) {
      reply.code(304).header('etag', `"${status.seq}"`).send();
      return;
    }
    sendStatus(reply, status);
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
 * Stop lives in its own scope: no token, and any body (or none), of any type or size, is accepted: the stop
 * itself happens in onRequest, before the body is read, and the body is then drained without being kept
 * (runtime/http/stop-body.ts). A body that is not a StopRequest is a warning in the log, never a refusal.
 * An Idempotency-Key is accepted and not needed: stop is idempotent by itself (a repeated stop answers the
 * same final status), so no key, malformed or reused, can turn it into an error.
 */
function registerStop(http: FastifyInstance, ctx: AppContext): void {
  http.register(async (scope) => {
    acceptAnyStopBody(scope);
    scope.post<IdParams>(
      '/v1/executions/:id/stop',
      {
        onRequest: async (req) => {
          const id = (req.params as { id?: string }).id ?? '';
          (req as FastifyRequest & { stopped?: ExecutionStatus }).stopped = ctx.executor.stop(id);
        },
      },
      async (req, reply) => {
        const status = (req as FastifyRequest & { stopped?: ExecutionStatus }).stopped;
        if (!status) throw notFound(req.params.id);
        const body = stopBodyOf(req);
        const reason = reasonOf(body, STOP_REQUEST_MEMBERS);
        if (body.warnings.length > 0)
          req.log.warn({ execution: status.id, warnings: body.warnings }, 'stop request with a malformed body (stopped anyway)');
        if (reason !== undefined) req.log.info({ execution: status.id, reason }, 'stop requested');
        return sendStatus(reply, status, 202);
      },
    );
  });
}

/** The members of a StopRequest (core.schema.json); any other is warned about. */
const STOP_REQUEST_MEMBERS = ['core', 'kind', 'execution', 'requestedBy', 'reason'];
