/** Registry endpoints: the document, search, lookup, validate, publish and status changes. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { checkRegistryVersion } from '../../../core/registry-names.js';
import { ProblemError } from '../../../platform/http/problems.js';
import { recallDocument } from '../documents.js';
import { ENTRY_STATUSES, type EntryStatus, type RegistryEntry, type SearchQuery } from '../types.js';
import { namespaceCovered, namespaceOf, type RecipeRef, validateRegistryEntry } from '../validate.js';
import { checkContext, objectBody, type RegistryContext, requireToken, sendDocument, sendInvalid, tokenFor, tokenOf } from './context.js';

export const DEFAULT_SEARCH_LIMIT = 100;
export const MAX_SEARCH_LIMIT = 1000;

function bad(detail: string): ProblemError {
  return new ProblemError('bad-request', detail);
}

function one(v: unknown, name: string): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw bad(`query parameter ${name} may be given once`);
  return v;
}

/** Parse the search query string; bad values are 400 problems, never guesses. */
export function parseSearch(query: Record<string, unknown>): SearchQuery {
  const known = new Set(['kind', 'q', 'status', 'include_deleted', 'limit']);
  for (const k of Object.keys(query)) if (!known.has(k)) throw bad(`unknown query parameter ${k}`);
  const out: SearchQuery = { limit: DEFAULT_SEARCH_LIMIT };
  const kind = one(query.kind, 'kind');
  if (kind !== undefined) {
    if (kind.length === 0 || kind.length > 100) throw bad('kind must be 1 to 100 characters');
    out.kind = kind;
  }
  const q = one(query.q, 'q');
  if (q !== undefined) {
    if (q.length > 200) throw bad('q must be at most 200 characters');
    out.q = q;
  }
  const status = one(query.status, 'status');
  if (status !== undefined) {
    if (!(ENTRY_STATUSES as readonly string[]).includes(status)) throw bad(`status must be one of ${ENTRY_STATUSES.join(', ')}`);
    out.status = status as EntryStatus;
  }
  const del = one(query.include_deleted, 'include_deleted');
  if (del !== undefined) {
    if (del !== 'true' && del !== 'false') throw bad('include_deleted must be true or false');
    out.includeDeleted = del === 'true';
  }
  const limit = one(query.limit, 'limit');
  if (limit !== undefined) {
    if (!/^[0-9]{1,4}$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_SEARCH_LIMIT)
      throw bad(`limit must be an integer from 1 to ${MAX_SEARCH_LIMIT}`);
    out.limit = Number(limit);
  }
  return out;
}

interface StatusBody {
  status: EntryStatus;
  version?: string;
  message?: string;
}

function parseStatusBody(body: unknown): StatusBody {
  const b = objectBody(body);
  const errors: { in: string; pointer: string; message: string }[] = [];
  for (const k of Object.keys(b))
    if (!['status', 'version', 'message'].includes(k)) errors.push({ in: 'body', pointer: `/${k}`, message: 'unknown member' });
  if (!(ENTRY_STATUSES as readonly unknown[]).includes(b.status))
    errors.push({ in: 'body', pointer: '/status', message: `must be one of ${ENTRY_STATUSES.join(', ')}` });
  if (b.version !== undefined && checkRegistryVersion(b.version) !== null)
    errors.push({ in: 'body', pointer: '/version', message: 'must be an exact version' });
  if (b.message !== undefined && (typeof b.message !== 'string' || b.message.length > 500)) {
    errors.push({ in: 'body', pointer: '/message', message: 'must be a string of at most 500 characters' });
  }
  if (errors.length > 0) throw new ProblemError('validation-failed', `${errors[0]?.pointer}: ${errors[0]?.message}`, { errors });
  const out: StatusBody = { status: b.status as EntryStatus };
  if (b.version !== undefined) out.version = b.version as string;
  if (b.message !== undefined) out.message = b.message as string;
  return out;
}

type NameParams = { namespace: string; name: string };

export function registerRegistryRoutes(app: FastifyInstance, ctx: RegistryContext): void {
  const auth = requireToken(ctx);

  app.get('/v1/registry.json', async (req, reply) => sendDocument(ctx, 'registry', req, reply));

  app.get('/v1/registry/entries', async (req) => ctx.store.search(parseSearch(req.query as Record<string, unknown>)));

  app.get('/v1/registry/entries/:namespace/:name', async (req: FastifyRequest<{ Params: NameParams }>) => {
    const name = `${req.params.namespace}/${req.params.name}`;
    const versions = await ctx.store.versions(name);
    if (versions.length === 0) throw new ProblemError('not-found', `no entry named ${name}`);
    return versions;
  });

  app.post('/v1/registry/validate', async (req) => validateRegistryEntry(req.body, checkContext(ctx, await tokenOf(ctx, req))));

  app.post('/v1/registry/publish', { onRequest: auth, config: { idempotency: 'required' } }, async (req, reply) => {
    const token = tokenFor(req);
    const found: { recipes?: RecipeRef[] } = {};
    const result = await validateRegistryEntry(req.body, checkContext(ctx, token, { skipDuplicate: true }), found);
    if (!result.valid) return sendInvalid(ctx, reply, result);
    const doc = req.body as Record<string, unknown>;
    const name = doc.name as string;
    const now = ctx.now().toISOString();
    const proof = await ctx.store.proofOf(namespaceOf(name));
    const entry: RegistryEntry = { ...(doc as RegistryEntry), status: 'active', publishedAt: now };
    if (proof) entry.verification = { method: proof.method, verifiedAt: proof.verifiedAt, by: ctx.registry };
    else delete entry.verification;
    // The recipes a collection holds are recorded by the registry, never taken from the publisher.
    if (found.recipes) entry['x-recipes'] = found.recipes;
    else delete entry['x-recipes'];
    if ((await ctx.store.insertEntry(entry)) === 'exists') {
      throw new ProblemError('conflict', `${name} ${entry.version} already exists; a name and version are never reused`, {
        name,
        version: entry.version,
      });
    }
    const [ns, short] = name.split('/') as [string, string];
    reply.header('location', `/v1/registry/entries/${ns}/${short}`);
    return reply.code(201).send(entry);
  });

  app.patch<{ Params: NameParams }>(
    '/v1/registry/entries/:namespace/:name/status',
    { onRequest: auth, config: { idempotency: 'required' } },
    async (req) => {
      const token = tokenFor(req);
      const body = parseStatusBody(req.body);
      const name = `${req.params.namespace}/${req.params.name}`;
      if (!namespaceCovered(req.params.namespace, token.admin ? 'any' : token.namespaces)) {
        throw new ProblemError('forbidden', `the publish token does not cover the namespace ${req.params.namespace}`);
      }
      const at = ctx.now().toISOString();
      const change = {
        name,
        status: body.status,
        at,
        ...(body.version !== undefined ? { version: body.version } : {}),
        ...(body.message !== undefined ? { message: body.message } : {}),
      };
      const result = await ctx.store.setStatus(change, (changed, seq) => recallDocument(ctx, changed, seq, at, body.message));
      if (!result)
        throw new ProblemError(
          'not-found',
          body.version === undefined ? `no entry named ${name}` : `no version ${body.version} of ${name}`,
        );
      return { name, status: body.status, updated: result.changed, ...(result.recall ? { recall: result.recall.doc } : {}) };
    },
  );
}
