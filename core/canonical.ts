/**
 * Canonical JSON (RFC 8785, JCS) and a strict JSON parser.
 *
 * `canonicalize` writes the one canonical text of a JSON value: object keys sorted by UTF-16 code units,
 * numbers as ECMAScript `Number#toString`, no whitespace, strings escaped minimally. It never coerces:
 * NaN, ±Infinity, lone surrogates, undefined, functions, bigints, symbols and non-plain objects are errors.
 *
 * `parseJson` is `JSON.parse` without the silent surprises: duplicate keys, lone surrogates, integer literals
 * beyond 2^53−1 and nesting deeper than {@link MAX_DEPTH} are errors, each with a JSON pointer.
 */

export type CanonicalErrorCode =
  | 'non_finite_number'
  | 'lone_surrogate'
  | 'unsafe_integer'
  | 'duplicate_key'
  | 'unsupported_type'
  | 'invalid_json';

/** Deepest nesting of arrays and objects that parseJson and canonicalize accept. */
export const MAX_DEPTH = 256;

export class CanonicalJsonError extends Error {
  /** What went wrong, as a stable code. */
  readonly code: CanonicalErrorCode;
  /** JSON pointer (RFC 6901) of the offending value; `''` is the whole document. */
  readonly path: string;

  constructor(code: CanonicalErrorCode, path: string, message: string) {
    super(path === '' ? message : `${message} at ${path}`);
    this.name = 'CanonicalJsonError';
    this.code = code;
    this.path = path;
  }
}

