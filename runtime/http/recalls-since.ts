/**
 * The `since` query of `GET /v1/recalls`: an RFC 3339 date-time with a time zone (`2026-11-25T06:00:00Z`, or
 * `2026-11-25T08:00:00%2B02:00` with the `+` percent-encoded, since a bare `+` in a query string means a space).
 * A bad value is a 400 problem that says what was received and what to write instead.
 */
import { parseRfc3339 } from '../../core/time.js';
import { ProblemError } from '../../platform/http/problems.js';

export const SINCE_EXAMPLE = '2026-11-25T06:00:00Z';

/** Milliseconds since the epoch of `since`, or a ProblemError explaining the format. */
export function parseRecallsSince(since: string): number {
  const t = parseRfc3339(since);
  if (t !== null) return Number(t.epochMicros / 1000n);
  let message = `${JSON.stringify(since)} is not an RFC 3339 date-time with a time zone; write it like ${SINCE_EXAMPLE}`;
  if (/\d \d{2}:\d{2}$/.test(since)) message += ' (a "+" in a query string reads as a space: write the offset as %2B02:00)';
  throw new ProblemError('bad-request', `query /since: ${message}`, { errors: [{ in: 'querystring', pointer: '/since', message }] });
}
