/**
 * The publish checks (registry-and-directory.md §4), shared by the validate and publish endpoints: schema,
 * name rules, exact version, a well-formed sha256, namespace proof, duplicates, and recipe semantics for
 * recipe collections. A recipe collection is fetched from its `url`, which must lie under one of the
 * registry's allowed bases; its bytes must hash to the entry's sha256, and every recipe in it must pass
 * the envelope checks. Issues carry JSON pointers into the submitted entry.
 */
import { parseJson } from '../../core/canonical.js';
import { documentHash, sha256Hex } from '../../core/hash.js';
import { checkRegistryName, checkRegistryVersion } from '../../core/registry-names.js';
import { recipeProblems, recipesOf } from './recipe-check.js';
import { directoryEntrySchemaIssues, registryEntrySchemaIssues } from './schemas.js';
import type { ValidationIssue, ValidationResult } from './types.js';

const SHA256 = /^[a-f0-9]{64}$/;

const NAME_MESSAGES: Record<string, string> = {
  length: 'must be 3 to 200 characters',
  not_lower_case: 'must be lower case',
  one_slash_required: 'must be <namespace>/<name> with exactly one slash',
  bad_format: 'must be a reverse-DNS namespace, a slash and a name (e.g. org.example/recipes)',
};
const VERSION_MESSAGES: Record<string, string> = {
  tag_not_allowed: 'tags such as latest or * are not versions; give an exact version',
  range_not_allowed: 'ranges are not allowed; give an exact version such as 1.2.3',
  not_semver: 'must be an exact semantic version such as 1.2.3',
};

export type FetchResult = { ok: true; bytes: Buffer } | { ok: false; message: string };

export interface EntryCheckContext {
  /** Namespaces the caller's token covers; `'any'` for an admin token; null when no token came. */
  tokenNamespaces: readonly string[] | 'any' | null;
  /** Whether this registry has ever seen the namespace proven (used when no token came). */
  isProven(namespace: string): Promise<boolean>;
  exists(name: string, version: string): Promise<boolean>;
  fetchCollection(url: string): Promise<FetchResult>;
}

