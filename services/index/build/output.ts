/**
 * The index's output directory and its build state. Every file goes through `emit`, which writes only when
 * the content differs from what the last build wrote (or the file went missing), so an incremental build
 * leaves unchanged files — and their mtimes — alone. Files the last build wrote and this one did not are
 * removed at the end.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sha256Hex } from '../../../core/hash.js';
import type { KeyRecord } from '../../../core/keys.js';

export const STATE_FILE = '.hearth-index-state.json';
const STATE_FORMAT = 1;

export interface FileRecord {
  hash: string;
  bytes: number;
}

export interface HistoryEntry {
  version: number;
  generatedAt: string;
  upserted: { id: string; hash: string }[];
  removed: { id: string; reason: string }[];
}

export interface BuildState {
  format: number;
  version: number;
  generatedAt?: string;
  /** Every file the last build wrote, by path relative to the out dir (`v1/...`). */
  files: Record<string, FileRecord>;
  /** Recipe id → hash of the current catalog. */
  recipes: Record<string, string>;
  /** Recall id → document hash. */
  recalls: Record<string, string>;
  /** One entry per catalog version: what changed in it. */
  history: HistoryEntry[];
  /** Every signing key this index has published, newest last (kept so old signatures still verify). */
  keys: KeyRecord[];
  /** Hash of the (id, hash) list the dump was made from; an unchanged catalog reuses the dump. */
  dumpOf?: string;
}

export function emptyState(): BuildState {
  return { format: STATE_FORMAT, version: 0, files: {}, recipes: {}, recalls: {}, history: [], keys: [] };
}

/** Read the state file of `outDir`; a missing one is an empty index, an unreadable one is an error. */
export function readState(outDir: string): BuildState {
  let text: string;
  try {
    text = readFileSync(join(outDir, STATE_FILE), 'utf8');
  } catch {
    return emptyState();
  }
  let state: BuildState;
  try {
    state = JSON.parse(text) as BuildState;
  } catch {
    throw new Error(`${join(outDir, STATE_FILE)} is not valid JSON; remove it to rebuild the index from scratch`);
  }
  if (state?.format !== STATE_FORMAT || typeof state.version !== 'number' || typeof state.files !== 'object') {
    throw new Error(`${join(outDir, STATE_FILE)} has an unknown format; remove it to rebuild the index from scratch`);
  }
  return state;
}

/** Write `content` to `file` atomically (a temporary file renamed into place). */
export function writeAtomic(file: string, content: string | Uint8Array): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, content);
  renameSync(tmp, file);
}

export class OutputDir {
  readonly emitted = new Map<string, FileRecord>();
  written = 0;
  kept = 0;
  /** True once some file's content differed from the last build's. */
  contentChanged = false;

  constructor(
    readonly outDir: string,
    private readonly previous: Record<string, FileRecord>,
  ) {}

  /** Emit one file (`rel` like `v1/recipes/x.svc.json`); returns its record. */
  emit(rel: string, content: string | Uint8Array): FileRecord {
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    const rec: FileRecord = { hash: `sha256:${sha256Hex(data)}`, bytes: data.byteLength };
    const old = this.previous[rel];
    const same = old !== undefined && old.hash === rec.hash;
    if (!same) this.contentChanged = true;
    const file = join(this.outDir, rel);
    if (same && intactOnDisk(file, rec)) this.kept++;
    else {
      writeAtomic(file, data);
      this.written++;
    }
    this.emitted.set(rel, rec);
    return rec;
  }

  /** Keep a file of the last build as it is, without its content at hand; false if it is gone from disk. */
  keep(rel: string): boolean {
    const old = this.previous[rel];
    if (old === undefined || !intactOnDisk(join(this.outDir, rel), old)) return false;
    this.emitted.set(rel, old);
    this.kept++;
    return true;
  }

  /** Paths the last build wrote that this one has not emitted (so far). */
  stale(): string[] {
    return Object.keys(this.previous).filter((p) => !this.emitted.has(p));
  }

  /** Remove the stale files; returns how many. */
  removeStale(): number {
    const stale = this.stale();
    for (const rel of stale) rmSync(join(this.outDir, rel), { force: true });
    return stale.length;
  }

  files(): Record<string, FileRecord> {
    return Object.fromEntries([...this.emitted.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}

/** The file on disk still holds exactly what the last build wrote (size first, then content hash). */
function intactOnDisk(file: string, rec: FileRecord): boolean {
  try {
    if (statSync(file).size !== rec.bytes) return false;
    return `sha256:${sha256Hex(readFileSync(file))}` === rec.hash;
  } catch {
    return false;
  }
}

export function writeState(outDir: string, state: BuildState): void {
  writeAtomic(join(outDir, STATE_FILE), `${JSON.stringify(state)}\n`);
}
