/**
 * Hub REST for sessions and tasks under `/svc/v1` (spec §4.3, semantics §8). Creating and driving a session
 * needs `cook`, reading needs `read`; every POST takes an Idempotency-Key. A confirmation completed by a
 * person answers 200; one prepared by an agent answers 202 with the session `awaiting_confirmation`.
 */
import type { FastifyInstance } from 'fastify';
import { ProblemError } from '../../../platform/http/problems.js';
import { SESSION_MODES } from '../types.js';
import { RULE_ID } from './rules.js';
import type { CreateSessionInput, SessionService } from './sessions.js';
import { respondToTask, type TaskAnswer } from './tasks.js';

export const PREFIX = '/svc/v1';

const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } } as const;
const cookPost = { scope: 'cook', idempotency: 'required' } as const;

/** A new session: the body of `POST /svc/v1/sessions` and the input of the MCP tool `create_session`. */
export const createSessionSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['recipes', 'serveAt', 'mode'],
  properties: {
    recipes: {
      type: 'array',
      minItems: 1,
      maxItems: 10,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['recipeId'],
        properties: {
          recipeId: { type: 'string', minLength: 1, maxLength: 100 },
          servings: { type: 'number', exclusiveMinimum: 0, maximum: 1000 },
        },
      },
    },
    serveAt: { type: 'string', format: 'date-time', maxLength: 40 },
    mode: { enum: [...SESSION_MODES] },
  },
} as const;

export const rulesSchema = { type: 'array', maxItems: 100, items: { type: 'string', pattern: RULE_ID } } as const;

const confirmBody = {
  type: 'object',
  additionalProperties: false,
  required: ['acknowledgedRules'],
  properties: { acknowledgedRules: rulesSchema },
} as const;
const abortBody = { type: 'object', additionalProperties: false, properties: { reason: { type: 'string', maxLength: 500 } } } as const;
const respondBody = {
  type: 'object',
  additionalProperties: false,
  required: ['answer'],
  properties: { answer: { enum: ['yes', 'no'] }, acknowledgedRules: rulesSchema, note: { type: 'string', maxLength: 500 } },
} as const;

type Id = { Params: { id: string } };

export function registerSessionRoutes(http: FastifyInstance, svc: SessionService): void {
  http.post(`${PREFIX}/sessions`, { config: cookPost, schema: { body: createSessionSchema } }, async (req, reply) => {
    const principal = req.principal;
    if (!principal) throw new Error('unreachable: scope checked');
    const session = svc.create(req.body as CreateSessionInput, principal);
    return reply.code(201).header('location', `${PREFIX}/sessions/${session.id}`).send(session);
  });

  http.get(`${PREFIX}/sessions`, { config: { scope: 'read' } }, async () => ({ items: svc.sessions.list() }));

  http.get<Id>(`${PREFIX}/sessions/:id`, { config: { scope: 'read' }, schema: { params: idParams } }, async (req) =>
    svc.get(req.params.id),
  );

  http.post<Id>(
    `${PREFIX}/sessions/:id/confirm`,
    { config: cookPost, schema: { params: idParams, body: confirmBody } },
    async (req, reply) => {
      const principal = req.principal;
      if (!principal) throw new Error('unreachable: scope checked');
      const r = svc.confirm(req.params.id, (req.body as { acknowledgedRules: string[] }).acknowledgedRules, principal);
      if (r.completed) return reply.code(200).send(r.session);
      return reply.code(202).send({ ...r.session, task: r.task });
    },
  );

  const action = (name: 'start' | 'pause' | 'resume' | 'abort') =>
    http.post<Id>(
      `${PREFIX}/sessions/:id/${name}`,
      { config: cookPost, schema: { params: idParams, ...(name === 'abort' ? { body: abortBody } : {}) } },
      async (req, reply) => {
        const principal = req.principal;
        if (!principal) throw new Error('unreachable: scope checked');
        const id = req.params.id;
        const session =
          name === 'start'
            ? svc.start(id, principal)
            : name === 'pause'
              ? svc.pause(id)
              : name === 'resume'
                ? svc.resume(id)
                : svc.abort(id, (req.body as { reason?: string } | undefined)?.reason ?? 'aborted on request', principal);
        return reply.code(202).send(session);
      },
    );
  for (const name of ['start', 'pause', 'resume', 'abort'] as const) action(name);

  http.get<{ Querystring: { session?: string } }>(
    `${PREFIX}/tasks`,
    {
      config: { scope: 'read' },
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { session: { type: 'string', minLength: 1, maxLength: 100 } },
        },
      },
    },
    async (req) => ({ items: svc.tasks.list(req.query.session) }),
  );

  http.get<Id>(`${PREFIX}/tasks/:id`, { config: { scope: 'read' }, schema: { params: idParams } }, async (req) => {
    const t = svc.tasks.get(req.params.id);
    if (!t) throw new ProblemError('not-found', `no task ${req.params.id} on this hub`);
    return t;
  });

  http.post<Id>(`${PREFIX}/tasks/:id/respond`, { config: cookPost, schema: { params: idParams, body: respondBody } }, async (req) => {
    const principal = req.principal;
    if (!principal) throw new Error('unreachable: scope checked');
    return respondToTask(svc, req.params.id, req.body as TaskAnswer, principal);
  });
}
