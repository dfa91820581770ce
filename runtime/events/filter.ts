/**
 * Which events a consumer sees: the `types` prefixes and `session` it asked for, and what its token may read.
 * A token with `read` or `admin` reads everything; any other paired token still receives safety events and the
 * hub's availability (every participant must hear a safety event, whatever its scopes), and the events of the
 * areas its scopes write (SCOPE_CATEGORIES: a `relief` token follows the needs, pledges and allocations it works on).
 */
import type { SvcCloudEvent } from './cloudevent.js';

export const READ_SCOPES = ['read', 'admin'] as const;
/** Every scope of the spec (§5): a route open to "any paired token" lists them all. */
export const ANY_SCOPE = ['read', 'cook', 'inventory', 'order:create', 'notify', 'admin', 'relief', 'emergency_stop'] as const;

/**
 * Event categories a scope lets its token read without `read`: the areas that scope writes. A category `c` is the
 * CloudEvent types `svc.c.*` and the MQTT topics `svc/{k}/c/…`.
 */
export const SCOPE_CATEGORIES: Readonly<Record<string, readonly string[]>> = { relief: ['relief'] };

/** The categories `scopes` may read beyond the open ones (SCOPE_CATEGORIES). */
export function scopeCategories(scopes: readonly string[]): string[] {
  return [...new Set(scopes.flatMap((s) => SCOPE_CATEGORIES[s] ?? []))];
}

/** The CloudEvent type prefixes of scopeCategories (`svc.relief.`). */
export function scopeTypePrefixes(scopes: readonly string[]): string[] {
  return scopeCategories(scopes).map((c) => `svc.${c}.`);
}

const PREFIX = /^svc(\.[a-z0-9_]+)*\.?$/;
const MAX_PREFIXES = 32;

export interface EventFilter {
  /** Type prefixes (empty: every type). */
  types: string[];
  /** Only events of this session (kitchen-wide safety events without a session still pass). */
  session?: string;
  /** May read every category (else only safety and availability, and `alsoTypes`). */
  readAll: boolean;
  /** Type prefixes its scopes let it read without `read` (scopeTypePrefixes). */
  alsoTypes?: readonly string[];
}

export class FilterError extends Error {}

/** Parse a comma-separated `types` value; throws FilterError with a one-line reason. */
export function parseTypes(value: unknown): string[] {
  if (value === undefined || value === '') return [];
  if (typeof value !== 'string') throw new FilterError('types must be one comma-separated list of type prefixes');
  const parts = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (parts.length > MAX_PREFIXES) throw new FilterError(`types lists at most ${MAX_PREFIXES} prefixes`);
  for (const p of parts) {
    if (p.length > 100 || !PREFIX.test(p))
      throw new FilterError(`types: ${JSON.stringify(p.slice(0, 100))} is not a type prefix like svc.task. or svc.safety.estop`);
  }
  return parts;
}

export function parseSession(value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || value.length > 200 || [...value].some((ch) => ch.charCodeAt(0) < 0x20))
    throw new FilterError('session must be a session id (at most 200 characters)');
  return value;
}

export function canReadAll(scopes: readonly string[]): boolean {
  return READ_SCOPES.some((s) => scopes.includes(s));
}

/** Event types every paired token may receive. */
export function isOpenType(type: string): boolean {
  return type.startsWith('svc.safety.') || type === 'svc.device.online' || type === 'svc.device.offline';
}

export function matches(ce: SvcCloudEvent, f: EventFilter): boolean {
  if (!f.readAll && !isOpenType(ce.type) && !(f.alsoTypes ?? []).some((p) => ce.type.startsWith(p))) return false;
  if (f.types.length > 0 && !f.types.some((p) => ce.type.startsWith(p))) return false;
  if (f.session !== undefined && ce.svcsession !== f.session) {
    if (!(ce.type.startsWith('svc.safety.') && ce.svcsession === undefined)) return false;
  }
  return true;
}
