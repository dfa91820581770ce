/**
 * Idempotency keys (semantics §7) over a better-sqlite3 table, as a reusable Fastify piece.
 *
 * A route opts in with `config: { idempotency: 'required' | 'optional' }`. The `Idempotency-Key` header is
 * 8–128 characters, bare or as an RFC 8941 quoted string. Keys are scoped per principal and route (method and
 * normalized path: the matched route pattern with its parameters filled in, so `/v1/executions/`,
 * `//v1/executions` and `/v1/executions` share keys). The body is compared by the SHA-256 of its canonical JSON:
 * - same key, same body, first request finished: the stored status, headers and body are replayed
 *   (with `Idempotent-Replayed: true`);
 * - same key, different body: 422 `idempotency-key-reused`;
 * - same key while the first request is still being processed: 409 `idempotency-key-in-flight`;
 * - missing (where required) or malformed: 400 `idempotency-key-missing`.
 * Answers with a 5xx status are not stored (a retry may succeed). Keys are kept for at least 24 hours.
 */
import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { canonicalize } from '../../core/canonical.js';
import type { Migration } from '../sqlite/migrations.js';
import { ProblemError } from './problems.js';
import './types.js';

/** Shortest retention of a key; `IdempotencyStore` never keeps one for less. */
export const MIN_RETENTION_MS = 24 * 60 * 60 * 1000;
const REPLAYED_HEADERS = ['content-type', 'etag', 'location'];

export interface IdempotencyScope {
  principal: string;
  route: string;
  key: string;
}

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type BeginResult = { kind: 'new' } | { kind: 'replay'; response: StoredResponse } | { kind: 'in_flight' } | { kind: 'reused' };

/**
 * What the Fastify hooks need from a key store. `IdempotencyStore` (SQLite, synchronous) is the embedded one;
 * a server on a shared database (the registry on PostgreSQL) supplies an asynchronous one with the same rules.
 */
export interface IdempotencyKeys {
  begin(scope: IdempotencyScope, hash: string): BeginResult | Promise<BeginResult>;
  complete(scope: IdempotencyScope, response: StoredResponse): void | Promise<void>;
  abandon(scope: IdempotencyScope): void | Promise<void>;
}

export const idempotencyMigration: Migration = {
  id: 'platform.idempotency.1',
  up(db) {
    db.exec(`CREATE TABLE idempotency_keys (
      principal TEXT NOT NULL, route TEXT NOT NULL, key TEXT NOT NULL,
      body_hash TEXT NOT NULL, state TEXT NOT NULL CHECK (state IN ('in_flight', 'done')),
      status INTEGER, headers TEXT, body TEXT,
      created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
      PRIMARY KEY (principal, route, key))`);
    db.exec('CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at)');
  },
};

/**
 * For a callback hook's promise chain: an error thrown by fastify's `done` itself (a header value it cannot
 * write) would otherwise be an unhandled rejection, which ends the process; it is logged instead.
 */
const escaped = (req: FastifyRequest) => (err: unknown) =>
  req.log.error({ err }, 'an idempotency hook could not hand its result to fastify');

