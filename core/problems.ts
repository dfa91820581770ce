/**
 * The one catalog of problem types (RFC 9457) that every Hearth HTTP surface answers with.
 * A problem's `type` is `{base}/errors/<slug>`, where `base` is the serving surface's public base URL.
 * docs/errors.md documents every slug; a test keeps the two in step. Add new slugs here, never inline.
 */

export interface ProblemType {
  /** HTTP status the problem is answered with. */
  status: number;
  /** Short, stable, human-readable summary (RFC 9457 `title`). */
  title: string;
}

export const problemCatalog = {
  // The spec's own slugs (index-hub-executor.md §7, semantics §8).
  'policy-deny': { status: 403, title: 'Refused by policy' },
  'no-feasible-plan': { status: 409, title: 'No feasible plan' },
  'verification-level': { status: 409, title: 'Verification level too low' },
  recalled: { status: 409, title: 'Recipe revision is recalled' },
  'hash-mismatch': { status: 409, title: 'Recipe hash does not match' },
  'lease-conflict': { status: 409, title: 'Lease conflict' },
  'capability-mismatch': { status: 422, title: 'Capability mismatch' },
  'presence-required': { status: 409, title: 'A person must be present' },
  'not-human-approver': { status: 403, title: 'Only a person can approve this' },
  'limit-raise-refused': { status: 403, title: 'Safety limits cannot be raised' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  // Relief on a coordinator hub (runtime/hub/relief/relief.ts).
  'not-coordinator': { status: 409, title: 'This hub is not a relief coordinator' },
  'relief-mismatch': { status: 422, title: 'Pledge does not meet the need' },
  'over-allocation': { status: 409, title: 'More than is pledged or needed' },
  // Transport and protocol problems shared by every surface.
  'bad-request': { status: 400, title: 'Malformed request' },
  'invalid-json': { status: 400, title: 'Body is not valid JSON' },
  'validation-failed': { status: 422, title: 'Request failed validation' },
  // A webhook or A2A push URL that points inside the machine or its link (platform/net/outbound.ts).
  'destination-not-allowed': { status: 422, title: 'Destination address not allowed' },
  unauthorized: { status: 401, title: 'Authentication required' },
  forbidden: { status: 403, title: 'Token lacks the required scope' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'not-acceptable': { status: 406, title: 'Not acceptable' },
  conflict: { status: 409, title: 'Conflict with the current state' },
  'payload-too-large': { status: 413, title: 'Body too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'request-timeout': { status: 408, title: 'Request not received in time' },
  'headers-too-large': { status: 431, title: 'Request headers too large' },
  'upgrade-required': { status: 426, title: 'WebSocket upgrade required' },
  'precondition-failed': { status: 412, title: 'Precondition failed (If-Match)' },
  'precondition-required': { status: 428, title: 'Precondition required (If-Match)' },
  'idempotency-key-missing': { status: 400, title: 'Idempotency-Key header missing or malformed' },
  'idempotency-key-reused': { status: 422, title: 'Idempotency-Key reused with a different body' },
  'idempotency-key-in-flight': { status: 409, title: 'Request with this Idempotency-Key is still in progress' },
  'namespace-proof-failed': { status: 422, title: 'Namespace proof failed' },
  'unknown-recipe': { status: 404, title: 'Recipe not known to this device' },
  'authorization-pending': { status: 400, title: 'Pairing not yet approved' },
  'pairing-expired': { status: 400, title: 'Pairing expired or already used' },
  'pairing-denied': { status: 403, title: 'Pairing was rejected' },
  'host-not-allowed': { status: 403, title: 'Host name not allowed' },
  'origin-not-allowed': { status: 403, title: 'Origin not allowed' },
  'internal-error': { status: 500, title: 'Internal error' },
  'service-unavailable': { status: 503, title: 'Service unavailable' },
  'memory-pressure': { status: 503, title: 'Near the memory limit' },
  'query-too-complex': { status: 400, title: 'GraphQL operation too deep or too costly' },
} as const satisfies Record<string, ProblemType>;

export type ProblemSlug = keyof typeof problemCatalog;

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  [extension: string]: unknown;
}

/** Build a problem document for `slug`. `base` is the surface's public base URL without a trailing slash. */
export function problem(base: string, slug: ProblemSlug, detail?: string, extensions: Record<string, unknown> = {}): ProblemDocument {
  const entry: ProblemType = problemCatalog[slug];
  const doc: ProblemDocument = { type: `${base.replace(/\/+$/, '')}/errors/${slug}`, title: entry.title, status: entry.status };
  if (detail !== undefined) doc.detail = detail;
  return { ...doc, ...extensions };
}

export function isProblemSlug(value: string): value is ProblemSlug {
  return Object.hasOwn(problemCatalog, value);
}
