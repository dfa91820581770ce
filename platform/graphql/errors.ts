/**
 * GraphQL errors that carry the problem type: a service's refusal (a `ProblemError`) becomes a GraphQL error
 * whose `extensions` hold what the problem document would: `type` (`{base}/errors/<slug>`), `slug`, `title`,
 * `status`, `detail` and the problem's own extension members. Only our own refusals are shown; anything else
 * is logged and answered as `internal-error` with a detail that names no internals.
 */
import { GraphQLError } from 'graphql';
import type { MercuriusContext, MercuriusOptions } from 'mercurius';
import { type ProblemSlug, problemCatalog } from '../../core/problems.js';
import { ProblemError } from '../http/problems.js';

export function problemExtensions(slug: ProblemSlug, detail: string, extra: Record<string, unknown> = {}, base?: string) {
  const entry = problemCatalog[slug];
  return {
    ...extra,
    ...(base !== undefined ? { type: `${base.replace(/\/+$/, '')}/errors/${slug}` } : {}),
    slug,
    title: entry.title,
    status: entry.status,
    detail,
  };
}

export function problemGraphqlError(slug: ProblemSlug, detail: string, extra: Record<string, unknown> = {}, base?: string): GraphQLError {
  return new GraphQLError(detail, { extensions: problemExtensions(slug, detail, extra, base) });
}

/** A resolver's error as a GraphQL error with the problem in `extensions`. */
export function toProblemError(err: unknown, base: string | undefined, log?: (err: unknown) => void): GraphQLError {
  if (err instanceof GraphQLError && err.extensions?.slug !== undefined) return err;
  if (err instanceof ProblemError) return problemGraphqlError(err.slug, err.detail ?? err.slug, err.extensions, base);
  log?.(err);
  return problemGraphqlError('internal-error', 'the server failed to answer this field; it has been logged', {}, base);
}

type Formatter = NonNullable<MercuriusOptions['errorFormatter']>;

/**
 * mercurius' `errorFormatter`: its own formatting, then every error that names a problem slug but no `type`
 * (the depth and cost rule cannot know the base URL) gets the `type` of the surface that answered.
 */
export function problemErrorFormatter(base: (ctx: MercuriusContext) => string, fallback: Formatter): Formatter {
  return (execution, ctx) => {
    const out = fallback(execution, ctx);
    let b: string | undefined;
    for (const e of out.response.errors ?? []) {
      const ext = e.extensions as Record<string, unknown> | undefined;
      if (!ext || typeof ext.slug !== 'string' || ext.type !== undefined) continue;
      b ??= base(ctx).replace(/\/+$/, '');
      ext.type = `${b}/errors/${ext.slug}`;
    }
    return out;
  };
}

type Fn = (...args: never[]) => unknown;
type ResolverMap = Record<string, Record<string, Fn | Record<string, Fn>>>;

/** Every resolver of `map` (field functions, and `subscribe`/`resolve` of subscription fields) with its errors as problems. */
export function withProblems<T extends ResolverMap>(map: T, base: () => string | undefined, log?: (err: unknown) => void): T {
  const wrap = (fn: Fn): Fn =>
    ((...args: never[]) => {
      try {
        const out = fn(...args);
        if (out instanceof Promise)
          return out.catch((err: unknown) => {
            throw toProblemError(err, base(), log);
          });
        return out;
      } catch (err) {
        throw toProblemError(err, base(), log);
      }
    }) as Fn;
  const out: ResolverMap = {};
  for (const [type, fields] of Object.entries(map)) {
    const o: Record<string, Fn | Record<string, Fn>> = {};
    for (const [name, r] of Object.entries(fields)) {
      o[name] = typeof r === 'function' ? wrap(r) : Object.fromEntries(Object.entries(r).map(([k, f]) => [k, wrap(f)]));
    }
    out[type] = o;
  }
  return out as T;
}
