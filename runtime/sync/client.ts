/**
 * One sync with one index (spec 4.1, semantics §10): read discovery, verify the manifest against the trusted
 * keys, fetch what changed since the last verified version (the changes file, checked against the manifest's
 * shards), verify every file's SHA-256 and every recipe's and recall's own hash and signature, stage each
 * verified document, then apply everything in one transaction. Any failed check rejects the whole sync and
 * the old state stays; a network failure leaves the staged documents for the next attempt.
 */
import type { KeyRecord } from '../../core/keys.js';
import type { RecallDoc, RecallRepo } from '../store/recalls.js';
import { FetchError, fetchBytes, TooLargeError } from './fetch.js';
import type { StagedDoc, StagedRef, SyncStore } from './store.js';
import {
  type Changes,
  checkChanges,
  checkManifest,
  checkRecall,
  checkRecipe,
  checkShard,
  jsonObject,
  RECALL_PATH,
  RECIPE_PATH,
  type Shard,
  SyncRejection,
} from './verify.js';

export interface SyncSummary {
  index: string;
  outcome: 'applied' | 'unchanged' | 'rejected' | 'failed';
  /** Catalog version before and after (after = before unless applied). */
  from: string | null;
  to: string | null;
  upserted: number;
  removed: number;
  /** Recalls this index publishes (all verified), and how many are new to the device. */
  recalls: number;
  newRecalls: number;
  /** Ids of the recalls new to the device. */
  newRecallIds: string[];
  downloaded: number;
  /** Verified documents taken from staging instead of downloading them again. */
  reused: number;
  reason?: string;
  at: string;
  ms: number;
}

export interface SyncProgress {
  phase: 'recipes' | 'recalls';
  done: number;
  total: number;
}

export interface SyncOptions {
  indexUrl: string;
  trusted: readonly KeyRecord[];
  store: SyncStore;
  recalls: RecallRepo;
  now?: () => number;
  timeoutMs?: number;
  /** Cap on the manifest, discovery and changes files (default 32 MiB). */
  maxIndexBytes?: number;
  /** Cap on one recipe or recall (default 4 MiB). */
  maxDocBytes?: number;
  concurrency?: number;
  onProgress?: (p: SyncProgress) => void;
  /** Abort the sync (nothing is applied; staged documents stay). */
  signal?: AbortSignal;
}

