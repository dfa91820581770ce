/**
 * Principal keys over REST (admin scope): `GET /svc/v1/principal-keys` lists them; a person's admin token
 * registers one with `POST /svc/v1/principal-keys` (a public key record from `hearth keygen`, whose `actor` is
 * the principal's id) and revokes one with `POST /svc/v1/principal-keys/{kid}/revoke`. An agent can do
 * neither (403 `not-human-approver`): a key decides whose mandates an agent may act under.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requirePrincipal } from '../../../platform/http/auth.js';
import { ProblemError } from '../../../platform/http/problems.js';
import { PrincipalKeyError, type PrincipalKeyStore } from '../../store/principal-keys.js';
import { PREFIX } from '../sessions/index.js';

const kidParams = { type: 'object', required: ['kid'], properties: { kid: { type: 'string', minLength: 1, maxLength: 200 } } } as const;
const keyBody = { type: 'object', maxProperties: 20 } as const;

function person(req: FastifyRequest): string {
  const p = requirePrincipal(req);
  if (p.kind !== 'human') throw new ProblemError('not-human-approver', 'only a person registers or revokes principal keys');
  return p.id;
}

function keyProblem(err: unknown): never {
  if (err instanceof PrincipalKeyError) {
    if (err.why === 'unknown') throw new ProblemError('not-found', err.message);
    if (err.why === 'conflict') throw new ProblemError('conflict', err.message);
    throw new ProblemError('validation-failed', err.message);
  }
  throw err;
}

export function registerPrincipalKeyRoutes(http: FastifyInstance, keys: PrincipalKeyStore): void {
  http.get(`${PREFIX}/principal-keys`, { config: { scope: 'admin' } }, async () => ({ items: keys.list() }));
  http.post(
    `${PREFIX}/principal-keys`,
    { config: { scope: 'admin', idempotency: 'required' }, schema: { body: keyBody } },
    async (req, reply) => {
      const by = person(req);
      try {
        const rec = keys.add(req.body, by);
        return reply
          .code(201)
          .header('location', `${PREFIX}/principal-keys/${encodeURIComponent(rec.kid)}`)
          .send(rec);
      } catch (err) {
        keyProblem(err);
      }
    },
  );
  http.post<{ Params: { kid: string } }>(
    `${PREFIX}/principal-keys/:kid/revoke`,
    { config: { scope: 'admin', idempotency: 'required' }, schema: { params: kidParams } },
    async (req) => {
      person(req);
      try {
        return keys.revoke(req.params.kid);
      } catch (err) {
        keyProblem(err);
      }
    },
  );
}
