/**
 * Sync as a service of the device: the configured indexes and trusted keys, one sync at a time (a request
 * while one runs joins it), every outcome logged and emitted on the bus as a 'sync' event, and the last
 * state of each index for GET /svc/v1/sync.
 */
import { readFileSync } from 'node:fs';
import { parseJson } from '../../core/canonical.js';
import { type KeyRecord, parseKeyRecord } from '../../core/keys.js';
import type { EventBus } from '../events/bus.js';
import type { RecallRepo } from '../store/recalls.js';
import { type SyncProgress, type SyncSummary, syncIndex } from './client.js';
import type { SyncStore } from './store.js';

/** Key records from a file holding one record, an array of them, or a document with `keys` (discovery). */
export function readTrustFile(file: string): KeyRecord[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`trust file ${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let json: unknown;
  try {
    json = parseJson(text);
  } catch (err) {
    throw new Error(`trust file ${file}: not valid JSON (${(err as Error).message})`);
  }
  const keys = (json as { keys?: unknown } | null)?.keys;
  const list = Array.isArray(json) ? json : Array.isArray(keys) ? keys : [json];
  if (list.length === 0) throw new Error(`trust file ${file}: holds no key records`);
  return list.map((k, i) => {
    try {
      return parseKeyRecord(k, `key record ${i + 1}`);
    } catch (err) {
      throw new Error(`trust file ${file}: ${(err as Error).message}`);
    }
  });
}

interface Log {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface SyncServiceDeps {
  store: SyncStore;
  recalls: RecallRepo;
  indexes: readonly string[];
  trusted: readonly KeyRecord[];
  bus?: EventBus;
  log?: Log;
  now?: () => number;
  timeoutMs?: number;
}

export class SyncService {
  private running?: Promise<SyncSummary[]>;
  private readonly abort = new AbortController();
  nextAt?: number;

  constructor(private readonly d: SyncServiceDeps) {}

  get indexes(): readonly string[] {
    return this.d.indexes;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Sync every configured index, one after the other; joins a sync already running. */
  syncNow(onProgress?: (index: string, p: SyncProgress) => void): Promise<SyncSummary[]> {
    this.running ??= this.run(onProgress).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private emit(kind: 'started' | 'applied' | 'rejected' | 'failed' | 'recall', message: string, detail: Record<string, unknown>): void {
    const at = new Date((this.d.now ?? Date.now)()).toISOString();
    this.d.bus?.emit('sync', { kind, message, at, detail });
  }

  private async run(onProgress?: (index: string, p: SyncProgress) => void): Promise<SyncSummary[]> {
    const out: SyncSummary[] = [];
    for (const index of this.d.indexes) {
      if (this.abort.signal.aborted) break;
      this.emit('started', `sync with ${index} started`, { index });
      const s = await syncIndex({
        indexUrl: index,
        trusted: this.d.trusted,
        store: this.d.store,
        recalls: this.d.recalls,
        ...(this.d.now ? { now: this.d.now } : {}),
        ...(this.d.timeoutMs ? { timeoutMs: this.d.timeoutMs } : {}),
        ...(onProgress ? { onProgress: (p: SyncProgress) => onProgress(index, p) } : {}),
        signal: this.abort.signal,
      });
      out.push(s);
      const detail = { ...s } as unknown as Record<string, unknown>;
      if (s.outcome === 'applied' || s.outcome === 'unchanged') {
        this.d.log?.info(detail, `sync ${s.outcome}`);
        this.emit('applied', summaryLine(s), detail);
        for (const id of s.newRecallIds) this.emit('recall', `recall ${id} from ${index} applied`, { index, recall: id });
      } else {
        this.d.log?.warn(detail, `sync ${s.outcome}: ${s.reason ?? ''}`);
        this.emit(s.outcome, summaryLine(s), detail);
      }
    }
    return out;
  }

  /** Abort a sync in progress (nothing of it is applied) and wait for it to end. */
  async close(): Promise<void> {
    this.abort.abort();
    await this.running?.catch(() => {});
  }

  /** The last verified state of every configured index, with the last attempt's summary. */
  status(): Record<string, unknown> {
    const indexes = this.d.indexes.map((url) => {
      const st = this.d.store.state(url);
      return {
        url,
        version: st.version,
        manifestHash: st.manifestHash,
        generatedAt: st.generatedAt,
        syncedAt: st.syncedAt === null ? null : new Date(st.syncedAt).toISOString(),
        recipes: this.d.store.recipeCount(url),
        recalls: [...this.d.store.heldRecalls(url).keys()].sort(),
        last: st.lastSummary,
      };
    });
    return {
      running: this.busy,
      ...(this.nextAt !== undefined ? { nextAt: new Date(this.nextAt).toISOString() } : {}),
      trustedKeys: this.d.trusted.map((k) => k.kid),
      indexes,
    };
  }
}

/** One line: `index URL: version 1 → 2, 3 upserted, 0 removed, 1 recall (1 new)` or the rejection. */
export function summaryLine(s: SyncSummary): string {
  const recalls = `${s.recalls} recall${s.recalls === 1 ? '' : 's'}${s.newRecalls > 0 ? ` (${s.newRecalls} new)` : ''}`;
  switch (s.outcome) {
    case 'applied':
      return `${s.index}: version ${s.from ?? 'none'} → ${s.to}, ${s.upserted} upserted, ${s.removed} removed, ${recalls}; downloaded ${s.downloaded}, reused ${s.reused} (${s.ms} ms)`;
    case 'unchanged':
      return `${s.index}: version ${s.to} unchanged, ${recalls}`;
    default:
      return `${s.index}: ${s.outcome}: ${s.reason ?? 'unknown'}; kept version ${s.from ?? 'none'}`;
  }
}
