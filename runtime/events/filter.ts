/**
 * Which events a consumer sees: the `types` prefixes and `session` it asked for, and what its token may read.
 * A token with `read` or `admin` reads everything; any other paired token still receives safety events and the
 * hub's availability (every participant must hear a safety event, whatever its scopes).
 */
import type { SvcCloudEvent } from './cloudevent.js';

export const READ_SCOPES = ['read', 'admin'] as const;
/** Every scope of the spec (§5): a route open to "any paired token" lists them all. */
export const ANY_SCOPE = ['read', 'cook', 'inventory', 'order:create', 'notify', 'admin', 'relief', 'emergency_stop'] as const;

const PREFIX = /^svc(\.[a-z0-9_]+)*\.?$/;
const MAX_PREFIXES = 32;

export interface EventFilter {
  /** Type prefixes (empty: every type). */
  types: string[];
  /** Only events of this session (kitchen-wide safety events without a session still pass). */
  session?: string;
  /** May read every category (else only safety and availability). */
  readAll: boolean;
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
  if (!f.readAll && !isOpenType(ce.type)) return false;
  if (f.types.length > 0 && !f.types.some((p) => ce.type.startsWith(p))) return false;
  if (f.session !== undefined && ce.svcsession !== f.session) {
    if (!(ce.type.startsWith('svc.safety.') && ce.svcsession === undefined)) return false;
  }
  return true;
}