/** `http://host/x/` and `http://host/x` name the same index. */
export function normalizeIndexUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`index URL ${JSON.stringify(raw)} is not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`index URL ${raw} must be http or https`);
  if (u.search || u.hash) throw new Error(`index URL ${raw} must not carry a query or fragment`);
  return u.href.replace(/\/+$/, '');
}

/** Run `fn` over `items` with at most `n` at once; the first error stops handing out work and is thrown. */
async function pool<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const item = items[next++] as T;
      try {
        await fn(item);
      } catch (err) {
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  if (failure !== undefined) throw failure;
}

export async function syncIndex(o: SyncOptions): Promise<SyncSummary> {
  const now = o.now ?? Date.now;
  const t0 = performance.now();
  const url = normalizeIndexUrl(o.indexUrl);
  const before = o.store.state(url);
  const summary: SyncSummary = {
    index: url,
    outcome: 'unchanged',
    from: before.version,
    to: before.version,
    upserted: 0,
    removed: 0,
    recalls: o.store.heldRecalls(url).size,
    newRecalls: 0,
    newRecallIds: [],
    downloaded: 0,
    reused: 0,
    at: new Date(now()).toISOString(),
    ms: 0,
  };
  const docLimit = o.maxDocBytes ?? 4 * 1024 * 1024;
  const indexLimit = o.maxIndexBytes ?? 32 * 1024 * 1024;
  const timeoutMs = o.timeoutMs ?? 15_000;
  const get = (path: string, maxBytes: number, v?: string) =>
    fetchBytes(`${url}${path}${v ? `?v=${encodeURIComponent(v)}` : ''}`, {
      timeoutMs,
      maxBytes,
      ...(o.signal ? { signal: o.signal } : {}),
    });
  const getShard = async (shard: Shard, v: string, cap: number) => {
    if (shard.bytes > cap) throw new SyncRejection(`${shard.path} is ${shard.bytes} bytes, above the ${cap} allowed`);
    const bytes = await get(shard.path, shard.bytes, v).catch((err: unknown) => {
      throw err instanceof TooLargeError ? new SyncRejection(`shard hash mismatch for ${shard.path}`) : err;
    });
    checkShard(bytes, shard);
    summary.downloaded++;
    return bytes;
  };
  try {
    const discovery = jsonObject(await get('/.well-known/svc.json', 1024 * 1024), 'discovery');
    if (Array.isArray(discovery.versions) && !discovery.versions.includes('v1')) throw new SyncRejection('discovery does not offer v1');
    const manifestBytes = await get('/v1/manifest.json', indexLimit).catch((err: unknown) => {
      throw err instanceof TooLargeError ? new SyncRejection('manifest too large') : err;
    });
    const manifest = checkManifest(jsonObject(manifestBytes, 'manifest'), o.trusted);
    const v = manifest.version;
    summary.to = v;
    if (before.version !== null) {
      if (Number(v) < Number(before.version)) throw new SyncRejection(`manifest version rollback (${v} < ${before.version})`);
      if (v === before.version) {
        if (manifest.hash !== before.manifestHash) throw new SyncRejection(`manifest version ${v} differs from the one verified before`);
        return finish('unchanged');
      }
    }
    // What the manifest says the catalog is now: recipe and recall files with their SHA-256.
    const recipeShards = new Map<string, Shard>();
    const recallShards = new Map<string, Shard>();
    for (const s of manifest.shards.values()) {
      const r = RECIPE_PATH.exec(s.path);
      if (r) recipeShards.set(r[1] as string, s);
      const c = RECALL_PATH.exec(s.path);
      if (c) recallShards.set(c[1] as string, s);
    }
    let changes: Changes | undefined;
    const changesShard = manifest.shards.get(`/v1/changes/${before.version ?? '0'}.json`);
    if (changesShard) {
      changes = checkChanges(jsonObject(await getShard(changesShard, v, indexLimit), 'changes file'), before.version ?? '0', v);
      for (const id of changes.upserted.keys())
        if (!recipeShards.has(id)) throw new SyncRejection(`changes file lists ${id} but the manifest has no such recipe`);
      for (const id of changes.removed)
        if (recipeShards.has(id)) throw new SyncRejection(`changes file removes ${id} but the manifest lists it`);
    }
    const held = o.store.held(url);
    const toFetch: [string, Shard][] = [];
    for (const [id, shard] of recipeShards) {
      const h = held.get(id);
      const expected = changes?.upserted.get(id);
      if (h && h.fileHash === shard.hash) {
        if (expected !== undefined && expected !== h.hash) throw new SyncRejection(`recipe hash mismatch for ${id}`);
        continue;
      }
      toFetch.push([id, shard]);
    }
    const removals = [...held.keys()].filter((id) => !recipeShards.has(id));

    const upserts: StagedRef[] = [];
    let done = 0;
    await pool(toFetch, o.concurrency ?? 8, async ([id, shard]) => {
      const staged = o.store.stagedRef(shard.hash);
      const expected = changes?.upserted.get(id);
      if (staged && staged.kind === 'recipe' && staged.id === id && (expected === undefined || expected === staged.hash)) {
        summary.reused++;
        upserts.push(staged);
      } else {
        const bytes = await getShard(shard, v, docLimit);
        const doc = jsonObject(bytes, `recipe ${id}`);
        const hash = checkRecipe(doc, id, expected);
        const d: StagedDoc = { fileHash: shard.hash, kind: 'recipe', id, hash, doc: Buffer.from(bytes).toString('utf8') };
        o.store.stage(d);
        upserts.push({ fileHash: d.fileHash, kind: d.kind, id, hash });
      }
      o.onProgress?.({ phase: 'recipes', done: ++done, total: toFetch.length });
    });

    const heldRecalls = o.store.heldRecalls(url);
    const recalls: { doc: StagedRef; severity: string | null }[] = [];
    let rdone = 0;
    const recallList = [...recallShards].filter(([id, shard]) => heldRecalls.get(id)?.fileHash !== shard.hash);
    await pool(recallList, o.concurrency ?? 8, async ([id, shard]) => {
      let d = o.store.staged(shard.hash);
      if (d && d.kind === 'recall' && d.id === id) summary.reused++;
      else {
        const bytes = await getShard(shard, v, docLimit);
        const hash = checkRecall(jsonObject(bytes, `recall ${id}`), id, o.trusted);
        d = { fileHash: shard.hash, kind: 'recall', id, hash, doc: Buffer.from(bytes).toString('utf8') };
        o.store.stage(d);
      }
      const severity = (JSON.parse(d.doc) as { severity?: unknown }).severity;
      recalls.push({ doc: d, severity: typeof severity === 'string' ? severity : null });
      o.onProgress?.({ phase: 'recalls', done: ++rdone, total: recallList.length });
    });

    if (o.signal?.aborted) throw new FetchError('sync aborted before applying');
    summary.upserted = upserts.length;
    summary.removed = removals.length;
    summary.recalls = recallShards.size;
    summary.newRecallIds = recalls
      .filter((r) => !heldRecalls.has(r.doc.id))
      .map((r) => r.doc.id)
      .sort();
    summary.newRecalls = summary.newRecallIds.length;
    summary.outcome = 'applied';
    summary.ms = Math.round(performance.now() - t0);
    o.store.apply({
      url,
      version: v,
      manifestHash: manifest.hash,
      generatedAt: manifest.generatedAt,
      upserts,
      removals,
      recalls,
      addRecall: (d) => o.recalls.add(JSON.parse(d.doc) as RecallDoc),
      summary: { ...summary },
    });
    return summary;
  } catch (err) {
    if (err instanceof SyncRejection) return finish('rejected', err.reason);
    if (err instanceof FetchError) return finish('failed', err.message);
    throw err;
  }

  function finish(outcome: SyncSummary['outcome'], reason?: string): SyncSummary {
    summary.outcome = outcome;
    if (outcome === 'rejected' || outcome === 'failed') summary.to = before.version;
    if (reason !== undefined) summary.reason = reason;
    summary.ms = Math.round(performance.now() - t0);
    o.store.recordAttempt(url, { ...summary });
    return summary;
  }
}
