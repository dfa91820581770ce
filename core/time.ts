/**
 * Strict RFC 3339 timestamps (profiles.md §3): `YYYY-MM-DD`, `T`/`t`/space, `hh:mm:ss`, an optional fraction,
 * then `Z`/`z` or `±hh:mm`. The date and time must be real (no 30 February, hour 24, second 60, offset of 24
 * hours). Instants compare to the microsecond with the offset applied; digits beyond the microsecond are cut.
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The instant `s` names, in microseconds since 1970-01-01T00:00:00Z, or null when `s` is not a strict RFC 3339 time. */
export function parseRfc3339(s: unknown): { epochMicros: bigint } | null {
  if (typeof s !== 'string') return null;
  const m = RFC3339.exec(s);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const micros = BigInt((m[7] ?? '').slice(0, 6).padEnd(6, '0'));
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute, second, 0);
  const epochSeconds = BigInt(utc.getTime() / 1000) - BigInt(offsetMinutes * 60);
  return { epochMicros: epochSeconds * 1_000_000n + micros };
}

/** Compare two timestamps as instants: negative, zero or positive; null when either is unreadable. */
export function compareRfc3339(a: unknown, b: unknown): number | null {
  const x = parseRfc3339(a);
  const y = parseRfc3339(b);
  if (!x || !y) return null;
  return x.epochMicros < y.epochMicros ? -1 : x.epochMicros > y.epochMicros ? 1 : 0;
}

/** `date` as an RFC 3339 UTC string to the second (`2026-01-01T00:00:00Z`). */
export function toRfc3339Seconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
