/**
 * Bearer tokens. A token is shown once when created and stored only as its SHA-256; it carries scopes and a
 * kind (`human` or `agent`). `installBearerAuth` reads `Authorization: Bearer …` on every request and sets
 * `req.principal`; a route that names `config.scope` answers 401 `unauthorized` without a valid token and 403
 * `forbidden` when the token lacks the scope, both with an RFC 6750 `WWW-Authenticate: Bearer` header.
 * A route without `config.scope` never refuses for authorization (a bad token there is simply ignored).
 */
import { hash, randomBytes } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Migration } from '../sqlite/migrations.js';
import { RUNS_FIRST } from './host-guard.js';
import { type MqttGrants, parseGrantList } from './mqtt-grants.js';
import { ProblemError } from './problems.js';
import './types.js';

export type PrincipalKind = 'human' | 'agent';

export interface Principal {
  id: string;
  name: string;
  kind: PrincipalKind;
  scopes: string[];
  /** Operator topic grants on the local MQTT bus, outside `svc/` (mqtt-grants.ts); absent when none. */
  mqtt?: MqttGrants;
}

export interface TokenInfo extends Principal {
  createdAt: string;
  revokedAt?: string;
}

export const tokensMigration: Migration = {
  id: 'platform.tokens.1',
  up(db) {
    db.exec(`CREATE TABLE tokens (
      id TEXT PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('human', 'agent')),
      scopes TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL, revoked_at INTEGER)`);
  },
};

/** The columns of a token's MQTT topic grants (JSON arrays of topic filters; NULL = none). */
export const tokenGrantsMigration: Migration = {
  id: 'platform.tokens.2',
  up(db) {
    db.exec('ALTER TABLE tokens ADD COLUMN mqtt_publish TEXT');
    db.exec('ALTER TABLE tokens ADD COLUMN mqtt_subscribe TEXT');
  },
};

const SCOPE = /^[a-z][a-z0-9_:-]{0,39}$/;
const TOKEN_PREFIX = 'hth_';

export function hashToken(token: string): string {
  // The one-shot hash: a request's token costs no Hash object (a third of createHash's time).
  return hash('sha256', token, 'hex');
}

interface TokenRow {
  id: string;
  name: string;
  kind: PrincipalKind;
  scopes: string;
  created_at: number;
  revoked_at: number | null;
  /** Present once tokenGrantsMigration has run. */
  mqtt_publish?: string | null;
  mqtt_subscribe?: string | null;
}

function grantsOf(row: TokenRow): MqttGrants | undefined {
  const publish = row.mqtt_publish ? (JSON.parse(row.mqtt_publish) as string[]) : [];
  const subscribe = row.mqtt_subscribe ? (JSON.parse(row.mqtt_subscribe) as string[]) : [];
  return publish.length || subscribe.length ? { publish, subscribe } : undefined;
}

function principalOf(row: TokenRow): Principal {
  const p: Principal = { id: row.id, name: row.name, kind: row.kind, scopes: JSON.parse(row.scopes) as string[] };
  const mqtt = grantsOf(row);
  if (mqtt) p.mqtt = mqtt;
  return p;
}

/** A principal handed to many requests at once: nobody may change what a later request would be given. */
function frozen(p: Principal): Principal {
  Object.freeze(p.scopes);
  if (p.mqtt) {
    Object.freeze(p.mqtt.publish);
    Object.freeze(p.mqtt.subscribe);
    Object.freeze(p.mqtt);
  }
  return Object.freeze(p);
}

function toInfo(row: TokenRow): TokenInfo {
  const info: TokenInfo = { ...principalOf(row), createdAt: new Date(row.created_at).toISOString() };
  if (row.revoked_at !== null) info.revokedAt = new Date(row.revoked_at).toISOString();
  return info;
}

/**
 * Writes to the tokens table through any TokenStore on one connection. SQLite's `PRAGMA data_version` sees the
 * commits of every other connection (another process: `hearth token revoke`), not the connection's own.
 */
const ownWrites = new WeakMap<Database, number>();
const wrote = (db: Database) => ownWrites.set(db, (ownWrites.get(db) ?? 0) + 1);

/** Principals of recently presented tokens kept between requests: a household has a handful of tokens. */
export const VERIFIED_CACHE_SIZE = 64;

