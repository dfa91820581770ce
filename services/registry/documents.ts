/**
 * The published documents: the registry (`{svc, generatedAt, registry, entries}`), the directory, and the
 * signed recall feed. Each is rebuilt once per store revision, so it reflects every change and costs nothing
 * between changes. `exportDocuments` writes the same files for static hosting.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../../core/hash.js';
import { type KeyFile, publicRecord } from '../../core/keys.js';
import { signDocument } from '../../core/signature.js';
import type { RegistryStore } from './store/store.js';
import { REGISTRY_SPEC_VERSION, type RegistryEntry } from './types.js';

export interface DocumentSource {
  store: RegistryStore;
  key: KeyFile;
  now: () => Date;
  /** Public base URL of this registry, written as `registry` and as the recall issuer. */
  registry: string;
}

/**
 * Build the signed Recall document for entries that became `recalled`. `entries` names the registry entries;
 * `targets` names the recipes of recalled recipe collections (`ref` = recipe id, `hash` = that revision), in
 * the form an index reads recall targets, so `hearth index build --recalls` can take the exported files.
 */
export function recallDocument(
  src: Pick<DocumentSource, 'key' | 'registry'>,
  entries: RegistryEntry[],
  seq: number,
  at: string,
  message?: string,
) {
  const doc = {
    svc: REGISTRY_SPEC_VERSION,
    kind: 'Recall',
    id: `rc-${String(seq).padStart(6, '0')}`,
    seq,
    issuedAt: at,
    issuer: src.registry,
    entries: entries.map((e) => ({ name: e.name, version: e.version, kind: e.kind, sha256: e.sha256, url: e.url })),
    targets: entries.flatMap((e) => (e['x-recipes'] ?? []).map((r) => ({ ref: r.id, hash: r.hash }))),
    severity: 'high',
    reason: 'publisher_recall',
    action: 'block_and_stop_running',
    detail: message ?? 'Recalled by the publisher.',
  };
  return signDocument(doc, src.key, { kind: 'Recall', signedAt: at });
}

/** A built document: its text, the UTF-8 bytes served, and a strong ETag. */
export interface Built {
  text: string;
  body: Buffer;
  etag: string;
}

export class Documents {
  private cache = new Map<string, Built & { rev: number }>();

  constructor(private readonly src: DocumentSource) {}

  private async cached(name: string, build: () => Promise<unknown>): Promise<string> {
    return (await this.built(name, async () => JSON.stringify(await build()))).text;
  }

  /** The document `name` as of the store's current revision; `build` writes its JSON text. */
  private async built(name: string, build: () => Promise<string>): Promise<Built> {
    const rev = await this.src.store.revision();
    const hit = this.cache.get(name);
    if (hit && hit.rev === rev) return hit;
    const text = await build();
    const body = Buffer.from(text);
    const entry = { rev, text, body, etag: `"${sha256Hex(body).slice(0, 32)}"` };
    this.cache.set(name, entry);
    return entry;
  }

  /** A document by name (`registry`, `directory`, `recalls`) with its ETag. */
  async get(name: 'registry' | 'directory' | 'recalls'): Promise<Built> {
    if (name === 'registry') await this.registry();
    else if (name === 'directory') await this.directory();
    else await this.recallFeed();
    return this.cache.get(name) as Built;
  }

  /**
   * The registry document. The entries are spliced in as the store's JSON array text, without parsing and
   * re-serializing every entry: with 100,000 entries that is the difference between milliseconds and seconds.
   */
  async registry(): Promise<string> {
    return (
      await this.built('registry', async () => {
        const head = JSON.stringify({ svc: REGISTRY_SPEC_VERSION, generatedAt: this.src.now().toISOString(), registry: this.src.registry });
        return `${head.slice(0, -1)},"entries":${await this.src.store.entriesJson()}}`;
      })
    ).text;
  }

  directory(): Promise<string> {
    return this.cached('directory', async () => ({
      svc: REGISTRY_SPEC_VERSION,
      generatedAt: this.src.now().toISOString(),
      note: 'Organizations that asked to be listed. Listing is not endorsement, certification or partnership.',
      entries: await this.src.store.allDirectoryEntries(),
    }));
  }

  recallFeed(): Promise<string> {
    return this.cached('recalls', async () => ({
      svc: REGISTRY_SPEC_VERSION,
      generatedAt: this.src.now().toISOString(),
      registry: this.src.registry,
      keys: [publicRecord(this.src.key)],
      recalls: (await this.src.store.recalls(0)).map((r) => r.doc),
    }));
  }
}

/**
 * Write v1/registry.json, v1/directory.json, v1/recalls.json and v1/registry-keys.json under `outDir`, and
 * each recall that names recipes as v1/recalls/<id>.json (the folder `hearth index build --recalls` reads).
 * Returns the paths written.
 */
export async function exportDocuments(src: DocumentSource, outDir: string): Promise<string[]> {
  const docs = new Documents(src);
  const dir = join(outDir, 'v1');
  mkdirSync(join(dir, 'recalls'), { recursive: true });
  const files: [string, string][] = [
    ['registry.json', await docs.registry()],
    ['directory.json', await docs.directory()],
    ['recalls.json', await docs.recallFeed()],
    ['registry-keys.json', JSON.stringify({ svc: REGISTRY_SPEC_VERSION, keys: [publicRecord(src.key)] })],
  ];
  for (const r of await src.store.recalls(0)) {
    const targets = r.doc.targets;
    if (Array.isArray(targets) && targets.length > 0) files.push([join('recalls', `${String(r.doc.id)}.json`), JSON.stringify(r.doc)]);
  }
  return files.map(([name, text]) => {
    const path = join(dir, name);
    writeFileSync(path, `${text}\n`);
    return path;
  });
}