/** Parse an Idempotency-Key header value; undefined when malformed. */
export function parseIdempotencyKey(raw: string): string | undefined {
  const v = raw.trim();
  let key: string;
  if (v.startsWith('"')) {
    // RFC 8941 sf-string: printable ASCII, with \" and \\ as the only escapes.
    const m = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/.exec(v);
    if (!m) return undefined;
    key = (m[1] as string).replace(/\\(["\\])/g, '$1');
  } else {
    if (!/^[\x21-\x7e]+$/.test(v)) return undefined;
    key = v;
  }
  return key.length >= 8 && key.length <= 128 ? key : undefined;
}

/**
 * The path a key is scoped to: the route pattern fastify matched with its (decoded) parameters filled in, so
 * every spelling the router accepts for one resource (trailing or doubled slashes, percent-encoding) is one
 * scope. Without a matched route, the raw path with repeated and trailing slashes folded.
 */
export function normalizedRoute(req: FastifyRequest): string {
  const pattern = req.routeOptions.url;
  const params = (req.params ?? {}) as Record<string, unknown>;
  if (pattern !== undefined) {
    return pattern.replace(/:([A-Za-z0-9_]+)(\([^)]*\))?|\*/g, (m, name: string | undefined) => {
      const v = params[name ?? '*'];
      return v === undefined ? m : encodeURIComponent(String(v));
    });
  }
  const path = (req.url.split('?')[0] ?? '/').replace(/\/{2,}/g, '/');
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

/** SHA-256 of the canonical JSON of a parsed body (`undefined`: no body). */
export function bodyHash(body: unknown): string {
  const text = body === undefined ? '' : canonicalize(body);
  return createHash('sha256').update(text).digest('hex');
}

export class IdempotencyStore implements IdempotencyKeys {
  private readonly ttlMs: number;
  private readonly now: () => number;
  private lastPurge = 0;
  private readonly stmts;

  constructor(
    private readonly db: Database,
    opts: { ttlMs?: number; now?: () => number } = {},
  ) {
    this.ttlMs = Math.max(opts.ttlMs ?? MIN_RETENTION_MS, MIN_RETENTION_MS);
    this.now = opts.now ?? Date.now;
    this.stmts = {
      get: db.prepare(
        'SELECT body_hash, state, status, headers, body, expires_at FROM idempotency_keys WHERE principal = ? AND route = ? AND key = ?',
      ),
      insert: db.prepare(
        `INSERT INTO idempotency_keys (principal, route, key, body_hash, state, created_at, expires_at) VALUES (?, ?, ?, ?, 'in_flight', ?, ?)
         ON CONFLICT (principal, route, key) DO UPDATE SET body_hash = excluded.body_hash, state = 'in_flight', status = NULL,
         headers = NULL, body = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at`,
      ),
      complete: db.prepare(
        "UPDATE idempotency_keys SET state = 'done', status = ?, headers = ?, body = ? WHERE principal = ? AND route = ? AND key = ? AND state = 'in_flight'",
      ),
      abandon: db.prepare("DELETE FROM idempotency_keys WHERE principal = ? AND route = ? AND key = ? AND state = 'in_flight'"),
      purge: db.prepare('DELETE FROM idempotency_keys WHERE expires_at <= ?'),
      clearInFlight: db.prepare("DELETE FROM idempotency_keys WHERE state = 'in_flight'"),
    };
  }

  /** Claim `scope` for a request whose body hashes to `hash`, or say what to answer instead. */
  begin(scope: IdempotencyScope, hash: string): BeginResult {
    const now = this.now();
    if (now - this.lastPurge > 60_000) this.purgeExpired();
    return this.db.transaction((): BeginResult => {
      const row = this.stmts.get.get(scope.principal, scope.route, scope.key) as
        | { body_hash: string; state: string; status: number; headers: string; body: string; expires_at: number }
        | undefined;
      if (row && row.expires_at > now) {
        if (row.body_hash !== hash) return { kind: 'reused' };
        if (row.state === 'in_flight') return { kind: 'in_flight' };
        return {
          kind: 'replay',
          response: { status: row.status, headers: JSON.parse(row.headers) as Record<string, string>, body: row.body },
        };
      }
      this.stmts.insert.run(scope.principal, scope.route, scope.key, hash, now, now + this.ttlMs);
      return { kind: 'new' };
    })();
  }

  complete(scope: IdempotencyScope, response: StoredResponse): void {
    this.stmts.complete.run(response.status, JSON.stringify(response.headers), response.body, scope.principal, scope.route, scope.key);
  }

  /** Forget an unfinished claim (the request failed with a 5xx or the client went away). */
  abandon(scope: IdempotencyScope): void {
    this.stmts.abandon.run(scope.principal, scope.route, scope.key);
  }

  purgeExpired(): number {
    this.lastPurge = this.now();
    return this.stmts.purge.run(this.lastPurge).changes;
  }

  /** At process start nothing can still be running: drop claims a crash left behind. */
  clearInFlight(): number {
    return this.stmts.clearInFlight.run().changes;
  }
}

export interface IdempotencyOptions {
  store: IdempotencyKeys;
  /** Principal id a key is scoped to (default: the bearer token's principal id, else `anonymous`). */
  principalOf?: (req: FastifyRequest) => string;
}

function headerValue(reply: FastifyReply, name: string): string | undefined {
  const v = reply.getHeader(name);
  if (v === undefined) return undefined;
  return Array.isArray(v) ? v.join(', ') : String(v);
}

/** Install the hooks. Routes opt in through `config.idempotency`. */
export function installIdempotency(app: FastifyInstance, opts: IdempotencyOptions): void {
  const { store } = opts;
  const principalOf = opts.principalOf ?? ((req: FastifyRequest) => req.principal?.id ?? 'anonymous');
  if (!app.hasRequestDecorator('idempotency')) app.decorateRequest('idempotency', null);

  // Each hook below is a callback hook whose work, for the routes that opted in, is an async function: a request
  // to any other route (a status read) pays no promise and no microtask for them.
  const begin = async (req: FastifyRequest, reply: FastifyReply, mode: 'required' | 'optional') => {
    const raw = req.headers['idempotency-key'];
    if (raw === undefined) {
      if (mode === 'required')
        throw new ProblemError('idempotency-key-missing', 'this request needs an Idempotency-Key header (8-128 characters)');
      return;
    }
    const key = typeof raw === 'string' ? parseIdempotencyKey(raw) : undefined;
    if (key === undefined)
      throw new ProblemError('idempotency-key-missing', 'Idempotency-Key must be 8-128 visible characters, bare or as a quoted string');
    const scope: IdempotencyScope = { principal: principalOf(req), route: `${req.method} ${normalizedRoute(req)}`, key };
    const result = await store.begin(scope, bodyHash(req.body));
    switch (result.kind) {
      case 'new':
        req.idempotency = scope;
        return;
      case 'reused':
        throw new ProblemError('idempotency-key-reused', 'this Idempotency-Key was used before with a different body');
      case 'in_flight':
        throw new ProblemError(
          'idempotency-key-in-flight',
          'a request with this Idempotency-Key is still being processed; retry later',
          {},
          { 'Retry-After': '1' },
        );
      case 'replay': {
        for (const [k, v] of Object.entries(result.response.headers)) reply.header(k, v);
        reply.header('idempotent-replayed', 'true');
        return reply.code(result.response.status).send(result.response.body);
      }
    }
  };
  app.addHook('preHandler', (req, reply, done) => {
    const mode = req.routeOptions.config.idempotency;
    if (!mode) return done();
    begin(req, reply, mode)
      .then(() => done(), done)
      .catch(escaped(req));
  });

  const complete = async (reply: FastifyReply, scope: IdempotencyScope, payload: unknown) => {
    // A 5xx or a 429 (come back later) is no answer to the request: a retry with the same key runs it.
    if (reply.statusCode >= 500 || reply.statusCode === 429 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) {
      await store.abandon(scope);
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const v = headerValue(reply, name);
      if (v !== undefined) headers[name] = v;
    }
    await store.complete(scope, { status: reply.statusCode, headers, body: payload.toString() });
    return payload;
  };
  app.addHook('onSend', (req, reply, payload, done) => {
    const scope = req.idempotency;
    if (!scope) return done(null, payload);
    req.idempotency = null;
    complete(reply, scope, payload)
      .then((p) => done(null, p), done)
      .catch(escaped(req));
  });

  const release = (req: FastifyRequest, done: (err?: Error) => void) => {
    const scope = req.idempotency;
    if (!scope) return done();
    req.idempotency = null;
    Promise.resolve()
      .then(() => store.abandon(scope))
      .then(() => done(), done)
      .catch(escaped(req));
  };
  app.addHook('onResponse', (req, _reply, done) => release(req, done));
  app.addHook('onRequestAbort', (req, done) => release(req, done));
}
