/** Directory endpoints: the document, validate and publish (organizations only). */
import type { FastifyInstance } from 'fastify';
import type { DirectoryEntry, ProofMethod } from '../types.js';
import { directoryNamespace, validateDirectoryEntry } from '../validate.js';
import { checkContext, type RegistryContext, requireToken, sendDocument, sendInvalid, tokenFor, tokenOf } from './context.js';

const DIRECTORY_METHOD: Record<ProofMethod, string> = { dns_txt: 'dns_txt', http_well_known: 'well_known', github_oidc: 'code_host_oidc' };

export function registerDirectoryRoutes(app: FastifyInstance, ctx: RegistryContext): void {
  app.get('/v1/directory.json', async (req, reply) => sendDocument(ctx, 'directory', req, reply));

  app.post('/v1/directory/validate', async (req) => validateDirectoryEntry(req.body, checkContext(ctx, await tokenOf(ctx, req))));

  app.post('/v1/directory/publish', { onRequest: requireToken(ctx), config: { idempotency: 'required' } }, async (req, reply) => {
    const token = tokenFor(req);
    const result = await validateDirectoryEntry(req.body, checkContext(ctx, token));
    if (!result.valid) return sendInvalid(ctx, reply, result);
    const doc = req.body as DirectoryEntry;
    const now = ctx.now().toISOString();
    const existing = await ctx.store.getDirectoryEntry(doc.id);
    const ns = directoryNamespace(doc.id);
    const proof = ns === null ? null : await ctx.store.proofOf(ns);
    const entry: DirectoryEntry = {
      ...doc,
      status: doc.status ?? 'active',
      addedAt: existing?.addedAt ?? now,
      verification: proof
        ? { method: DIRECTORY_METHOD[proof.method], verifiedAt: proof.verifiedAt, by: ctx.registry }
        : { method: token.admin ? 'vouched_by_program' : 'none', verifiedAt: now, by: ctx.registry },
    };
    if (existing) entry.updatedAt = now;
    else delete entry.updatedAt;
    const outcome = await ctx.store.putDirectoryEntry(entry);
    return reply.code(outcome === 'inserted' ? 201 : 200).send(entry);
  });
}
