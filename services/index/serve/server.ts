/**
 * `hearth index serve`: the static files of a built index plus the dynamic endpoints GET /v1/search,
 * GET /v1/offers, POST /v1/match and /v1/mcp. Dynamic endpoints are limited per client IP (token bucket, 429 `rate-limited`
 * with Retry-After); static files are not. Errors are problem documents.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { problem } from '../../../core/problems.js';
import { createHttpApp } from '../../../platform/http/app.js';
import { PROBLEM_JSON, ProblemError } from '../../../platform/http/problems.js';
import type { AdviceRequest } from '../../advice/index.js';
import { adviceRequestSchema } from '../../advice/request-schema.js';
import { adviseStateless } from '../../advice/stateless.js';
import { type OfferQuery, offerQueryFromUrl, searchOffers } from '../../market/search.js';
import { markRecalled } from '../catalog.js';
import { agentCard, DEFAULT_SITE_NAME, PATHS } from '../documents.js';
import { MatchInputError, matchKitchen } from '../search/match.js';
import { lang, paging, searchQuery } from '../search/search-query.js';
import { INDEX_GRAPHQL_PATH, mountIndexGraphql } from './graphql.js';
import { mountMcp } from './mcp.js';
import { NeedPages } from './needs.js';
import { OfferPages } from './offers.js';
import { RateLimiter } from './rate-limit.js';
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

const DYNAMIC = new Set(['/v1/search', '/v1/match', '/v1/offers', '/v1/mcp', INDEX_GRAPHQL_PATH]);

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
    const p = path.replace(/\/+$/, '');
    if (!DYNAMIC.has(p) && !p.startsWith('/v1/advise/')) return;
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

  // The offers of the market pages, searchable (services/market/search.ts); the pages themselves stay static.
  const offers = new OfferPages(opts.dir, () => store.get().version);
  app.get('/v1/offers', async (req) => {
    let q: OfferQuery;
    try {
      q = offerQueryFromUrl((req.query ?? {}) as Record<string, unknown>);
    } catch (err) {
      throw new ProblemError('validation-failed', (err as Error).message);
    }
    return { version: store.get().version, ...searchOffers(offers.get(), q) };
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

  // Stateless advice (spec §4.2): only what the request carries; nothing is kept.
  app.post<{ Params: { intent: string } }>(
    '/v1/advise/:intent',
    {
      schema: {
        params: { type: 'object', properties: { intent: { type: 'string', pattern: '^[a-z_]{2,40}$' } } },
        body: adviceRequestSchema,
      },
    },
    async (req) => adviseStateless(() => store.get(), now, { ...(req.body as AdviceRequest), intent: req.params.intent }),
  );

  // The open needs of the relief page, for MCP relief_needs; the page itself stays static.
  const needs = new NeedPages(opts.dir, () => store.get().version);
  const closeMcp = mountMcp(
    app,
    store,
    now,
    opts.mcpAllowedHosts,
    () => offers.get(),
    () => needs.get(),
  );
  const graphql = mountIndexGraphql(app, () => store.get(), base);
  app.addHook('onClose', async () => {
    await closeMcp();
    await graphql.close();
  });

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
