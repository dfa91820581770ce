/**
 * The storage seam of the registry. Everything the service keeps goes through this interface, so another
 * backend (PostgreSQL, for operators who outgrow one machine) can replace the SQLite one without touching the
 * HTTP layer. Methods are asynchronous for that reason; each one is atomic on its own.
 */
import type {
  Challenge,
  DirectoryEntry,
  EntryStatus,
  NamespaceProof,
  RecallRecord,
  RegistryEntry,
  SearchQuery,
  StatusChange,
  TokenRecord,
} from '../types.js';

export interface StatusResult {
  /** Entries whose status changed (entries already in the target status are left alone). */
  changed: RegistryEntry[];
  /** The recall appended for this change, if any. */
  recall?: RecallRecord;
}

export interface RegistryStore {
  /** Insert a new name and version. `exists` when that pair was ever published (also when deleted since). */
  insertEntry(entry: RegistryEntry): Promise<'inserted' | 'exists'>;
  /** Bulk insert for imports and benchmarks; pairs that exist are skipped. Returns the number inserted. */
  insertEntries(entries: readonly RegistryEntry[]): Promise<number>;
  hasVersion(name: string, version: string): Promise<boolean>;
  /** Every version of `name`, tombstones included, newest first. */
  versions(name: string): Promise<RegistryEntry[]>;
  search(query: SearchQuery): Promise<RegistryEntry[]>;
  /** Every entry, tombstones included, in publishing order. */
  allEntries(): Promise<RegistryEntry[]>;
  /** The same, as the text of a JSON array (for the registry document, without a parse and re-serialize). */
  entriesJson(): Promise<string>;
  /**
   * Move one version (or all versions) of a name to `change.status`. `recallFor` builds the signed recall
   * document for the entries that became `recalled`; it is stored in the same transaction.
   * Returns null when the name (or the named version) does not exist.
   */
  setStatus(
    change: StatusChange,
    recallFor?: (changed: RegistryEntry[], seq: number) => Record<string, unknown>,
  ): Promise<StatusResult | null>;

  getDirectoryEntry(id: string): Promise<DirectoryEntry | null>;
  putDirectoryEntry(entry: DirectoryEntry): Promise<'inserted' | 'updated'>;
  allDirectoryEntries(): Promise<DirectoryEntry[]>;

  /** Recalls with a sequence number greater than `since`, oldest first. */
  recalls(since: number): Promise<RecallRecord[]>;
  lastRecallSeq(): Promise<number>;

  putChallenge(challenge: Challenge): Promise<void>;
  /** The newest unused challenge for a namespace and method. */
  pendingChallenge(namespace: string, method: Challenge['method']): Promise<Challenge | null>;
  consumeChallenge(id: string): Promise<void>;

  recordProof(proof: NamespaceProof): Promise<void>;
  proofOf(namespace: string): Promise<NamespaceProof | null>;

  putToken(token: TokenRecord): Promise<void>;
  /** The live token with this SHA-256 (revoked tokens are not found). */
  tokenByHash(hash: string): Promise<TokenRecord | null>;
  /** Revoke a token by id; false when no live token has that id. */
  revokeToken(id: string, at: string): Promise<boolean>;
  hasAdminToken(): Promise<boolean>;

  /**
   * Bumped on every change of entries, directory or recalls; documents are cached per revision. On a database
   * shared by several processes it counts the changes of all of them.
   */
  revision(): Promise<number>;
  close(): Promise<void>;
}

export type { EntryStatus };