export class TokenStore {
  /** The lookup a request runs when its token is not in `verified`, prepared once. */
  private byHash?: Statement<[string], TokenRow>;
  private dataVersion?: Statement<[], number>;
  /**
   * Token hash → principal of tokens found valid, trusted only while no other connection committed anything
   * and no TokenStore on this one wrote a token since: every `verify` first asks SQLite (one cheap statement,
   * where the lookup builds a row), so a revocation from any process is refused at the next request.
   */
  private readonly verified = new Map<string, Principal>();
  private verifiedAt = { version: -1, writes: -1 };

  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  /** Create a token. The returned `token` is the only time the secret exists outside the caller. */
  create(opts: { name?: string; scopes: string[]; kind?: PrincipalKind; mqtt?: Partial<MqttGrants> }): { token: string; info: TokenInfo } {
    const scopes = [...new Set(opts.scopes.map((s) => s.trim()).filter((s) => s !== ''))];
    if (scopes.length === 0) throw new Error('a token needs at least one scope');
    for (const s of scopes) if (!SCOPE.test(s)) throw new Error(`bad scope ${JSON.stringify(s)}: use lower-case letters, digits, _ : -`);
    const kind = opts.kind ?? 'human';
    if (kind !== 'human' && kind !== 'agent') throw new Error(`kind must be human or agent, not ${JSON.stringify(kind)}`);
    const id = `tok_${randomBytes(6).toString('hex')}`;
    const name = (opts.name ?? id).trim();
    if (name === '' || name.length > 100) throw new Error('a token name is 1-100 characters');
    const publish = parseGrantList(opts.mqtt?.publish, '--mqtt-publish');
    const subscribe = parseGrantList(opts.mqtt?.subscribe, '--mqtt-subscribe');
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const createdAt = this.now();
    this.db
      .prepare('INSERT INTO tokens (id, name, kind, scopes, hash, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(id, name, kind, JSON.stringify(scopes), hashToken(token), createdAt);
    wrote(this.db);
    const info: TokenInfo = { id, name, kind, scopes, createdAt: new Date(createdAt).toISOString() };
    if (publish.length || subscribe.length) {
      this.db
        .prepare('UPDATE tokens SET mqtt_publish = ?, mqtt_subscribe = ? WHERE id = ?')
        .run(JSON.stringify(publish), JSON.stringify(subscribe), id);
      wrote(this.db);
      info.mqtt = { publish, subscribe };
    }
    return { token, info };
  }

  list(): TokenInfo[] {
    return (this.db.prepare('SELECT * FROM tokens ORDER BY created_at, id').all() as TokenRow[]).map(toInfo);
  }

  /** Revoke by id or name; returns how many tokens were revoked now. */
  revoke(idOrName: string): number {
    const changes = this.db
      .prepare('UPDATE tokens SET revoked_at = ? WHERE (id = ? OR name = ?) AND revoked_at IS NULL')
      .run(this.now(), idOrName, idOrName).changes;
    wrote(this.db);
    return changes;
  }

  /** How many principals `verify` holds now (at most VERIFIED_CACHE_SIZE). */
  get verifiedCount(): number {
    return this.verified.size;
  }

  /** The principal of a presented token, or null when unknown or revoked. The principal is frozen. */
  verify(token: string): Principal | null {
    if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
    const digest = hashToken(token);
    // Read before the lookup: a revocation committed after this read changes the version the next verify sees.
    this.dataVersion ??= this.db.prepare<[], number>('PRAGMA data_version').pluck();
    const version = this.dataVersion.get() as number;
    const writes = ownWrites.get(this.db) ?? 0;
    if (version !== this.verifiedAt.version || writes !== this.verifiedAt.writes) {
      this.verified.clear();
      this.verifiedAt = { version, writes };
    }
    const known = this.verified.get(digest);
    if (known) return known;
    // SELECT *: the grant columns exist only where tokenGrantsMigration has run.
    this.byHash ??= this.db.prepare<[string], TokenRow>('SELECT * FROM tokens WHERE hash = ?');
    const row = this.byHash.get(digest);
    if (!row || row.revoked_at !== null) return null; // unknown tokens are not kept: anyone can present many
    const principal = frozen(principalOf(row));
    if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(digest, principal);
    return principal;
  }
}

export interface BearerAuthOptions {
  tokens: TokenStore;
  /** Realm named in WWW-Authenticate (default "hearth"). */
  realm?: string;
  /**
   * URL of the RFC 9728 protected-resource metadata: added as `resource_metadata="…"` to the Bearer challenge
   * of every 401 and 403 this app answers, so a client (an MCP client, say) finds how to get a token.
   */
  resourceMetadata?: (req: FastifyRequest) => string;
}

function bearerOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(header);
  return m ? m[1] : '';
}

