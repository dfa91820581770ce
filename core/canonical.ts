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

import { CanonicalJsonError, hasLoneSurrogate, jsonPointer, MAX_DEPTH } from './json-errors.js';

export { type CanonicalErrorCode, CanonicalJsonError, hasLoneSurrogate, jsonPointer, MAX_DEPTH } from './json-errors.js';
export { parseJson } from './json-parse.js';

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

/** Thrown by the fast writer; the slow writer then finds the exact place and reason. */
const FAST_FAILURE = Symbol('canonical-fast-failure');
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON strings must escape U+0000–U+001F, so the class names them.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function writeString(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  if (hasLoneSurrogate(s)) throw FAST_FAILURE;
  return JSON.stringify(s);
}

// Documents repeat a small set of member names; their written form (`"name":`) is kept, up to a bound.
const keyCache = new Map<string, string>();

function writeKey(k: string): string {
  let w = keyCache.get(k);
  if (w === undefined) {
    w = `${writeString(k)}:`;
    if (keyCache.size < 4096) keyCache.set(k, w);
  }
  return w;
}

/** Keys in UTF-16 code unit order (RFC 8785), sorted in place: insertion sort for the small objects documents are made of, else Array#sort. */
export function sortKeys(a: string[]): string[] {
  const n = a.length;
  if (n > 16) return a.sort();
  for (let i = 1; i < n; i++) {
    const x = a[i] as string;
    let j = i - 1;
    while (j >= 0 && (a[j] as string) > x) {
      a[j + 1] = a[j] as string;
      j--;
    }
    a[j + 1] = x;
  }
  return a;
}

/** The hot path: no pointer bookkeeping and no ancestor set (a cycle shows up as nesting beyond MAX_DEPTH). */
function writeFast(v: unknown, depth: number): string {
  switch (typeof v) {
    case 'string':
      return writeString(v);
    case 'number':
      if (!Number.isFinite(v)) throw FAST_FAILURE;
      return String(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (v === null) return 'null';
      if (depth >= MAX_DEPTH) throw FAST_FAILURE;
      if (Array.isArray(v)) {
        let out = '[';
        for (let i = 0; i < v.length; i++) {
          if (i > 0) out += ',';
          out += writeFast(v[i], depth + 1);
        }
        return `${out}]`;
      }
      if (!isPlainObject(v)) throw FAST_FAILURE;
      const keys = sortKeys(Object.keys(v));
      let out = '{';
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i] as string;
        if (i > 0) out += ',';
        out += `${writeKey(k)}${writeFast(v[k], depth + 1)}`;
      }
      return `${out}}`;
    }
    default:
      throw FAST_FAILURE;
  }
}

/** The canonical (RFC 8785) text of `value`. Throws CanonicalJsonError for anything JSON cannot say exactly. */
export function canonicalize(value: unknown): string {
  try {
    return writeFast(value, 0);
  } catch (err) {
    if (err !== FAST_FAILURE) throw err;
  }
  canonicalizeWithPath(value);
  throw new CanonicalJsonError('unsupported_type', '', 'value cannot be written as canonical JSON');
}

/** The careful writer: tracks the JSON pointer and the ancestors so that an error says exactly where and why. */
function canonicalizeWithPath(value: unknown): string {
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
