/**
 * `hearth recipe-api serve`: the read-only recipe API (spec §4.5) over an in-memory catalog. All answers are
 * JSON; errors are `{error, detail}` with a 4xx or 5xx status. CORS is open (`*`), preflight included. An
 * optional per-IP limiter (off by default) answers 429 with Retry-After. /api/openapi.json is generated from
 * the same route table that serves the requests.
 */
import { createRequire } from 'node:module';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { type AjvRecipe, ajvFor, validatorOf } from '../../platform/prebuilt-validators.js';
import { RateLimiter } from '../index/serve/rate-limit.js';
import { type Catalog, type LoadOptions, loadCatalog } from './catalog.js';
import { type HubTokens, openHubTokens } from './hub-tokens.js';
import { ApiError, type Query } from './params.js';
import { mountRecipeMcp } from './routes/mcp.js';
import { openApiDocument } from './routes/openapi.js';
import { OPERATIONS } from './routes/operations.js';
import type { Json } from './rows.js';
import { catalogOrder } from './select/select.js';

export const API_VERSION = '1.0.0';

export interface RecipeApiOptions extends LoadOptions {
  dir: string;
  /** Per-IP limit; undefined: no limiter (the default). */
  rateLimit?: { ratePerSecond: number; burst: number; now?: () => number };
  /** Static bearer tokens that open /mcp. */
  mcpTokens?: readonly string[];
  /** A hub's data directory (or store file): every valid token that hub issued also opens /mcp. */
  hubData?: string;
  logger?: boolean;
}

export interface RecipeApi {
  app: FastifyInstance;
  catalog: Catalog;
}

/**
 * How the POST bodies' schemas are compiled. `npm run build` compiles them ahead of time with the hub's route
 * validators (scripts/build-route-validators.mjs), so a start neither loads ajv nor compiles; a schema changed
 * since the build is compiled at run time, ajv loaded then.
 */
export const BODY_RECIPE: AjvRecipe = { options: { allErrors: false, strict: false, useDefaults: false }, formats: false };

/** The validator of each operation's POST body (the build calls this to hear which schemas to compile). */
export function bodyValidators(): Map<string, ReturnType<typeof validatorOf>> {
  const out = new Map<string, ReturnType<typeof validatorOf>>();
  for (const op of OPERATIONS)
    if (op.body)
      out.set(
        `${op.method} ${op.path}`,
        validatorOf(BODY_RECIPE, op.body, () => ajvFor(BODY_RECIPE)),
      );
  return out;
}

const require = createRequire(import.meta.url);

/**
 * Fastify's compiler factories, handed over so that fastify does not load its own at construction
 * (@fastify/ajv-compiler loads ajv: ~120 ms of a cold start and its code in the heap). No route here declares a
 * schema (the bodies are checked by the prebuilt validators above), so neither is ever called; if one were, the
 * library is loaded then and compiles as fastify would have.
 */
const COMPILERS = {
  buildValidator: (external: unknown, options: unknown) =>
    (require('@fastify/ajv-compiler') as () => (e: unknown, o: unknown) => unknown)()(external, options),
  buildSerializer: (external: unknown, options: unknown) =>
    (require('@fastify/fast-json-stringify-compiler') as () => (e: unknown, o: unknown) => unknown)()(external, options),
};

function send(reply: FastifyReply, status: number, error: string, detail: string) {
  return reply.code(status).type('application/json').send({ error, detail });
}

/**
 * Build the server (not listening). Throws `CatalogError` when a document of `dir` does not load, and
 * `HubTokensError` when `hubData` is not a hub's store.
 */
