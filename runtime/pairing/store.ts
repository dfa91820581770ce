/**
 * Pairing, in the style of the OAuth device grant (RFC 8628). An agent (or a person's app) asks to pair with
 * `{name, kind, scopes}` and gets a short user code to show a person plus a polling secret; a person approves
 * the code on the hub (`hearth pair approve CODE`), possibly with fewer scopes, or rejects it; the agent polls
 * with its secret and receives its bearer token exactly once. Only hashes of polling secrets are stored, and
 * the token itself is created at the poll that delivers it, so no secret rests in the store.
 *
 * A person's app may carry the person's Ed25519 public key in the request (`principalKey`): the key is
 * registered at the poll that delivers the token, bound to the principal that pairing creates (its `actor` is
 * the new token's id, whatever the request says), so mandates signed with it verify for that principal and no
 * other. Its kid is derived from the key (`pk-` and 16 characters of its SHA-256), so the person approving sees
 * which key it is, and a key already bound to a principal cannot be bound to another.
 */
import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { decodeBase64url } from '../../core/base64url.js';
import { toRfc3339Seconds } from '../../core/time.js';
import type { PrincipalKind, TokenStore } from '../../platform/http/auth.js';
import type { Migration } from '../../platform/sqlite/migrations.js';
import { PrincipalKeyError, type PrincipalKeyStore } from '../store/principal-keys.js';

export const pairingMigration: Migration = {
  id: 'pairing.1',
  up(db) {
    db.exec(`CREATE TABLE pair_requests (
      id TEXT PRIMARY KEY, user_code TEXT NOT NULL UNIQUE, poll_hash TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
      kind TEXT NOT NULL, scopes TEXT NOT NULL, state TEXT NOT NULL, created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL, granted_scopes TEXT, granted_kind TEXT, decided_by TEXT, decided_at INTEGER,
      token_id TEXT, last_poll INTEGER)`);
  },
};

/** The principal's public key a pairing request may carry. */
export const pairingKeyMigration: Migration = {
  id: 'pairing.2',
  up(db) {
    db.exec('ALTER TABLE pair_requests ADD COLUMN principal_key TEXT');
  },
};

/** The kid a pairing gives a principal's public key (base64url of the raw 32 bytes). */
export function pairingKid(publicKey: string): string {
  return `pk-${createHash('sha256').update(publicKey).digest('base64url').slice(0, 16)}`;
}

/** How long a person has to approve (RFC 8628 `expires_in`). */
export const PAIRING_TTL_MS = 10 * 60 * 1000;
/** Seconds an agent waits between polls (RFC 8628 `interval`). */
export const POLL_INTERVAL_S = 5;
/** Most pairing requests waiting for a person at once (anyone on the network may ask). */
export const MAX_PENDING = 20;
/** RFC 8628 §6.1: consonants only, no look-alikes; 8 characters shown as XXXX-XXXX. */
const CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';

export type PairState = 'pending' | 'approved' | 'denied' | 'issued';

export interface PairRequest {
  id: string;
  userCode: string;
  name: string;
  kind: PrincipalKind;
  scopes: string[];
  state: PairState | 'expired';
  createdAt: string;
  expiresAt: string;
  grantedScopes?: string[];
  grantedKind?: PrincipalKind;
  decidedBy?: string;
  decidedAt?: string;
  tokenId?: string;
  /** The principal key the request carries (registered when the token is delivered). */
  principalKey?: { kid: string; publicKey: string };
}

export class PairingError extends Error {
  constructor(
    readonly why: 'unknown' | 'expired' | 'decided' | 'bad_scope' | 'bad_key' | 'key_taken' | 'too_many',
    message: string,
  ) {
    super(message);
    this.name = 'PairingError';
  }
}

interface Row {
  id: string;
  user_code: string;
  name: string;
  kind: PrincipalKind;
  scopes: string;
  state: PairState;
  created_at: number;
  expires_at: number;
  granted_scopes: string | null;
  granted_kind: PrincipalKind | null;
  decided_by: string | null;
  decided_at: number | null;
  token_id: string | null;
  principal_key: string | null;
}

const hash = (s: string) => createHash('sha256').update(s).digest('hex');

/** `bcdf-ghjk`, `BCDFGHJK` and `BCDF GHJK` all name `BCDF-GHJK`. */
export function normalizeCode(code: string): string {
  const c = code.toUpperCase().replace(/[\s-]/g, '');
  return c.length === 8 ? `${c.slice(0, 4)}-${c.slice(4)}` : c;
}

