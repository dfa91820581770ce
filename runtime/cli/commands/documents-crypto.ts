/** `hearth hash`, `keygen`, `sign`, `verify`: document hashes and Ed25519 signatures (semantics §1). */

import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { documentHash } from '../../../core/hash.js';
import { generateKeyFile, type KeyRecord, parseKeyFile, parseKeyRecord, publicRecord } from '../../../core/keys.js';
import { signDocument, verifyDocument } from '../../../core/signature.js';
import { CliError } from '../errors.js';
import { json, output, print, readJsonFile, readJsonObject } from './documents-io.js';

function hashOf(doc: Record<string, unknown>, file: string): string {
  try {
    return documentHash(doc);
  } catch (err) {
    throw new CliError(`${file} cannot be hashed: ${(err as Error).message}`);
  }
}

export function hashCommand(file: string, opts: { check?: boolean; json?: boolean }): number {
  const doc = readJsonObject(file, 'document');
  const hash = hashOf(doc, file);
  if (!opts.check) {
    print(opts.json ? json({ hash }) : hash);
    return 0;
  }
  const declared = doc.hash;
  const ok = declared === hash;
  if (opts.json) print(json({ hash, declared: declared ?? null, ok }));
  else if (declared === undefined) print(`no declared hash; computed ${hash}`);
  else print(ok ? `ok ${hash}` : `mismatch: declared ${String(declared)}, computed ${hash}`);
  return ok ? 0 : 1;
}

export function keygenCommand(opts: { kid?: string; actor?: string; out?: string; validFrom?: string; force?: boolean }): number {
  const kid = opts.kid ?? `hearth-${randomBytes(4).toString('hex')}`;
  const actor = opts.actor ?? 'local';
  let key: ReturnType<typeof generateKeyFile>;
  try {
    key = generateKeyFile({ kid, actor, ...(opts.validFrom !== undefined ? { validFrom: opts.validFrom } : {}) });
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  if (opts.out === undefined) {
    output(json(key));
    process.stderr.write('hearth: the key file above holds a private key; keep it secret\n');
    return 0;
  }
  if (existsSync(opts.out) && !opts.force) throw new CliError(`${opts.out} exists; pass --force to overwrite it`);
  output(json(key), opts.out, 0o600);
  print(json(publicRecord(key)));
  return 0;
}

export function signCommand(file: string, opts: { key: string; kind?: string; out?: string; signedAt?: string }): number {
  const doc = readJsonObject(file, 'document');
  let key: ReturnType<typeof parseKeyFile>;
  try {
    key = parseKeyFile(readJsonFile(opts.key, 'key file'));
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`${opts.key}: ${(err as Error).message}`);
  }
  let signed: Record<string, unknown>;
  try {
    signed = signDocument(doc, key, {
      ...(opts.kind !== undefined ? { kind: opts.kind } : {}),
      ...(opts.signedAt !== undefined ? { signedAt: opts.signedAt } : {}),
    });
  } catch (err) {
    throw new CliError(`cannot sign ${file}: ${(err as Error).message}`);
  }
  output(json(signed), opts.out);
  return 0;
}

/** Key records from a keys file: an array of records, `{keys: [...]}`, or the one record `hearth keygen` prints. */
export function readKeys(file: string): KeyRecord[] {
  const raw = readJsonFile(file, 'keys file');
  const obj = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
  const list = Array.isArray(raw)
    ? raw
    : Array.isArray(obj?.keys)
      ? (obj.keys as unknown[])
      : obj !== undefined && 'kid' in obj && 'publicKey' in obj
        ? [obj]
        : undefined;
  if (list === undefined) throw new CliError(`keys file ${file} must hold a key record, an array of key records or {"keys": [...]}`);
  return list.map((k, i) => {
    try {
      return parseKeyRecord(k, `key ${i}`);
    } catch (err) {
      throw new CliError(`keys file ${file}: ${(err as Error).message}`);
    }
  });
}

export function verifyCommand(file: string, opts: { keys: string; kind?: string; json?: boolean }): number {
  const doc = readJsonObject(file, 'document');
  const keys = readKeys(opts.keys);
  const r = verifyDocument(doc, keys, opts.kind !== undefined ? { kind: opts.kind } : {});
  let reason: string = r.reason;
  if (r.ok && typeof doc.hash === 'string' && doc.hash !== r.hash) reason = 'hash_mismatch';
  const ok = reason === 'ok';
  const kid = typeof doc.signature === 'object' && doc.signature !== null ? (doc.signature as { kid?: unknown }).kid : undefined;
  if (opts.json) print(json({ ok, reason, hash: r.hash, ...(typeof kid === 'string' ? { kid } : {}) }));
  else print(ok ? `ok ${r.hash} signed by ${String(kid)}` : reason);
  return ok ? 0 : 1;
}
