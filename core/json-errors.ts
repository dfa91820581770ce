/** Errors and helpers shared by the canonical JSON writer and the strict parser. */

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
