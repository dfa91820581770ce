/**
 * RFC 8785 through the `canonicalize` package (the design card's choice), wrapped by the strict checks of
 * semantics §1. The package alone coerces: it drops `undefined` members, writes `undefined` in arrays as `null`,
 * calls `toJSON` (a Date becomes a string), and has no depth bound. The wrapper refuses all of that first, with
 * the same CanonicalJsonError (code and JSON pointer) as {@link canonicalize} in `canonical.ts`, so the two
 * implementations agree on every value: the property tests in `core/canonical-library.test.ts` hold them to it.
 *
 * Duplicate keys and integer literals beyond 2^53−1 exist only in JSON text (a JavaScript value cannot carry
 * them), so {@link canonicalizeJsonText} parses with the strict `parseJson` before writing.
 */
import jcs from 'canonicalize';
import { canonicalize } from '../core/canonical.js';
import { CanonicalJsonError, hasLoneSurrogate, MAX_DEPTH } from '../core/json-errors.js';
import { parseJson } from '../core/json-parse.js';

const SURROGATE = /[\uD800-\uDFFF]/;

function stringOk(s: string): boolean {
  return !SURROGATE.test(s) || !hasLoneSurrogate(s);
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** True when `v` is a value canonical JSON can say exactly (no pointer bookkeeping: the fast path). */
/** A cycle shows up as nesting beyond MAX_DEPTH, as in the fast writer of `canonical.ts`. */
function isJsonValue(v: unknown, depth: number): boolean {
  switch (typeof v) {
    case 'string':
      return stringOk(v);
    case 'number':
      return Number.isFinite(v);
    case 'boolean':
      return true;
    case 'object': {
      if (v === null) return true;
      if (depth >= MAX_DEPTH) return false;
      let ok = true;
      if (Array.isArray(v)) {
        for (let i = 0; ok && i < v.length; i++) ok = isJsonValue(v[i], depth + 1);
      } else if (!isPlainObject(v)) {
        ok = false;
      } else {
        const obj = v as Record<string, unknown>;
        for (const k of Object.keys(obj)) {
          if (!stringOk(k) || !isJsonValue(obj[k], depth + 1)) {
            ok = false;
            break;
          }
        }
      }
      return ok;
    }
    default:
      return false;
  }
}

/** The canonical (RFC 8785) text of `value` by the `canonicalize` package, after the strict checks. */
export function canonicalizeWithLibrary(value: unknown): string {
  if (!isJsonValue(value, 0)) {
    // The careful writer names the exact place and reason; it always throws for a value refused above.
    canonicalize(value);
    throw new CanonicalJsonError('unsupported_type', '', 'value cannot be written as canonical JSON');
  }
  const out = jcs(value);
  if (out === undefined) throw new CanonicalJsonError('unsupported_type', '', 'value cannot be written as canonical JSON');
  return out;
}

/** Strict JSON text (no duplicate keys, no unsafe integer literals, no lone surrogates) to canonical text. */
export function canonicalizeJsonText(text: string): string {
  return canonicalizeWithLibrary(parseJson(text));
}
