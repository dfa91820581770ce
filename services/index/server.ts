/**
 * `hearth index serve`: the static files of a built index plus the dynamic endpoints GET /v1/search,
 * POST /v1/match and /v1/mcp. Dynamic endpoints are limited per client IP (token bucket, 429 `rate-limited`
 * with Retry-After); static files are not. Errors are problem documents.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { problem } from '../../core/problems.js';
import { createHttpApp } from '../../platform/http/app.js';
import { PROBLEM_JSON, ProblemError } from '../../platform/http/problems.js';
import { markRecalled } from './catalog.js';
import { agentCard, DEFAULT_SITE_NAME, PATHS } from './documents.js';
import { LEVELS, type Level } from './entry.js';
import { MatchInputError, matchKitchen } from './match.js';
import { mountMcp } from './mcp.js';
import { RateLimiter } from './rate-limit.js';
import type { SearchQuery } from './search.js';
import { StaticFiles } from './static.js';
import { CatalogStore } from './store.js';

export interface IndexServerOptions {
  dir: string;
  /** Requests per second per client IP on the dynamic endpoints (default 10). */
  ratePerSecond?: number;
  /** Burst per client IP (default 30). */
  burst?: number;
  /** Public base URL for problem types; default: from the request's Host. */
  baseUrl?: string;
  /** Wall clock (dry runs, reload checks). */
  now?: () => Date;
  /** Monotonic milliseconds for the rate limiter. */
  monotonic?: () => number;
  logger?: boolean;
  /** Host names /v1/mcp accepts (Host and Origin headers); see `mcpAllowedHosts`. Default: any. */
  mcpAllowedHosts?: string[];
}

const DYNAMIC = new Set(['/v1/search', '/v1/match', '/v1/mcp']);

function one(q: Record<string, unknown>, name: string): string | undefined {
  const v = q[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new ProblemError('bad-request', `query parameter ${name} must be given once`);
  return v;
}

function list(q: Record<string, unknown>, name: string): string[] | undefined {
  const v = one(q, name);
  if (v === undefined || v.trim() === '') return undefined;
  return v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function int(q: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
  const v = one(q, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max)
    throw new ProblemError('bad-request', `${name} must be an integer from ${min} to ${max}`);
  return Number(v);
}

function paging(q: Record<string, unknown>): { limit: number; offset: number } {
  const limit = int(q, 'limit', 1, 100) ?? 20;
  const cursor = int(q, 'cursor', 0, 1_000_000);
  const offset = int(q, 'offset', 0, 1_000_000) ?? cursor ?? 0;
  return { limit, offset };
}

function lang(q: Record<string, unknown>): string {
  const l = one(q, 'lang') ?? 'en';
  if (!/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(l)) throw new ProblemError('bad-request', 'lang must be a BCP 47 language tag');
  return l;
}

export function searchQuery(raw: unknown): SearchQuery {
  const q = (raw ?? {}) as Record<string, unknown>;
  const out: SearchQuery = { ...paging(q), lang: lang(q) };
  const text = one(q, 'q');
  if (text !== undefined) {
    if (text.length > 200) throw new ProblemError('bad-request', 'q is longer than 200 characters');
    out.q = text;
  }
  const min = one(q, 'min_level');
  if (min !== undefined) {
    if (!(LEVELS as readonly string[]).includes(min))
      throw new ProblemError('bad-request', `min_level must be one of ${LEVELS.join(', ')}`);
    out.minLevel = min as Level;
  }
  const cuisine = list(q, 'cuisine');
  if (cuisine) out.cuisine = cuisine;
  const excluded = list(q, 'exclude_allergens');
  if (excluded) out.excludeAllergens = excluded;
  const sup = one(q, 'supervision');
  if (sup !== undefined) out.supervision = sup;
  return out;
}

/** The index's name from its discovery document (the default when it cannot be read). */
function siteName(dir: string): string {
  try {
    const doc = JSON.parse(readFileSync(join(dir, PATHS.discovery), 'utf8')) as { name?: unknown };
    if (typeof doc.name === 'string' && doc.name !== '') return doc.name;
  } catch {
    // An index without a readable discovery document still answers with the default name.
  }
  return DEFAULT_SITE_NAME;
}

export interface IndexServer {
  app: FastifyInstance;
  store: CatalogStore;
}

/** Build the server (not listening yet). Throws `CatalogLoadError` when `dir` is not a valid built index. */
export function createIndexServer(opts: IndexServerOptions): IndexServer {
  const now = opts.now ?? (() => new Date());
  const store = new CatalogStore(opts.dir, () => now().getTime());
  const app = createHttpApp({
    baseUrl: (req) => opts.baseUrl ?? `${req.protocol}://${req.headers.host ?? 'localhost'}`,
    logger: opts.logger ?? false,
  });
  const base = (req: FastifyRequest) => (opts.baseUrl ?? `${req.protocol}://${req.headers.host ?? 'localhost'}`).replace(/\/+$/, '');
  const limiter = new RateLimiter({
    ratePerSecond: opts.ratePerSecond ?? 10,
    burst: opts.burst ?? 30,
    ...(opts.monotonic ? { now: opts.monotonic } : {}),
  });

  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split('?')[0] ?? '';
    if (!DYNAMIC.has(path.replace(/\/+$/, ''))) return;
    reply.header('access-control-allow-origin', '*');
    const r = limiter.take(req.ip);
    if (!r.ok) {
      const doc = problem(
        base(req),
        'rate-limited',
        `too many requests from this address; retry in ${r.retryAfterS} s (use the dump and the changes feed for bulk access)`,
      );
      return reply.code(429).header('retry-after', String(r.retryAfterS)).type(PROBLEM_JSON).send(doc);
    }
  });

  app.get('/v1/search', async (req) => {
    const q = searchQuery(req.query);
    const cat = store.get();
    const r = cat.search.search(q);
    return { version: cat.version, ...r, items: markRecalled(cat, r.items) };
  });

  app.post('/v1/match', async (req) => {
    const q = (req.query ?? {}) as Record<string, unknown>;
    const cat = store.get();
    try {
      const r = matchKitchen(cat, req.body, { lang: lang(q), ...paging(q), now: now() });
      return { version: cat.version, ...r };
    } catch (err) {
      if (err instanceof MatchInputError) throw new ProblemError('validation-failed', err.message);
      throw err;
    }
  });

  const closeMcp = mountMcp(app, store, now, opts.mcpAllowedHosts);
  app.addHook('onClose', async () => closeMcp());

  // The card is built per request from the public base URL (`--base-url`, else the request's Host), so its
  // URLs are absolute even for an index built without --base-url.
  const name = siteName(opts.dir);
  app.get(`/${PATHS.agentCard}`, async (req, reply) =>
    reply.header('cache-control', 'public, max-age=60, must-revalidate').send(agentCard({ name, baseUrl: base(req) }) ?? {}),
  );

  const files = new StaticFiles(opts.dir, () => store.get().version);
  app.get('/*', (req, reply) => files.handle(req, reply));
  return { app, store };
}
