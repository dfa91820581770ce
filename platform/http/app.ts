/**
 * `createHttpApp`: a Fastify instance with the platform's conventions already in place: problem documents for
 * every error, the strict JSON parser with a body limit, strict body validation, and bad URLs answered 400.
 */
import { createRequire } from 'node:module';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifySchema,
  type FastifySchemaCompiler,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import { problem } from '../../core/problems.js';
import { DEFAULT_BODY_LIMIT, installJsonParser } from './json.js';
import { lazyChildLogger } from './lazy-logger.js';
import { type BaseUrl, baseOf, installProblems, PROBLEM_JSON } from './problems.js';
import { createValidatorCompiler } from './validation.js';
import { endRefusedUpgrade, installUpgradeSockets, installWireChecks, problemClientError } from './wire.js';

export interface HttpAppOptions {
  /** Public base URL of the surface; problem `type`s are `{baseUrl}/errors/<slug>`. */
  baseUrl: BaseUrl;
  /** Largest accepted body in bytes (default 256 KiB). */
  bodyLimit?: number;
  /** A pino logger, `false` (default) for none, or fastify logger options. */
  logger?: FastifyServerOptions['logger'];
  loggerInstance?: FastifyServerOptions['loggerInstance'];
  /** Skip fastify's per-request log lines (default true: surfaces log what matters themselves). */
  disableRequestLogging?: boolean;
}

const require = createRequire(import.meta.url);

/**
 * Fastify's compiler factories. Given ours, fastify does not load its own (@fastify/ajv-compiler, which loads
 * ajv, and fast-json-stringify's): routes validate with createValidatorCompiler, and the serializer compiler
 * is loaded only if a route declares a response schema (none of ours does).
 */
function compilersFactory(validate: FastifySchemaCompiler<FastifySchema>) {
  return {
    buildValidator: () => validate,
    buildSerializer: (externalSchemas: unknown, options: unknown) => {
      const build = require('@fastify/fast-json-stringify-compiler') as () => (s: unknown, o: unknown) => unknown;
      return build()(externalSchemas, options);
    },
  };
}

export function createHttpApp(opts: HttpAppOptions): FastifyInstance {
  const bodyLimit = opts.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const validate = createValidatorCompiler();
  const app = Fastify({
    // Fastify's types describe its own ajv compilers; ours have the shape fastify calls (see compilersFactory).
    schemaController: { compilersFactory: compilersFactory(validate) } as unknown as FastifyServerOptions['schemaController'],
    ...(opts.loggerInstance ? { loggerInstance: opts.loggerInstance } : { logger: opts.logger ?? false }),
    // Without a logger fastify makes no child per request; with one, ours is made when the request logs.
    ...(opts.loggerInstance || opts.logger ? { childLoggerFactory: lazyChildLogger } : {}),
    bodyLimit,
    logController: new LogController({ disableRequestLogging: opts.disableRequestLogging ?? true }),
    return503OnClosing: true,
    // Node's parser-level refusals (bad request line, header overflow, timeout) as problem documents (wire.ts).
    clientErrorHandler: problemClientError(() => baseOf(opts.baseUrl, { headers: {} } as FastifyRequest)),
    // A request without Host reaches fastify, which answers a problem document (Node's own 400 has no body).
    http: { requireHostHeader: false },
    forceCloseConnections: true,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 200 },
    frameworkErrors: (err, req, reply) => {
      const base = baseOf(opts.baseUrl, req);
      endRefusedUpgrade(req.raw, (reply as unknown as FastifyReply).raw);
      (reply as unknown as FastifyReply)
        .code(400)
        .type(PROBLEM_JSON)
        .send(problem(base, 'bad-request', err.code === 'FST_ERR_BAD_URL' ? 'the request URL is malformed' : err.message));
    },
  }) as unknown as FastifyInstance;
  installUpgradeSockets(app);
  app.setValidatorCompiler(validate);
  installProblems(app, { baseUrl: opts.baseUrl });
  installWireChecks(app);
  installJsonParser(app, { bodyLimit });
  return app;
}
