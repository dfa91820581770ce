/**
 * Pairing over HTTP. `POST /svc/v1/pair` (no token) starts a request and answers the user code and a polling
 * secret; `POST /svc/v1/pair/token` (no token) polls: 400 `authorization-pending` until a person approves,
 * then 200 with the bearer token once; 403 `pairing-denied`, 400 `pairing-expired`, each with the RFC 8628
 * `error` code. A person approves or rejects with `hearth pair approve|reject CODE`, or over the admin routes
 * `GET /svc/v1/pair/requests` and `POST /svc/v1/pair/requests/{code}/approve|reject` (an `admin` token that is
 * a person's). Polling takes no Idempotency-Key: a replayed answer would have to store the token.
 *
 * A person's app may send the person's Ed25519 public key (`principalKey`, base64url of 32 bytes) with a
 * `human` request: the token answer then names the principal (`principal`, the token id) and the key's `kid`,
 * which is what the person's mandates carry (store.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { PrincipalKind } from '../../platform/http/auth.js';
import { ProblemError } from '../../platform/http/problems.js';
import { PairingError, type PairingStore } from './store.js';

const PREFIX = '/svc/v1';

/** Largest body the unauthenticated pairing routes read (a request is a name, a kind and at most 20 scopes). */
export const PAIR_BODY_LIMIT = 4 * 1024;

export function scopeList(scopes: readonly string[]) {
  return { type: 'array', minItems: 1, maxItems: 20, uniqueItems: true, items: { enum: [...scopes] } } as const;
}

export function pairingProblem(err: unknown): never {
  if (err instanceof PairingError) {
    if (err.why === 'unknown') throw new ProblemError('not-found', err.message);
    if (err.why === 'bad_scope' || err.why === 'bad_key') throw new ProblemError('validation-failed', err.message);
    if (err.why === 'key_taken') throw new ProblemError('conflict', err.message);
    if (err.why === 'too_many') throw new ProblemError('rate-limited', err.message, {}, { 'Retry-After': '60' });
    throw new ProblemError('conflict', err.message);
  }
  throw err;
}

export function registerPairingRoutes(http: FastifyInstance, store: PairingStore, scopes: readonly string[]): void {
  http.post(
    `${PREFIX}/pair`,
    {
      // No token: the body is small by construction, so a large one is refused (413) before it is parsed.
      bodyLimit: PAIR_BODY_LIMIT,
      config: { idempotency: 'optional' },
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'kind', 'scopes'],
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 100 },
            kind: { enum: ['human', 'agent'] },
            scopes: scopeList(scopes),
            principalKey: { type: 'string', minLength: 43, maxLength: 43, pattern: '^[A-Za-z0-9_-]+$' },
          },
        },
      },
    },
    async (req, reply) => {
      const b = req.body as { name: string; kind: PrincipalKind; scopes: string[]; principalKey?: string };
      let r: ReturnType<PairingStore['start']>;
      try {
        r = store.start(b);
      } catch (err) {
        pairingProblem(err);
      }
      return reply.code(201).send({
        user_code: r.userCode,
        poll_secret: r.pollSecret,
        expires_in: r.expiresIn,
        interval: r.interval,
        verification_hint: `a person approves with: hearth pair approve ${r.userCode}`,
      });
    },
  );

  http.post(
    `${PREFIX}/pair/token`,
    {
      bodyLimit: PAIR_BODY_LIMIT,
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['pollSecret'],
          properties: { pollSecret: { type: 'string', minLength: 8, maxLength: 200 } },
        },
      },
    },
    async (req, reply) => {
      let r: ReturnType<PairingStore['poll']>;
      try {
        r = store.poll((req.body as { pollSecret: string }).pollSecret);
      } catch (err) {
        pairingProblem(err);
      }
      reply.header('cache-control', 'no-store');
      switch (r.kind) {
        case 'pending':
          throw new ProblemError('authorization-pending', 'a person has not approved this pairing yet; poll again later', {
            error: 'authorization_pending',
          });
        case 'denied':
          throw new ProblemError('pairing-denied', 'a person rejected this pairing', { error: 'access_denied' });
        case 'expired':
          throw new ProblemError('pairing-expired', 'this pairing expired or its token was already delivered; pair again', {
            error: 'expired_token',
          });
        case 'unknown':
          throw new ProblemError('pairing-expired', 'no pairing has this polling secret', { error: 'invalid_grant' });
        case 'issued':
          return {
            access_token: r.token,
            token_type: 'Bearer',
            scope: r.scopes.join(' '),
            kind: r.principalKind,
            token_id: r.tokenId,
            name: r.name,
            ...(r.principalKeyKid ? { principal: r.tokenId, principal_key_kid: r.principalKeyKid } : {}),
          };
      }
    },
  );

  const personAdmin = (p: { kind: string } | null) => {
    if (p?.kind !== 'human') throw new ProblemError('not-human-approver', 'only a person approves or rejects a pairing');
    return p as { kind: string; name: string; id: string };
  };

  http.get(`${PREFIX}/pair/requests`, { config: { scope: 'admin' } }, async () => ({ items: store.list() }));

  for (const action of ['approve', 'reject'] as const) {
    http.post<{ Params: { code: string } }>(
      `${PREFIX}/pair/requests/:code/${action}`,
      {
        config: { scope: 'admin', idempotency: 'required' },
        schema: {
          params: { type: 'object', required: ['code'], properties: { code: { type: 'string', minLength: 8, maxLength: 12 } } },
          ...(action === 'approve'
            ? {
                body: {
                  type: 'object',
                  additionalProperties: false,
                  properties: { scopes: scopeList(scopes), kind: { enum: ['human', 'agent'] } },
                },
              }
            : {}),
        },
      },
      async (req) => {
        const p = personAdmin(req.principal);
        const by = `${p.name} (${p.id})`;
        const b = (req.body ?? {}) as { scopes?: string[]; kind?: PrincipalKind };
        try {
          return action === 'approve' ? store.approve(req.params.code, by, b) : store.reject(req.params.code, by);
        } catch (err) {
          pairingProblem(err);
        }
      },
    );
  }
}
