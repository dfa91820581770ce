/** The signed recall feed and the registry's signing key. */
import type { FastifyInstance } from 'fastify';
import { publicRecord } from '../../../core/keys.js';
import { compareRfc3339, parseRfc3339 } from '../../../core/time.js';
import { ProblemError } from '../../../platform/http/problems.js';
import { REGISTRY_SPEC_VERSION } from '../types.js';
import { type RegistryContext, sendDocument } from './context.js';

export function registerRecallRoutes(app: FastifyInstance, ctx: RegistryContext): void {
  app.get('/v1/recalls.json', async (req, reply) => sendDocument(ctx, 'recalls', req, reply));

  /**
   * The recall feed as the Core API polls it: an array of Recall documents, oldest first. `since` is an
   * RFC 3339 time (recalls issued after it) or a sequence number (recalls with a greater `seq`).
   */
  app.get('/v1/recalls', async (req) => {
    const q = req.query as Record<string, unknown>;
    const since = q.since;
    if (since === undefined) return (await ctx.store.recalls(0)).map((r) => r.doc);
    if (typeof since === 'string' && /^[0-9]{1,15}$/.test(since)) return (await ctx.store.recalls(Number(since))).map((r) => r.doc);
    if (typeof since !== 'string' || parseRfc3339(since) === null) {
      throw new ProblemError('bad-request', 'since must be an RFC 3339 time with offset or a recall sequence number');
    }
    return (await ctx.store.recalls(0)).filter((r) => (compareRfc3339(r.doc.issuedAt, since) ?? 0) > 0).map((r) => r.doc);
  });

  app.get('/v1/registry/keys.json', async () => ({ svc: REGISTRY_SPEC_VERSION, keys: [publicRecord(ctx.key)] }));
}
