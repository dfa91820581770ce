/**
 * The checks sync makes on what an index serves (semantics §1, §10). Each failure is a `SyncRejection`
 * whose reason is one short line (`manifest bad_signature`, `recipe hash mismatch for <id>`,
 * `recall unknown_key for <id>`); the caller keeps the old state.
 */
import { parseJson } from '../../core/canonical.js';
import { documentHash, sha256Hex } from '../../core/hash.js';
import type { KeyRecord } from '../../core/keys.js';
import { verifyDocument } from '../../core/signature.js';
import { validate } from '../../schemas/index.js';
import { recipeEntry } from '../config/recipes.js';

export class SyncRejection extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'SyncRejection';
  }
}

export type Json = Record<string, unknown>;

export interface Shard {
  path: string;
  hash: string;
  bytes: number;
}

export interface Manifest {
  version: string;
  hash: string;
  generatedAt: string | null;
  shards: Map<string, Shard>;
}

export interface Changes {
  from: string;
  to: string;
  upserted: Map<string, string>;
  removed: Set<string>;
  recalls: { id: string; hash?: string }[];
}

const SHA256 = /^sha256:[0-9a-f]{64}$/;
const VERSION = /^[1-9][0-9]{0,15}$/;
export const RECIPE_PATH = /^\/v1\/recipes\/([a-z0-9][a-z0-9-]{1,63})\.svc\.json$/;
export const RECALL_PATH = /^\/v1\/recalls\/([A-Za-z0-9][A-Za-z0-9._-]{0,127})\.json$/;

