/**
 * The Ed25519 keys of principals (the people agents act for), as semantics §1 key records whose `actor` is the
 * principal's id. A mandate verifies only against these (core/mandate.ts). A person's admin token registers a
 * key over `POST /svc/v1/principal-keys`, or the operator with `hearth mandate trust` on the device.
 */
import type { Database } from 'better-sqlite3';
import { type KeyRecord, parseKeyRecord } from '../../core/keys.js';
import type { Migration } from '../../platform/sqlite/migrations.js';

export const principalKeysMigration: Migration = {
  id: 'core.principal_keys.1',
  up(db) {
    db.exec(`CREATE TABLE principal_keys (
      kid TEXT PRIMARY KEY, principal TEXT NOT NULL, record TEXT NOT NULL, added_by TEXT NOT NULL, added_at INTEGER NOT NULL)`);
  },
};

export class PrincipalKeyError extends Error {
  constructor(
    message: string,
    readonly why: 'invalid' | 'conflict' | 'unknown',
  ) {
    super(message);
    this.name = 'PrincipalKeyError';
  }
}

export class PrincipalKeyStore {
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  /** Register a public key record (a private key is refused: it never belongs on the device). */
  add(raw: unknown, addedBy: string): KeyRecord {
    if (typeof raw === 'object' && raw !== null && 'privateKey' in raw)
      throw new PrincipalKeyError(
        'this is a key file with its private key: register the public record only (hearth keygen prints it)',
        'invalid',
      );
    let rec: KeyRecord;
    try {
      rec = parseKeyRecord(raw, 'principal key');
    } catch (err) {
      throw new PrincipalKeyError((err as Error).message, 'invalid');
    }
    if (rec.alg !== 'EdDSA') throw new PrincipalKeyError('principal keys are Ed25519 (alg EdDSA)', 'invalid');
    const existing = this.get(rec.kid);
    if (existing) {
      if (existing.publicKey !== rec.publicKey || existing.actor !== rec.actor)
        throw new PrincipalKeyError(`kid ${JSON.stringify(rec.kid)} is already registered with another key or principal`, 'conflict');
      return existing;
    }
    this.db
      .prepare('INSERT INTO principal_keys (kid, principal, record, added_by, added_at) VALUES (?, ?, ?, ?, ?)')
      .run(rec.kid, rec.actor, JSON.stringify(rec), addedBy, this.now());
    return rec;
  }

  get(kid: string): KeyRecord | undefined {
    const row = this.db.prepare('SELECT record FROM principal_keys WHERE kid = ?').get(kid) as { record: string } | undefined;
    return row ? (JSON.parse(row.record) as KeyRecord) : undefined;
  }

  list(): KeyRecord[] {
    return (this.db.prepare('SELECT record FROM principal_keys ORDER BY principal, kid').all() as { record: string }[]).map(
      (r) => JSON.parse(r.record) as KeyRecord,
    );
  }

  /** Revoke a key from now on: mandates signed at or after this instant no longer verify. */
  revoke(kid: string, reason = 'revoked'): KeyRecord {
    const rec = this.get(kid);
    if (!rec) throw new PrincipalKeyError(`no principal key ${JSON.stringify(kid)}`, 'unknown');
    if (rec.revokedAt) return rec;
    const next: KeyRecord = { ...rec, revokedAt: new Date(this.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'), revocationReason: reason };
    this.db.prepare('UPDATE principal_keys SET record = ? WHERE kid = ?').run(JSON.stringify(next), kid);
    return next;
  }
}
