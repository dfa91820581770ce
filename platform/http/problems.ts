/**
 * Every error of a surface as an RFC 9457 problem document. `installProblems` sets the error handler and the
 * not-found handler of a Fastify instance so that fastify's own errors (404, 405, 413, 415, bad JSON, schema
 * validation) and a thrown `ProblemError` all answer `application/problem+json`. Bad input never gets a 5xx:
 * only an error that is not one of ours nor a client error of fastify's becomes 500 `internal-error`, logged,
 * with a detail that names no internals.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ProblemDocument, type ProblemSlug, problem } from '../../core/problems.js';
import { validationErrors } from './validation.js';

export const PROBLEM_JSON = 'application/problem+json';

/** The public base URL of a surface: fixed, or read per request (e.g. once the port is known). */
export type BaseUrl = string | ((req: FastifyRequest) => string);

/** Throw this from a handler or hook to answer with a problem document. */
export class ProblemError extends Error {
  constructor(
    readonly slug: ProblemSlug,
    readonly detail?: string,
    readonly extensions: Record<string, unknown> = {},
    /** Extra response headers, e.g. WWW-Authenticate or Allow. */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? slug);
    this.name = 'ProblemError';
  }
}

export function baseOf(base: BaseUrl, req: FastifyRequest): string {
  return typeof base === 'function' ? base(req) : base;
}

/** Send a problem document. Returns the reply so handlers can `return sendProblem(...)`. */
export function sendProblem(reply: FastifyReply, doc: ProblemDocument, headers: Record<string, string> = {}): FastifyReply {
  for (const [k, v] of Object.entries(headers)) reply.header(k, v);
  return reply.code(doc.status).type(PROBLEM_JSON).send(doc);
}

/** Map an error that fastify (or a plugin) raised for a client mistake onto a catalog slug. */
function slugOfFastifyError(err: FastifyError): ProblemSlug | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'payload-too-large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'unsupported-media-type';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'invalid-json';
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return 'bad-request';
    case 'FST_ERR_NOT_FOUND':
      return 'not-found';
  }
  const status = err.statusCode ?? 0;
  if (status === 413) return 'payload-too-large';
  if (status === 415) return 'unsupported-media-type';
  if (status === 404) return 'not-found';
  if (status === 405) return 'method-not-allowed';
  if (status === 406) return 'not-acceptable';
  if (status === 429) return 'rate-limited';
  if (status >= 400 && status < 500) return 'bad-request';
  return undefined;
}

/** The problem document (and headers) for any error thrown while serving `req`. */
export function problemForError(err: unknown, base: string): { doc: ProblemDocument; headers: Record<string, string>; internal: boolean } {
  if (err instanceof ProblemError)
    return { doc: problem(base, err.slug, err.detail, err.extensions), headers: err.headers, internal: false };
  const fe = err as FastifyError;
  if (fe && Array.isArray(fe.validation)) {
    const context = fe.validationContext ?? 'body';
    const errors = validationErrors(fe.validation, context);
    const first = errors[0];
    const detail = first ? `${context} ${first.pointer || '/'}: ${first.message}` : `${context} failed validation`;
    // A well-formed body that fails its schema is 422; a bad query, path parameter or header is a malformed request.
    const slug: ProblemSlug = context === 'body' ? 'validation-failed' : 'bad-request';
    return { doc: problem(base, slug, detail, { errors }), headers: {}, internal: false };
  }
  const slug = fe && typeof fe === 'object' ? slugOfFastifyError(fe) : undefined;
  if (slug) return { doc: problem(base, slug, fe.message), headers: {}, internal: false };
  return {
    doc: problem(base, 'internal-error', 'the server failed to answer this request; it has been logged'),
    headers: {},
    internal: true,
  };
}

interface RouteShape {
  method: string;
  pattern: RegExp;
}

function patternOf(url: string): RegExp {
  const parts = url.split('/').map((seg) => {
    if (seg.startsWith(':')) return '[^/]+';
    if (seg === '*') return '.*';
    return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  return new RegExp(`^${parts.join('/')}/?$`);
}

export interface ProblemOptions {
  baseUrl: BaseUrl;
}

/**
 * Install the problem error handler and the not-found handler (which answers 405 with `Allow` when the path
 * exists under another method). Call it on the root instance before registering routes.
 */
export function installProblems(app: FastifyInstance, opts: ProblemOptions): void {
  const routes: RouteShape[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) routes.push({ method: method.toUpperCase(), pattern: patternOf(route.url ?? route.path) });
  });

  app.setErrorHandler((err, req, reply) => {
    const { doc, headers, internal } = problemForError(err, baseOf(opts.baseUrl, req));
    if (internal) req.log.error({ err }, 'unhandled error');
    return sendProblem(reply, doc, headers);
  });

  app.setNotFoundHandler((req, reply) => {
    const base = baseOf(opts.baseUrl, req);
    const path = (req.url.split('?')[0] ?? '/').replace(/\/{2,}/g, '/');
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
    if (allowed.length > 0 && !allowed.includes(req.method)) {
      const allow = allowed.sort().join(', ');
      return sendProblem(reply, problem(base, 'method-not-allowed', `${req.method} is not allowed here; allowed: ${allow}`), {
        Allow: allow,
      });
    }
    return sendProblem(reply, problem(base, 'not-found', `no resource at ${path}`));
  });
}