/** The caller of a request that needs a token: 401 `unauthorized` with the Bearer challenge when there is none. */
export function requirePrincipal(req: FastifyRequest, realm = 'hearth'): Principal {
  if (req.principal) return req.principal;
  const presented = bearerOf(req.headers.authorization);
  const challenge =
    presented === undefined
      ? `Bearer realm="${realm}"`
      : `Bearer realm="${realm}", error="invalid_token", error_description="unknown, revoked or malformed token"`;
  throw new ProblemError(
    'unauthorized',
    presented === undefined ? 'this request needs a bearer token' : 'the bearer token is unknown, revoked or malformed',
    {},
    { 'WWW-Authenticate': challenge },
  );
}

/** 401 without a token, 403 `forbidden` when the token has none of the `config.scope` of the route. */
function checkScope(req: FastifyRequest, realm: string): void {
  const need = req.routeOptions.config?.scope;
  if (need === undefined) return;
  const needed = typeof need === 'string' ? [need] : [...need];
  const principal = requirePrincipal(req, realm);
  if (!needed.some((s) => principal.scopes.includes(s))) {
    throw new ProblemError(
      'forbidden',
      `this request needs the scope ${needed.join(' or ')}`,
      { requiredScope: needed },
      { 'WWW-Authenticate': `Bearer realm="${realm}", error="insufficient_scope", scope="${needed.join(' ')}"` },
    );
  }
}

/**
 * Read the bearer token of every request into `req.principal` and enforce `config.scope`: in `onRequest`, or in
 * `preValidation` on a `@fastify/websocket` route (`websocket: true`, registered after this call), where a
 * refusal thrown by an `onRequest` hook leaves the upgrade request open and the server then never closes.
 */
export function installBearerAuth(app: FastifyInstance, opts: BearerAuthOptions): void {
  const realm = opts.realm ?? 'hearth';
  if (!app.hasRequestDecorator('principal')) app.decorateRequest('principal', null);
  app.addHook('onRoute', (route) => {
    const ws = route as { websocket?: boolean; wsHandler?: unknown };
    if (!(ws.websocket || ws.wsHandler) || route.config?.scope === undefined) return;
    route.config = { ...route.config, scopeCheck: 'preValidation' };
    const check = async (req: FastifyRequest) => checkScope(req, realm);
    const own = route.preValidation;
    const list = own === undefined ? [] : Array.isArray(own) ? [...own] : [own];
    // After the Host/Origin guard (host-guard.ts), before the route's own checks.
    const at = list.findIndex((f) => !(f as unknown as Record<symbol, unknown>)[RUNS_FIRST]);
    list.splice(at === -1 ? list.length : at, 0, check);
    route.preValidation = list;
  });
  const metadata = opts.resourceMetadata;
  if (metadata) {
    app.addHook('onSend', (req, reply, payload, done) => {
      if (reply.statusCode !== 401 && reply.statusCode !== 403) return done(null, payload);
      const challenge = reply.getHeader('www-authenticate');
      if (typeof challenge === 'string' && /^Bearer\b/i.test(challenge) && !challenge.includes('resource_metadata='))
        reply.header('www-authenticate', `${challenge}, resource_metadata="${metadata(req)}"`);
      else if (challenge === undefined && reply.statusCode === 401)
        reply.header('www-authenticate', `Bearer realm="${realm}", resource_metadata="${metadata(req)}"`);
      done(null, payload);
    });
  }
  // Callback hooks (here and above): a thrown refusal takes fastify's error path as a rejection would, and a
  // request pays no promise and no microtask for them.
  app.addHook('onRequest', (req, _reply, done) => {
    const presented = bearerOf(req.headers.authorization);
    req.principal = presented ? opts.tokens.verify(presented) : null;
    if (req.routeOptions.config?.scopeCheck !== 'preValidation') checkScope(req, realm);
    done();
  });
}
