/**
 * Log lines for people. pino writes one JSON object per line; on a terminal Hearth passes them through
 * `humanLine` instead, so a person reads `09:10:49 INFO  executor  execution started  execution=ex-1 steps=20`.
 * Anything that is not a JSON log line is passed through as it is.
 */

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields every line has, or that are shown in their own column. */
const FIXED = new Set(['level', 'time', 'msg', 'service', 'component', 'pid', 'hostname', 'v']);

function show(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  if (v instanceof Object && 'message' in v && typeof (v as { message: unknown }).message === 'string')
    return JSON.stringify((v as { message: string }).message);
  return JSON.stringify(v);
}

/** One JSON log line → one readable line (without the newline). */
export function humanLine(json: string): string {
  let o: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(json);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return json;
    o = parsed as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = typeof o.time === 'number' ? new Date(o.time).toISOString().slice(11, 19) : '--:--:--';
  const level = (LEVELS[Number(o.level)] ?? String(o.level ?? '')).padEnd(5);
  const parts = [time, level];
  if (typeof o.component === 'string') parts.push(o.component);
  parts.push(typeof o.msg === 'string' ? o.msg : '');
  const rest = Object.entries(o)
    .filter(([k]) => !FIXED.has(k))
    .map(([k, v]) => `${k}=${show(v)}`);
  return [...parts, ...rest].filter((p) => p !== '').join('  ');
}

/** A pino destination that writes readable lines to `out` (a terminal). */
export function humanDestination(out: { write(s: string): unknown }): { write(chunk: string): void } {
  return {
    write(chunk: string) {
      for (const line of chunk.split('\n')) if (line !== '') out.write(`${humanLine(line)}\n`);
    },
  };
}
