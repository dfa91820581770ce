/** Shapes of the registry and directory service (registry-and-directory.md, semantics §11). */

export const REGISTRY_SPEC_VERSION = '0.1.0';
export const ENTRY_STATUSES = ['active', 'deprecated', 'recalled', 'deleted'] as const;
export type EntryStatus = (typeof ENTRY_STATUSES)[number];

/** How a namespace was proven. The values are those of a registry entry's `verification.method`. */
export type ProofMethod = 'dns_txt' | 'http_well_known' | 'github_oidc';

/** A stored registry entry: the published JSON document, as served. */
export interface RegistryEntry {
  kind: string;
  url: string;
  name: string;
  version: string;
  status: EntryStatus;
  sha256: string;
  description?: string;
  tags?: string[];
  verification?: { method: string; verifiedAt: string; by?: string };
  publishedAt: string;
  /** The last status change: when (for a tombstone, when it was deleted), and the publisher's message. */
  'x-status'?: { changedAt: string; message?: string };
  /** For a recipe collection: the id and document hash of each recipe it held when published. */
  'x-recipes'?: { id: string; hash: string }[];
  [extra: string]: unknown;
}

export interface DirectoryEntry {
  kind: 'DirectoryEntry';
  id: string;
  name: string;
  roles: string[];
  country: string;
  status: string;
  addedAt: string;
  verification?: { method: string; verifiedAt: string; by: string };
  [extra: string]: unknown;
}

export interface ValidationIssue {
  code: 'schema' | 'name' | 'version' | 'hash' | 'semantics' | 'namespace_unproven' | 'duplicate';
  /** JSON pointer into the submitted document (`''` is the whole document). */
  path: string;
  message: string;
}

export interface ValidationResult {
  valid: boolean;
  issues: ValidationIssue[];
}

export interface SearchQuery {
  kind?: string;
  q?: string;
  status?: EntryStatus;
  includeDeleted?: boolean;
  limit: number;
}

export interface StatusChange {
  name: string;
  version?: string;
  status: EntryStatus;
  message?: string;
  at: string;
}

/** A proof challenge: the token the publisher puts in DNS or under /.well-known/. */
export interface Challenge {
  id: string;
  namespace: string;
  domain: string;
  method: ProofMethod;
  token: string;
  createdAt: string;
  expiresAt: string;
}

/** A publish token as stored: only the SHA-256 of the secret is kept. */
export interface TokenRecord {
  id: string;
  hash: string;
  namespaces: string[];
  admin: boolean;
  createdAt: string;
}

/** A namespace this registry has seen proven, and how. */
export interface NamespaceProof {
  namespace: string;
  method: ProofMethod;
  verifiedAt: string;
}

/** One signed Recall document in the feed, with its position. */
export interface RecallRecord {
  seq: number;
  doc: Record<string, unknown>;
}
