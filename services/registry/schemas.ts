/**
 * Schema checks of what a publisher submits, using the project's schemas (schemas/json/registry.schema.json).
 * Issues at /name, /version and /sha256 are left to the dedicated checks in validate.ts, so each of those
 * failures carries its own code (`name`, `version`, `hash`) instead of a generic `schema`.
 * A directory entry's `status` and `addedAt` are filled in by the registry, so they are optional on input.
 */
import { validate } from '../../schemas/index.js';
import type { ValidationIssue } from './types.js';

const OWN_CHECKS = new Set(['/name', '/version', '/sha256']);

function asIssues(list: { code: string; path: string; message: string }[]): ValidationIssue[] {
  return list.map((i) => ({ code: 'schema', path: i.path, message: i.message }));
}

/** Schema issues of a submitted registry entry (an object). */
export function registryEntrySchemaIssues(doc: Record<string, unknown>): ValidationIssue[] {
  const issues = asIssues(validate.registryEntry(doc).issues).filter((i) => !OWN_CHECKS.has(i.path));
  if (typeof doc.url === 'string' && !/^https?:\/\//.test(doc.url))
    issues.push({ code: 'schema', path: '/url', message: 'must be an http(s) URL' });
  return issues;
}

/** Schema issues of a submitted directory entry (an object). */
export function directoryEntrySchemaIssues(doc: Record<string, unknown>): ValidationIssue[] {
  const filled = { status: 'active', addedAt: '2000-01-01T00:00:00Z', ...doc };
  return asIssues(validate.directoryEntry(filled).issues);
}
