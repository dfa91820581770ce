/** Route configuration and request fields the platform kit adds to Fastify (declaration merging). */
import type { Principal } from './auth.js';
import type { IdempotencyScope } from './idempotency.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Scope(s) a bearer token needs for this route (any one of them). Absent: no token needed. */
    scope?: string | readonly string[];
    /** Idempotency-Key handling: `required` (400 without), `optional` (used when given). Absent: ignored. */
    idempotency?: 'required' | 'optional';
    /** Set by `installBearerAuth` on WebSocket routes: the scope is checked in `preValidation`, not `onRequest`. */
    scopeCheck?: 'preValidation';
    /** Set by `installHostGuard` on WebSocket routes: Host and Origin are checked in `preValidation`. */
    hostCheck?: 'preValidation';
    /**
     * A plain route that hands WebSocket upgrades on to another instance itself (platform/graphql/mount.ts):
     * the wire checks let its upgrades through (after the handshake checks) instead of refusing them.
     */
    forwardsUpgrade?: boolean;
  }
  interface FastifyRequest {
    /** The authenticated caller, when a valid bearer token came with the request. */
    principal: Principal | null;
    /** Set while this request holds an idempotency key. */
    idempotency: IdempotencyScope | null;
  }
}