/** JSON pointer of a list of segments (RFC 6901 escaping of `~` and `/`). */
export function jsonPointer(segments: readonly (string | number)[]): string {
  let out = '';
  for (const s of segments) out += `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`;
  return out;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** True when `s` has a high surrogate without a following low one, or a low one without a preceding high one. */
export function hasLoneSurrogate(s: string): boolean {
  if (!SURROGATE.test(s)) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
    }
    return true;
  }
  return false;
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'bigint') return 'a bigint';
  if (typeof value === 'symbol') return 'a symbol';
  if (value instanceof Date) return 'a Date (write it as an RFC 3339 string)';
  const name = (value as object).constructor?.name;
  return name ? `a ${name}` : 'a non-plain object';
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The canonical (RFC 8785) text of `value`. Throws CanonicalJsonError for anything JSON cannot say exactly. */
export function canonicalize(value: unknown): string {
  const path: (string | number)[] = [];
  const ancestors = new Set<object>();

  const write = (v: unknown): string => {
    switch (typeof v) {
      case 'string':
        if (hasLoneSurrogate(v)) throw new CanonicalJsonError('lone_surrogate', jsonPointer(path), 'string has a lone surrogate');
        return JSON.stringify(v);
      case 'number':
        if (!Number.isFinite(v)) throw new CanonicalJsonError('non_finite_number', jsonPointer(path), `${String(v)} is not a JSON number`);
        return String(v);
      case 'boolean':
        return v ? 'true' : 'false';
      case 'object': {
        if (v === null) return 'null';
        if (ancestors.has(v)) throw new CanonicalJsonError('unsupported_type', jsonPointer(path), 'cyclic structure');
        if (ancestors.size >= MAX_DEPTH)
          throw new CanonicalJsonError('unsupported_type', jsonPointer(path), `nesting deeper than ${MAX_DEPTH}`);
        if (Array.isArray(v)) {
          ancestors.add(v);
          let out = '[';
          for (let i = 0; i < v.length; i++) {
            path.push(i);
            if (i > 0) out += ',';
            out += write(v[i]);
            path.pop();
          }
          ancestors.delete(v);
          return `${out}]`;
        }
        if (!isPlainObject(v))
          throw new CanonicalJsonError('unsupported_type', jsonPointer(path), `${describe(v)} cannot be written as JSON`);
        ancestors.add(v);
        // Default sort compares UTF-16 code units, which is what RFC 8785 asks for.
        const keys = Object.keys(v).sort();
        let out = '{';
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i] as string;
          path.push(k);
          if (hasLoneSurrogate(k)) throw new CanonicalJsonError('lone_surrogate', jsonPointer(path), 'key has a lone surrogate');
          if (i > 0) out += ',';
          out += `${JSON.stringify(k)}:${write(v[k])}`;
          path.pop();
        }
        ancestors.delete(v);
        return `${out}}`;
      }
      default:
        throw new CanonicalJsonError('unsupported_type', jsonPointer(path), `${describe(v)} cannot be written as JSON`);
    }
  };
  return write(value);
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** Parse JSON text strictly. Throws CanonicalJsonError (code and JSON pointer) instead of guessing. */
export function parseJson(text: string): unknown {
  if (typeof text !== 'string') throw new CanonicalJsonError('invalid_json', '', 'JSON text must be a string');
  const n = text.length;
  const path: (string | number)[] = [];
  let pos = 0;

  const fail = (message: string, code: CanonicalErrorCode = 'invalid_json'): never => {
    throw new CanonicalJsonError(
      code,
      jsonPointer(path),
      code === 'invalid_json' ? `invalid JSON at position ${pos}: ${message}` : message,
    );
  };
  const unexpected = (): never => {
    if (pos >= n) return fail('unexpected end of input');
    return fail(`unexpected character ${JSON.stringify(text[pos])}`);
  };
  const skipWs = (): void => {
    while (pos < n) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
      else break;
    }
  };

  const parseString = (): string => {
    // pos is at the opening quote.
    const start = ++pos;
    let sawSurrogate = false;
    while (pos < n) {
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        const s = text.slice(start, pos++);
        if (sawSurrogate && hasLoneSurrogate(s)) fail('string has a lone surrogate', 'lone_surrogate');
        return s;
      }
      if (c === 0x5c) break;
      if (c < 0x20) fail('control character in string');
      if (c >= 0xd800 && c <= 0xdfff) sawSurrogate = true;
      pos++;
    }
    // Slow path: the string has escapes.
    let out = text.slice(start, pos);
    while (pos < n) {
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        pos++;
        if (sawSurrogate && hasLoneSurrogate(out)) fail('string has a lone surrogate', 'lone_surrogate');
        return out;
      }
      if (c < 0x20) fail('control character in string');
      if (c === 0x5c) {
        const e = text[pos + 1];
        if (e === 'u') {
          const hex = text.slice(pos + 2, pos + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
            pos++;
            fail('bad \\u escape');
          }
          const code = Number.parseInt(hex, 16);
          if (code >= 0xd800 && code <= 0xdfff) sawSurrogate = true;
          out += String.fromCharCode(code);
          pos += 6;
          continue;
        }
        const r = e === undefined ? undefined : ESCAPES[e];
        if (r === undefined) {
          pos++;
          fail('bad escape');
        }
        out += r;
        pos += 2;
        continue;
      }
      if (c >= 0xd800 && c <= 0xdfff) sawSurrogate = true;
      out += text[pos];
      pos++;
    }
    return fail('unterminated string');
  };

  const parseNumber = (): number => {
    NUMBER.lastIndex = pos;
    const m = NUMBER.exec(text);
    if (!m) return unexpected();
    const lit = m[0];
    const value = Number(lit);
    if (!Number.isFinite(value)) fail(`number ${lit} is out of range`, 'non_finite_number');
    if (m[1] === undefined && m[2] === undefined && lit.length > 15 && !Number.isSafeInteger(value)) {
      fail(`integer ${lit} is beyond 2^53-1`, 'unsafe_integer');
    }
    pos += lit.length;
    return value;
  };

  const parseValue = (depth: number): unknown => {
    skipWs();
    const c = text.charCodeAt(pos);
    if (c === 0x22) return parseString();
    if (c === 0x7b) {
      if (depth >= MAX_DEPTH) fail(`nesting deeper than ${MAX_DEPTH}`);
      pos++;
      const obj: Record<string, unknown> = {};
      skipWs();
      if (text.charCodeAt(pos) === 0x7d) {
        pos++;
        return obj;
      }
      for (;;) {
        skipWs();
        if (text.charCodeAt(pos) !== 0x22) unexpected();
        const key = parseString();
        path.push(key);
        if (Object.hasOwn(obj, key)) fail(`duplicate key ${JSON.stringify(key)}`, 'duplicate_key');
        skipWs();
        if (text.charCodeAt(pos) !== 0x3a) unexpected();
        pos++;
        const v = parseValue(depth + 1);
        if (key === '__proto__') Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
        else obj[key] = v;
        path.pop();
        skipWs();
        const d = text.charCodeAt(pos);
        if (d === 0x2c) {
          pos++;
          continue;
        }
        if (d === 0x7d) {
          pos++;
          return obj;
        }
        unexpected();
      }
    }
    if (c === 0x5b) {
      if (depth >= MAX_DEPTH) fail(`nesting deeper than ${MAX_DEPTH}`);
      pos++;
      const arr: unknown[] = [];
      skipWs();
      if (text.charCodeAt(pos) === 0x5d) {
        pos++;
        return arr;
      }
      for (;;) {
        path.push(arr.length);
        arr.push(parseValue(depth + 1));
        path.pop();
        skipWs();
        const d = text.charCodeAt(pos);
        if (d === 0x2c) {
          pos++;
          continue;
        }
        if (d === 0x5d) {
          pos++;
          return arr;
        }
        unexpected();
      }
    }
    if (c === 0x74 && text.startsWith('true', pos)) {
      pos += 4;
      return true;
    }
    if (c === 0x66 && text.startsWith('false', pos)) {
      pos += 5;
      return false;
    }
    if (c === 0x6e && text.startsWith('null', pos)) {
      pos += 4;
      return null;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return parseNumber();
    return unexpected();
  };

  const value = parseValue(0);
  skipWs();
  if (pos < n) unexpected();
  return value;
}
