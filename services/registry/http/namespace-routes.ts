/**
 * Namespace proof over HTTP. POST /v1/namespaces/{ns}/challenge `{method: dns|well-known}` answers the token
 * to publish; POST /v1/namespaces/{ns}/verify `{method, idToken?}` checks it and issues a publish token bound
 * to the namespace (plus the namespaces of the caller's token, when one is sent). GET /v1/namespaces/{ns}
 * says whether the namespace is proven here. Challenge and verify are limited per client address (default 30
 * a minute) because they make the registry query DNS or fetch a URL.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ProblemError } from '../../../platform/http/problems.js';
import { issueToken, ProofError } from '../proof/namespaces.js';
import { objectBody, type RegistryContext, tokenOf } from './context.js';
import { rateLimiter } from './rate-limit.js';

type NsParams = { namespace: string };

function asProblem(err: unknown): never {
  if (err instanceof ProofError) {
    if (err.kind === 'bad_request') throw new ProblemError('bad-request', err.message);
    if (err.kind === 'not_found') throw new ProblemError('not-found', err.message);
    throw new ProblemError('namespace-proof-failed', err.message);
  }
  throw err;
}

export function registerNamespaceRoutes(app: FastifyInstance, ctx: RegistryContext, proofsPerMinute = 30): void {
  const limited = { onRequest: rateLimiter({ perMinute: proofsPerMinute, now: () => ctx.now().getTime() }) };
  app.get('/v1/namespaces/:namespace', async (req: FastifyRequest<{ Params: NsParams }>) => {
    const proof = await ctx.store.proofOf(req.params.namespace);
    return proof
      ? { namespace: proof.namespace, proven: true, method: proof.method, verifiedAt: proof.verifiedAt }
      : { namespace: req.params.namespace, proven: false };
  });

  app.post('/v1/namespaces/:namespace/challenge', limited, async (req: FastifyRequest<{ Params: NsParams }>, reply) => {
    const body = objectBody(req.body ?? {});
    try {
      const c = await ctx.prover.challenge(req.params.namespace, typeof body.method === 'string' ? body.method : 'dns');
      return reply.code(201).send({
        namespace: c.namespace,
        domain: c.domain,
        method: c.method,
        token: c.token,
        expiresAt: c.expiresAt,
        instructions: c.instructions,
      });
    } catch (err) {
      return asProblem(err);
    }
  });

  app.post('/v1/namespaces/:namespace/verify', limited, async (req: FastifyRequest<{ Params: NsParams }>, reply) => {
    const body = objectBody(req.body ?? {});
    const method = typeof body.method === 'string' ? body.method : 'dns';
    let proven: string;
    try {
      proven = await ctx.prover.verify(req.params.namespace, method, typeof body.idToken === 'string' ? body.idToken : undefined);
    } catch (err) {
      return asProblem(err);
    }
    const prior = await tokenOf(ctx, req);
    const namespaces = [...(prior && !prior.admin ? prior.namespaces : []), req.params.namespace];
    const { token, record } = await issueToken(ctx.store, namespaces, false, ctx.now());
    return reply.code(201).send({ token, namespaces: record.namespaces, method: proven, verifiedAt: ctx.now().toISOString() });
  });
}
