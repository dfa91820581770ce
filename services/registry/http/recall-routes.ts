/** The signed recall feed and the registry's signing key. */
import type { FastifyInstance } from 'fastify';
import { publicRecord } from '../../../core/keys.js';
import { ProblemError } from '../../../platform/http/problems.js';
import { REGISTRY_SPEC_VERSION } from '../types.js';
import type { RegistryContext } from './context.js';

export function registerRecallRoutes(app: FastifyInstance, ctx: RegistryContext): void {
  app.get('/v1/recalls.json', async (_req, reply) => reply.type('application/json').send(await ctx.documents.recallFeed()));

  /** Recalls after sequence number `since` (default 0), oldest first; `to` is the newest sequence number. */
  app.get('/v1/recalls', async (req) => {
    const q = req.query as Record<string, unknown>;
    const since = q.since === undefined ? '0' : q.since;
    if (typeof since !== 'string' || !/^[0-9]{1,15}$/.test(since))
      throw new ProblemError('bad-request', 'since must be a non-negative integer sequence number');
    const list = await ctx.store.recalls(Number(since));
    return { svc: REGISTRY_SPEC_VERSION, from: Number(since), to: await ctx.store.lastRecallSeq(), recalls: list.map((r) => r.doc) };
  });

  app.get('/v1/registry/keys.json', async () => ({ svc: REGISTRY_SPEC_VERSION, keys: [publicRecord(ctx.key)] }));
}