export type PollResult =
  | { kind: 'pending' }
  | { kind: 'denied' }
  | { kind: 'expired' }
  | { kind: 'unknown' }
  | {
      kind: 'issued';
      token: string;
      tokenId: string;
      scopes: string[];
      principalKind: PrincipalKind;
      name: string;
      /** The kid of the principal key registered with this token (its actor is `tokenId`). */
      principalKeyKid?: string;
    };

export class PairingStore {
  constructor(
    private readonly db: Database,
    private readonly tokens: TokenStore,
    private readonly now: () => number = Date.now,
    private readonly allowedScopes: readonly string[] = [],
    /** Where a principal key carried by a request is registered (absent: such a request is refused). */
    private readonly principalKeys?: PrincipalKeyStore,
  ) {}

  private view(r: Row): PairRequest {
    const expired = r.state === 'pending' && r.expires_at <= this.now();
    return {
      id: r.id,
      userCode: r.user_code,
      name: r.name,
      kind: r.kind,
      scopes: JSON.parse(r.scopes) as string[],
      state: expired ? 'expired' : r.state,
      createdAt: new Date(r.created_at).toISOString(),
      expiresAt: new Date(r.expires_at).toISOString(),
      ...(r.granted_scopes ? { grantedScopes: JSON.parse(r.granted_scopes) as string[] } : {}),
      ...(r.granted_kind ? { grantedKind: r.granted_kind } : {}),
      ...(r.decided_by ? { decidedBy: r.decided_by } : {}),
      ...(r.decided_at !== null ? { decidedAt: new Date(r.decided_at).toISOString() } : {}),
      ...(r.token_id ? { tokenId: r.token_id } : {}),
      ...(r.principal_key ? { principalKey: JSON.parse(r.principal_key) as { kid: string; publicKey: string } } : {}),
    };
  }

  /** A principal key a request may carry: a person's, 32 bytes of Ed25519, not bound to anyone yet. */
  private checkKey(publicKey: string, kind: PrincipalKind): { kid: string; publicKey: string } {
    if (!this.principalKeys) throw new PairingError('bad_key', 'this device does not take principal keys at pairing');
    if (kind !== 'human') throw new PairingError('bad_key', 'a principal key belongs to a person: pair as kind human to register one');
    if (decodeBase64url(publicKey)?.length !== 32)
      throw new PairingError('bad_key', '"principalKey" must be base64url (unpadded) of a 32-byte Ed25519 public key');
    const kid = pairingKid(publicKey);
    const known = this.principalKeys.get(kid);
    if (known) throw new PairingError('key_taken', `this key is already registered for principal ${JSON.stringify(known.actor)}`);
    return { kid, publicKey };
  }

  private checkScopes(scopes: string[]): string[] {
    const out = [...new Set(scopes.map((s) => s.trim()).filter((s) => s !== ''))];
    if (out.length === 0) throw new PairingError('bad_scope', 'at least one scope is needed');
    const bad = this.allowedScopes.length > 0 ? out.filter((s) => !this.allowedScopes.includes(s)) : [];
    if (bad.length > 0) throw new PairingError('bad_scope', `unknown scope ${bad.join(', ')}; known: ${this.allowedScopes.join(', ')}`);
    return out;
  }