export function namespaceOf(name: string): string {
  return name.split('/')[0] ?? '';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function namespaceCovered(ns: string, covered: readonly string[] | 'any' | null): boolean {
  return covered === 'any' || covered?.includes(ns) === true;
}

async function namespaceIssue(
  ns: string,
  ctx: Pick<EntryCheckContext, 'tokenNamespaces' | 'isProven'>,
  path: string,
): Promise<ValidationIssue | null> {
  if (ctx.tokenNamespaces !== null) {
    if (namespaceCovered(ns, ctx.tokenNamespaces)) return null;
    return { code: 'namespace_unproven', path, message: `the publish token does not cover the namespace ${ns}; prove it first` };
  }
  if (await ctx.isProven(ns)) return null;
  return { code: 'namespace_unproven', path, message: `the namespace ${ns} has not been proven on this registry` };
}

/** A recipe a collection holds, as the registry records it (pointers only: id and document hash). */
export interface RecipeRef {
  id: string;
  hash: string;
}

/** Most recipes a collection may list. */
export const MAX_COLLECTION_RECIPES = 5000;

function recipeRef(r: unknown): RecipeRef | null {
  if (!isObject(r) || typeof r.id !== 'string') return null;
  try {
    return { id: r.id, hash: documentHash(r) };
  } catch {
    return null;
  }
}

async function collectionIssues(
  doc: Record<string, unknown>,
  ctx: EntryCheckContext,
  found: { recipes?: RecipeRef[] },
): Promise<ValidationIssue[]> {
  const got = await ctx.fetchCollection(doc.url as string);
  if (!got.ok) return [{ code: 'semantics', path: '/url', message: got.message }];
  const issues: ValidationIssue[] = [];
  const actual = sha256Hex(got.bytes);
  if (typeof doc.sha256 === 'string' && SHA256.test(doc.sha256) && actual !== doc.sha256) {
    issues.push({ code: 'hash', path: '/sha256', message: `the collection at url hashes to ${actual}, not ${doc.sha256}` });
  }
  let parsed: unknown;
  try {
    parsed = parseJson(got.bytes.toString('utf8'));
  } catch (err) {
    return [...issues, { code: 'semantics', path: '/url', message: `the collection is not valid JSON: ${(err as Error).message}` }];
  }
  const recipes = recipesOf(parsed);
  if (!recipes || recipes.length === 0) {
    return [
      ...issues,
      { code: 'semantics', path: '/url', message: 'the collection holds no recipes (expected an array, {"recipes": [...]} or one recipe)' },
    ];
  }
  if (recipes.length > MAX_COLLECTION_RECIPES) {
    return [
      ...issues,
      { code: 'semantics', path: '/url', message: `the collection holds ${recipes.length} recipes; at most ${MAX_COLLECTION_RECIPES}` },
    ];
  }
  found.recipes = recipes.map(recipeRef).filter((x): x is RecipeRef => x !== null);
  recipes.forEach((r, i) => {
    const id = isObject(r) && typeof r.id === 'string' ? r.id : `#${i}`;
    for (const p of recipeProblems(r)) {
      issues.push({ code: p.code, path: '/url', message: `recipe ${id} (collection pointer /recipes/${i}${p.pointer}): ${p.message}` });
    }
  });
  return issues;
}

/**
 * Run every publish check on a submitted registry entry. For a recipe collection, `found.recipes` receives
 * the id and hash of each recipe it holds (the registry records them so a recall can name the recipes).
 */
export async function validateRegistryEntry(
  doc: unknown,
  ctx: EntryCheckContext,
  found: { recipes?: RecipeRef[] } = {},
): Promise<ValidationResult> {
  if (!isObject(doc)) return { valid: false, issues: [{ code: 'schema', path: '', message: 'a registry entry must be a JSON object' }] };
  const issues: ValidationIssue[] = registryEntrySchemaIssues(doc);
  const name = doc.name;
  let nameOk = false;
  if (name === undefined) issues.push({ code: 'name', path: '/name', message: 'is required to publish' });
  else {
    const reason = checkRegistryName(name);
    if (reason) issues.push({ code: 'name', path: '/name', message: `${NAME_MESSAGES[reason]} (${reason})` });
    else nameOk = true;
  }
  let versionOk = false;
  if (doc.version === undefined) issues.push({ code: 'version', path: '/version', message: 'is required to publish' });
  else {
    const reason = checkRegistryVersion(doc.version);
    if (reason) issues.push({ code: 'version', path: '/version', message: `${VERSION_MESSAGES[reason]} (${reason})` });
    else versionOk = true;
  }
  if (doc.sha256 === undefined)
    issues.push({ code: 'hash', path: '/sha256', message: 'is required: the lowercase hex SHA-256 of the artifact' });
  else if (typeof doc.sha256 !== 'string' || !SHA256.test(doc.sha256)) {
    issues.push({ code: 'hash', path: '/sha256', message: 'must be 64 lowercase hex characters (no sha256: prefix)' });
  }
  if (doc.status !== undefined && doc.status !== 'active') {
    issues.push({ code: 'schema', path: '/status', message: 'a new entry is published as active; change its status afterwards' });
  }
  if (nameOk) {
    const ns = namespaceOf(name as string);
    const nsIssue = await namespaceIssue(ns, ctx, '/name');
    if (nsIssue) issues.push(nsIssue);
    if (versionOk && (await ctx.exists(name as string, doc.version as string))) {
      issues.push({
        code: 'duplicate',
        path: '/version',
        message: `${name} ${doc.version} was already published; versions are never reused`,
      });
    }
  }
  const schemaOk = !issues.some((i) => i.code === 'schema');
  if (doc.kind === 'recipe_collection' && schemaOk) issues.push(...(await collectionIssues(doc, ctx, found)));
  return { valid: issues.length === 0, issues };
}

/** The namespace a directory id stands for: did:web:example.org → org.example; org:<namespace>; gln has none. */
export function directoryNamespace(id: string): string | null {
  if (id.startsWith('did:web:')) return id.slice('did:web:'.length).split('.').reverse().join('.');
  if (id.startsWith('org:')) return id.slice('org:'.length);
  return null;
}

/** Code-host account namespaces belong to people, and the directory lists organizations only. */
export function isPersonalNamespace(ns: string): boolean {
  return /^io\.github\./.test(ns) || /^com\.gitlab\./.test(ns);
}

/** Run the checks for a directory entry. */
export async function validateDirectoryEntry(
  doc: unknown,
  ctx: Pick<EntryCheckContext, 'tokenNamespaces' | 'isProven'>,
): Promise<ValidationResult> {
  if (!isObject(doc)) return { valid: false, issues: [{ code: 'schema', path: '', message: 'a directory entry must be a JSON object' }] };
  const issues = directoryEntrySchemaIssues(doc);
  if (issues.some((i) => i.path === '/id') || typeof doc.id !== 'string') return { valid: false, issues };
  const ns = directoryNamespace(doc.id);
  if (ns === null) {
    if (ctx.tokenNamespaces !== 'any') {
      issues.push({
        code: 'namespace_unproven',
        path: '/id',
        message: 'a gln: listing has no namespace to prove; ask the operator to vouch for it',
      });
    }
  } else if (isPersonalNamespace(ns)) {
    issues.push({
      code: 'semantics',
      path: '/id',
      message: `${ns} is a personal code-host account; the directory lists organizations only`,
    });
  } else {
    const nsIssue = await namespaceIssue(ns, ctx, '/id');
    if (nsIssue) issues.push(nsIssue);
  }
  return { valid: issues.length === 0, issues };
}