export function createRecipeApi(opts: RecipeApiOptions): RecipeApi {
  const catalog = loadCatalog(opts.dir, opts);
  // Listings without q are ordered by name: keep that order ready before the first request.
  catalogOrder(catalog.rows, 'name', false);
  const hub: HubTokens | undefined = opts.hubData !== undefined ? openHubTokens(opts.hubData) : undefined;
  const app = Fastify({
    // Fastify's types describe its own ajv compilers; ours have the shape fastify calls (see COMPILERS).
    schemaController: { compilersFactory: COMPILERS } as unknown as FastifyServerOptions['schemaController'],
    logger: opts.logger ?? false,
    bodyLimit: 1024 * 1024,
    forceCloseConnections: true,
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    frameworkErrors: (err, _req, reply) => {
      send(
        reply as unknown as FastifyReply,
        400,
        'bad_request',
        err.code === 'FST_ERR_BAD_URL' ? 'the request URL is malformed' : err.message,
      );
    },
  }) as unknown as FastifyInstance;

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, _req, reply) => {
    if (err instanceof ApiError) return send(reply, err.status, err.error, err.message);
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    if (status >= 500) {
      reply.log.error(err);
      return send(reply, 500, 'internal', 'the server could not answer this request');
    }
    return send(reply, status, status === 413 ? 'too_large' : status === 415 ? 'unsupported_media_type' : 'bad_request', err.message);
  });
  app.setNotFoundHandler((req, reply) =>
    send(reply, 404, 'not_found', `no route ${req.method} ${req.url.split('?')[0]}; see /api/openapi.json`),
  );

  const limiter = opts.rateLimit ? new RateLimiter(opts.rateLimit) : undefined;
  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    reply.header('access-control-allow-origin', '*');
    if (req.method === 'OPTIONS') {
      return reply
        .code(204)
        .header('access-control-allow-methods', 'GET, POST, OPTIONS')
        .header('access-control-allow-headers', req.headers['access-control-request-headers'] ?? 'content-type, authorization')
        .header('access-control-max-age', '86400')
        .send();
    }
    if (limiter) {
      const r = limiter.take(req.ip);
      if (!r.ok) {
        reply.header('retry-after', String(r.retryAfterS));
        return send(reply, 429, 'rate_limited', `too many requests from this address; retry in ${r.retryAfterS} s`);
      }
    }
  });
  // Preflight for every path (the hook answers it).
  app.options('/*', async () => undefined);

  // The two POST bodies' validators on the first POST: they come from the build's file of every route validator
  // (~320 KiB of code, ~8 ms to load), which no GET needs. If they cannot be had, each POST answers 500 and tries
  // again; the first failure is said on stderr, since the logger is off by default and a 500 says nothing more.
  let validators: ReturnType<typeof bodyValidators> | undefined;
  let failureTold = false;
  const bodyValidator = (key: string) => {
    try {
      validators ??= bodyValidators();
    } catch (err) {
      if (!failureTold) {
        failureTold = true;
        process.stderr.write(
          `hearth: recipe API: cannot load the validators of the POST bodies (${(err as Error).message}); POST requests answer 500\n`,
        );
      }
      throw err;
    }
    return validators.get(key);
  };
  for (const op of OPERATIONS) {
    const key = `${op.method} ${op.path}`;
    app.route({
      method: op.method,
      url: op.path.replace(/\{(\w+)\}/g, ':$1'),
      handler: async (req) => {
        const query: Query = { ...(req.query as Query), ...(req.params as Query) };
        const validateBody = op.body ? bodyValidator(key) : undefined;
        if (validateBody && !validateBody(req.body)) {
          const e = validateBody.errors?.[0];
          throw new ApiError(400, 'bad_request', `body ${e?.instancePath || '/'} ${e?.message ?? 'is invalid'}`);
        }
        return op.run(catalog, query, req.body);
      },
    });
  }

  const doc = openApiDocument(OPERATIONS, API_VERSION);
  app.get('/api/openapi.json', async () => doc as Json);

  const closeMcp = mountRecipeMcp(app, () => catalog, OPERATIONS, API_VERSION, { tokens: opts.mcpTokens ?? [], ...(hub ? { hub } : {}) });
  app.addHook('onClose', async () => {
    await closeMcp();
    hub?.close();
  });
  return { app, catalog };
}