  start(req: { name: string; kind: PrincipalKind; scopes: string[]; principalKey?: string }): {
    userCode: string;
    pollSecret: string;
    expiresIn: number;
    interval: number;
    id: string;
  } {
    const scopes = this.checkScopes(req.scopes);
    const key = req.principalKey !== undefined ? this.checkKey(req.principalKey, req.kind) : undefined;
    const waiting = this.db
      .prepare("SELECT COUNT(*) AS n FROM pair_requests WHERE state = 'pending' AND expires_at > ?")
      .get(this.now()) as { n: number };
    if (waiting.n >= MAX_PENDING)
      throw new PairingError(
        'too_many',
        `${waiting.n} pairing requests already wait for a person; try again when they are decided or expired`,
      );
    const pollSecret = `hps_${randomBytes(32).toString('base64url')}`;
    const now = this.now();
    const id = `pair-${randomUUID()}`;
    for (let attempt = 0; ; attempt++) {
      let code = '';
      for (let i = 0; i < 8; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
      const userCode = normalizeCode(code);
      try {
        this.db
          .prepare(
            'INSERT INTO pair_requests (id, user_code, poll_hash, name, kind, scopes, state, created_at, expires_at, principal_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          )
          .run(
            id,
            userCode,
            hash(pollSecret),
            req.name,
            req.kind,
            JSON.stringify(scopes),
            'pending',
            now,
            now + PAIRING_TTL_MS,
            key ? JSON.stringify(key) : null,
          );
        return { userCode, pollSecret, expiresIn: PAIRING_TTL_MS / 1000, interval: POLL_INTERVAL_S, id };
      } catch (err) {
        if (attempt > 5 || !String((err as Error).message).includes('UNIQUE')) throw err;
      }
    }
  }

  list(): PairRequest[] {
    return (this.db.prepare('SELECT * FROM pair_requests ORDER BY created_at DESC, id LIMIT 200').all() as Row[]).map((r) => this.view(r));
  }

  private pending(code: string): Row {
    const row = this.db.prepare('SELECT * FROM pair_requests WHERE user_code = ?').get(normalizeCode(code)) as Row | undefined;
    if (!row) throw new PairingError('unknown', `no pairing request with code ${normalizeCode(code)}`);
    if (row.state !== 'pending')
      throw new PairingError('decided', `pairing ${row.user_code} was already ${row.state === 'issued' ? 'approved' : row.state}`);
    if (row.expires_at <= this.now()) throw new PairingError('expired', `pairing ${row.user_code} expired; the agent must ask again`);
    return row;
  }

  /** A person approves; `scopes` and `kind` override what was asked for. */
  approve(code: string, by: string, opts: { scopes?: string[]; kind?: PrincipalKind } = {}): PairRequest {
    const row = this.pending(code);
    const scopes = this.checkScopes(opts.scopes ?? (JSON.parse(row.scopes) as string[]));
    const kind = opts.kind ?? row.kind;
    if (row.principal_key && kind !== 'human')
      throw new PairingError('bad_key', `pairing ${row.user_code} carries a person's key: approve it as human, or reject it`);
    this.db
      .prepare(
        "UPDATE pair_requests SET state = 'approved', granted_scopes = ?, granted_kind = ?, decided_by = ?, decided_at = ? WHERE id = ?",
      )
      .run(JSON.stringify(scopes), kind, by, this.now(), row.id);
    return this.byId(row.id);
  }

  reject(code: string, by: string): PairRequest {
    const row = this.pending(code);
    this.db.prepare("UPDATE pair_requests SET state = 'denied', decided_by = ?, decided_at = ? WHERE id = ?").run(by, this.now(), row.id);
    return this.byId(row.id);
  }

  private byId(id: string): PairRequest {
    return this.view(this.db.prepare('SELECT * FROM pair_requests WHERE id = ?').get(id) as Row);
  }

  /** The agent polls with its secret; an approved request yields its token once. */
  poll(pollSecret: string): PollResult {
    return this.db.transaction((): PollResult => {
      const row = this.db.prepare('SELECT * FROM pair_requests WHERE poll_hash = ?').get(hash(pollSecret)) as Row | undefined;
      if (!row) return { kind: 'unknown' };
      this.db.prepare('UPDATE pair_requests SET last_poll = ? WHERE id = ?').run(this.now(), row.id);
      if (row.state === 'denied') return { kind: 'denied' };
      if (row.state === 'issued') return { kind: 'expired' };
      if (row.state === 'pending') return row.expires_at <= this.now() ? { kind: 'expired' } : { kind: 'pending' };
      const scopes = JSON.parse(row.granted_scopes ?? row.scopes) as string[];
      const principalKind = row.granted_kind ?? row.kind;
      const { token, info } = this.tokens.create({ name: row.name, scopes, kind: principalKind });
      let principalKeyKid: string | undefined;
      if (row.principal_key && this.principalKeys) {
        const key = JSON.parse(row.principal_key) as { kid: string; publicKey: string };
        const record = {
          kid: key.kid,
          alg: 'EdDSA',
          publicKey: key.publicKey,
          actor: info.id,
          validFrom: toRfc3339Seconds(new Date(this.now())),
        };
        try {
          principalKeyKid = this.principalKeys.add(record, `pairing ${row.user_code} approved by ${row.decided_by ?? 'a person'}`).kid;
        } catch (err) {
          // Bound to another principal since the request was made: no token either (the transaction rolls back).
          if (err instanceof PrincipalKeyError) throw new PairingError('key_taken', err.message);
          throw err;
        }
      }
      this.db.prepare("UPDATE pair_requests SET state = 'issued', token_id = ? WHERE id = ?").run(info.id, row.id);
      return {
        kind: 'issued',
        token,
        tokenId: info.id,
        scopes,
        principalKind,
        name: row.name,
        ...(principalKeyKid ? { principalKeyKid } : {}),
      };
    })();
  }
}
