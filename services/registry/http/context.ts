/** What the route modules share: the store, the documents, the prover, the clock and the token check. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KeyFile } from '../../../core/keys.js';
import { problem } from '../../../core/problems.js';
import type { IdempotencyKeys } from '../../../platform/http/idempotency.js';
import { ProblemError } from '../../../platform/http/problems.js';
import type { Documents } from '../documents.js';
import type { NamespaceProver } from '../proof/namespaces.js';
import { tokenHash } from '../proof/namespaces.js';
import type { RegistryStore } from '../store/store.js';
import type { TokenRecord } from '../types.js';
import type { EntryCheckContext, FetchResult } from '../validate.js';
import '../../../platform/http/types.js';

export interface RegistryContext {
  store: RegistryStore;
  idempotency: IdempotencyKeys;
  documents: Documents;
  prover: NamespaceProver;
  key: KeyFile;
  now: () => Date;
  /** Public base URL of this registry. */
  registry: string;
  fetchCollection: (url: string) => Promise<FetchResult>;
}

const tokens = new WeakMap<FastifyRequest, TokenRecord>();

function bearerOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(header);
  return m ? m[1] : '';
}

/** Look up the request's bearer token; null when none or unknown. */
export async function tokenOf(ctx: RegistryContext, req: FastifyRequest): Promise<TokenRecord | null> {
  const presented = bearerOf(req.headers.authorization);
  if (!presented) return null;
  return ctx.store.tokenByHash(tokenHash(presented));
}

/** Route `onRequest` hook: a valid publish token is required (401 otherwise). */
export function requireToken(ctx: RegistryContext) {
  return async (req: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const presented = bearerOf(req.headers.authorization);
    const rec = presented ? await ctx.store.tokenByHash(tokenHash(presented)) : null;
    if (!rec) {
      const detail =
        presented === undefined
          ? 'this request needs a publish token (Authorization: Bearer …)'
          : 'the publish token is unknown or malformed';
      const challenge = presented === undefined ? 'Bearer realm="svc-registry"' : 'Bearer realm="svc-registry", error="invalid_token"';
      throw new ProblemError('unauthorized', detail, {}, { 'WWW-Authenticate': challenge });
    }
    tokens.set(req, rec);
    req.principal = { id: rec.id, name: rec.admin ? 'admin' : 'publisher', kind: 'agent', scopes: rec.admin ? ['admin'] : ['publish'] };
  };
}

/** The token a `requireToken` route was called with. */
export function tokenFor(req: FastifyRequest): TokenRecord {
  const rec = tokens.get(req);
  if (!rec) throw new ProblemError('unauthorized', 'this request needs a publish token');
  return rec;
}

export function coveredBy(rec: TokenRecord | null): readonly string[] | 'any' | null {
  if (!rec) return null;
  return rec.admin ? 'any' : rec.namespaces;
}

export function checkContext(ctx: RegistryContext, rec: TokenRecord | null, opts: { skipDuplicate?: boolean } = {}): EntryCheckContext {
  return {
    tokenNamespaces: coveredBy(rec),
    isProven: async (ns) => (await ctx.store.proofOf(ns)) !== null,
    exists: opts.skipDuplicate ? async () => false : (name, version) => ctx.store.hasVersion(name, version),
    fetchCollection: ctx.fetchCollection,
  };
}

/** Reject a body that is not a JSON object with a problem document. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ProblemError('validation-failed', 'the body must be a JSON object', {
      errors: [{ in: 'body', pointer: '', message: 'must be an object' }],
    });
  }
  return body as Record<string, unknown>;
}

/** Answer a published document with its ETag; 304 when the client already has it. */
export async function sendDocument(
  ctx: RegistryContext,
  name: 'registry' | 'directory' | 'recalls',
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const doc = await ctx.documents.get(name);
  reply.header('etag', doc.etag).header('cache-control', 'no-cache');
  const inm = req.headers['if-none-match'];
  if (typeof inm === 'string' && inm.split(',').some((t) => t.trim() === doc.etag)) return reply.code(304).send();
  return reply.type('application/json').send(doc.body);
}

/**
 * A refused publish (422): the spec's ValidationResult (`valid: false`, `issues`) inside an RFC 9457 problem
 * document of type `validation-failed`, so the body is both what the spec names and a problem like every error.
 */
export function sendInvalid(
  ctx: RegistryContext,
  reply: FastifyReply,
  result: { valid: boolean; issues: { code: string; path: string; message: string }[] },
): FastifyReply {
  const first = result.issues[0];
  const doc = problem(ctx.registry, 'validation-failed', first ? `${first.path || '/'}: ${first.message}` : 'the entry is not valid');
  return reply
    .code(422)
    .type('application/problem+json')
    .send({ ...doc, ...result });
}
