/**
 * The strict JSON body parser: `application/json` and any `application/*+json` type, read as text up to a
 * size limit and parsed with `parseJson` from core/canonical.ts, which refuses duplicate keys, integers beyond
 * 2^53−1, lone surrogates and runaway nesting instead of guessing. Every other content type is 415.
 * An empty body is no body (`undefined`), so bodiless POSTs such as stop work with or without a content type.
 */
import type { FastifyBodyParser, FastifyInstance } from 'fastify';
import { CanonicalJsonError, parseJson } from '../../core/canonical.js';
import { ProblemError } from './problems.js';

/** Default body limit: 256 KiB is far more than any request of the APIs needs. */
export const DEFAULT_BODY_LIMIT = 256 * 1024;

export function installJsonParser(app: FastifyInstance, opts: { bodyLimit?: number } = {}): void {
  const parse: FastifyBodyParser<string | Buffer> = (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, parseJson(text));
    } catch (err) {
      const detail = err instanceof CanonicalJsonError ? err.message : 'the body could not be read as JSON';
      const ext = err instanceof CanonicalJsonError ? { code: err.code, pointer: err.path } : {};
      done(new ProblemError('invalid-json', detail, ext), undefined);
    }
  };
  const parserOpts = { parseAs: 'string' as const, bodyLimit: opts.bodyLimit ?? DEFAULT_BODY_LIMIT };
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', parserOpts, parse);
  app.addContentTypeParser(/^application\/[a-z0-9!#$&^_.-]+\+json(;|$)/i, parserOpts, parse);
}