/** Parse JSON bytes into an object, or reject naming `what`. */
export function jsonObject(bytes: Uint8Array, what: string): Json {
  let doc: unknown;
  try {
    doc = parseJson(Buffer.from(bytes).toString('utf8'));
  } catch (err) {
    throw new SyncRejection(`${what} is not valid JSON (${(err as Error).message.slice(0, 120)})`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new SyncRejection(`${what} is not a JSON object`);
  return doc as Json;
}

/** The bytes of a file listed in the manifest must have the listed SHA-256 and size. */
export function checkShard(bytes: Uint8Array, shard: Shard): string {
  const hash = `sha256:${sha256Hex(bytes)}`;
  if (hash !== shard.hash || bytes.byteLength !== shard.bytes) throw new SyncRejection(`shard hash mismatch for ${shard.path}`);
  return hash;
}

/** Verify the manifest's signature (kind Manifest) against the trusted keys only, and read its shards. */
export function checkManifest(doc: Json, trusted: readonly KeyRecord[]): Manifest {
  const v = verifyDocument(doc, trusted, { kind: 'Manifest' });
  if (!v.ok) throw new SyncRejection(`manifest ${v.reason}`);
  if (doc.hash !== undefined && doc.hash !== v.hash) throw new SyncRejection('manifest hash mismatch');
  if (typeof doc.version !== 'string' || !VERSION.test(doc.version))
    throw new SyncRejection(`manifest version ${JSON.stringify(doc.version).slice(0, 40)} is not a catalog version`);
  if (!Array.isArray(doc.shards)) throw new SyncRejection('manifest has no shards list');
  const shards = new Map<string, Shard>();
  for (const s of doc.shards as unknown[]) {
    const x = (typeof s === 'object' && s !== null ? s : {}) as Json;
    if (
      typeof x.path !== 'string' ||
      !x.path.startsWith('/v1/') ||
      x.path.includes('..') ||
      typeof x.hash !== 'string' ||
      !SHA256.test(x.hash)
    )
      throw new SyncRejection('manifest has a malformed shard');
    if (typeof x.bytes !== 'number' || !Number.isSafeInteger(x.bytes) || x.bytes < 0)
      throw new SyncRejection(`manifest shard ${x.path} has no size`);
    shards.set(x.path, { path: x.path, hash: x.hash, bytes: x.bytes });
  }
  return { version: doc.version, hash: v.hash, generatedAt: typeof doc.generatedAt === 'string' ? doc.generatedAt : null, shards };
}

/** Read a changes file; `from` and `to` must be the versions asked for. */
export function checkChanges(doc: Json, from: string, to: string): Changes {
  if (String(doc.from) !== from || String(doc.to) !== to)
    throw new SyncRejection(`changes file goes from ${String(doc.from)} to ${String(doc.to)}, not ${from} to ${to}`);
  const list = (name: string): Json[] => {
    const v = doc[name];
    if (!Array.isArray(v)) throw new SyncRejection(`changes file has no ${name} list`);
    return v.map((x) => (typeof x === 'object' && x !== null ? (x as Json) : {}));
  };
  const upserted = new Map<string, string>();
  for (const u of list('upserted')) {
    if (typeof u.id !== 'string' || typeof u.hash !== 'string') throw new SyncRejection('changes file has a malformed upsert');
    upserted.set(u.id, u.hash);
  }
  const removed = new Set<string>();
  for (const r of list('removed')) {
    if (typeof r.id !== 'string') throw new SyncRejection('changes file has a malformed removal');
    removed.add(r.id);
  }
  const recalls = list('recalls').map((r) => ({ id: String(r.id), ...(typeof r.hash === 'string' ? { hash: r.hash } : {}) }));
  return { from, to, upserted, removed, recalls };
}

/**
 * A downloaded recipe: the id its path names, a document hash equal to its declared `hash` and to the hash
 * the changes file lists (when it lists one), a recipe the executor can load and the recipe schema accepts.
 */
export function checkRecipe(doc: Json, id: string, expected: string | undefined): string {
  if (doc.id !== id) throw new SyncRejection(`recipe id mismatch for ${id}`);
  let hash: string;
  try {
    hash = documentHash(doc);
  } catch (err) {
    throw new SyncRejection(`recipe ${id} cannot be hashed (${(err as Error).message.slice(0, 120)})`);
  }
  if (doc.hash !== hash || (expected !== undefined && expected !== hash)) throw new SyncRejection(`recipe hash mismatch for ${id}`);
  try {
    recipeEntry(doc, id);
  } catch (err) {
    throw new SyncRejection(`recipe ${id} cannot be cooked: ${(err as Error).message}`);
  }
  const v = validate.recipe(doc);
  if (!v.valid) {
    const first = v.issues[0];
    throw new SyncRejection(`recipe ${id} is not a valid recipe document (${first ? `${first.path || '/'} ${first.message}` : 'schema'})`);
  }
  return hash;
}

const ACTIONS = new Set(['block', 'block_and_stop_running', 'warn']);

/** A signed Recall (kind Recall) verified against the trusted keys only, with targets the executor can read. */
export function checkRecall(doc: Json, id: string, trusted: readonly KeyRecord[]): string {
  if (doc.kind !== 'Recall') throw new SyncRejection(`recall ${id} is not a Recall document`);
  if (doc.id !== id) throw new SyncRejection(`recall id mismatch for ${id}`);
  const v = verifyDocument(doc, trusted, { kind: 'Recall' });
  if (!v.ok) throw new SyncRejection(`recall ${v.reason} for ${id}`);
  if (doc.hash !== undefined && doc.hash !== v.hash) throw new SyncRejection(`recall hash mismatch for ${id}`);
  if (typeof doc.issuedAt !== 'string' || !Number.isFinite(Date.parse(doc.issuedAt)))
    throw new SyncRejection(`recall ${id} has no valid issuedAt`);
  if (doc.action !== undefined && !ACTIONS.has(String(doc.action))) throw new SyncRejection(`recall ${id} has an unknown action`);
  const targets = doc.targets;
  if (!Array.isArray(targets) || targets.length === 0) throw new SyncRejection(`recall ${id} has no targets`);
  for (const t of targets) {
    const x = (typeof t === 'object' && t !== null ? t : {}) as Json;
    if (typeof x.ref !== 'string' || x.ref === '') throw new SyncRejection(`recall ${id} has a target without "ref"`);
    if (x.hash !== undefined && typeof x.hash !== 'string') throw new SyncRejection(`recall ${id} has a target with a bad hash`);
  }
  return v.hash;
}
