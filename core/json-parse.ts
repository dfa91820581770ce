/**
 * The strict JSON parser: `JSON.parse` without the silent surprises. Duplicate keys (also nested), lone
 * surrogates (raw or escaped), integer literals beyond 2^53−1, numbers that overflow to ±Infinity and nesting
 * deeper than MAX_DEPTH are errors, each with a code and a JSON pointer.
 *
 * The first pass keeps no pointer bookkeeping (it parses every request body); only when it fails does a
 * second pass retrace the text with a pointer to say where.
 */
import { type CanonicalErrorCode, CanonicalJsonError, hasLoneSurrogate, jsonPointer, MAX_DEPTH } from './json-errors.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON strings must escape U+0000–U+001F, so the class names them.
const PLAIN_RUN = /[^"\\\u0000-\u001f\ud800-\udfff]*/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;
// A local copy: an imported binding may be read through a getter by some loaders, and this is read per value.
const DEPTH_LIMIT = MAX_DEPTH;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

class Failure {
  constructor(
    readonly code: CanonicalErrorCode,
    readonly message: string,
  ) {}
}

class Parser {
  pos = 0;
  readonly n: number;
  /** The JSON pointer segments of the value being parsed; null on the fast pass. */
  readonly path: (string | number)[] | null;

  constructor(
    readonly text: string,
    trackPath: boolean,
  ) {
    this.n = text.length;
    this.path = trackPath ? [] : null;
  }

  fail(message: string, code: CanonicalErrorCode = 'invalid_json'): never {
    throw new Failure(code, code === 'invalid_json' ? `invalid JSON at position ${this.pos}: ${message}` : message);
  }

  unexpected(): never {
    if (this.pos >= this.n) return this.fail('unexpected end of input');
    return this.fail(`unexpected character ${JSON.stringify(this.text[this.pos])}`);
  }

  skipWs(): void {
    const { text, n } = this;
    let pos = this.pos;
    while (pos < n) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
      else break;
    }
    this.pos = pos;
  }

  parseString(): string {
    const { text, n } = this;
    // this.pos is at the opening quote. Skip the plain run in one regex step.
    const start = this.pos + 1;
    PLAIN_RUN.lastIndex = start;
    PLAIN_RUN.test(text);
    let pos = PLAIN_RUN.lastIndex;
    if (text.charCodeAt(pos) === 0x22) {
      this.pos = pos + 1;
      // A slice of 13 or more characters would be a view into the whole text (V8's sliced string): it keeps the text
      // alive and reads slower char by char. JSON.parse of the quoted run (already checked plain) copies it flat.
      return pos - start < 13 ? text.slice(start, pos) : (JSON.parse(text.slice(start - 1, pos + 1)) as string);
    }
    let out = text.slice(start, pos);
    let sawSurrogate = false;
    while (pos < n) {
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        this.pos = pos + 1;
        if (sawSurrogate && hasLoneSurrogate(out)) {
          this.pos = start - 1;
          this.fail('string has a lone surrogate', 'lone_surrogate');
        }
        return out;
      }
      if (c < 0x20) {
        this.pos = pos;
        this.fail('control character in string');
      }
      if (c === 0x5c) {
        const e = text[pos + 1];
        if (e === 'u') {
          const hex = text.slice(pos + 2, pos + 6);
          if (!HEX4.test(hex)) {
            this.pos = pos + 1;
            this.fail('bad \\u escape');
          }
          const code = Number.parseInt(hex, 16);
          if (code >= 0xd800 && code <= 0xdfff) sawSurrogate = true;
          out += String.fromCharCode(code);
          pos += 6;
          continue;
        }
        const r = e === undefined ? undefined : ESCAPES[e];
        if (r === undefined) {
          this.pos = pos + 1;
          this.fail('bad escape');
        }
        out += r;
        pos += 2;
        continue;
      }
      if (c >= 0xd800 && c <= 0xdfff) sawSurrogate = true;
      PLAIN_RUN.lastIndex = pos + 1;
      PLAIN_RUN.test(text);
      out += text.slice(pos, PLAIN_RUN.lastIndex);
      pos = PLAIN_RUN.lastIndex;
    }
    this.pos = pos;
    return this.fail('unterminated string');
  }

  parseNumber(): number {
    NUMBER.lastIndex = this.pos;
    const m = NUMBER.exec(this.text);
    if (!m) return this.unexpected();
    const lit = m[0];
    const value = Number(lit);
    if (!Number.isFinite(value)) this.fail(`number ${lit} is out of range`, 'non_finite_number');
    if (m[1] === undefined && m[2] === undefined && lit.length > 15 && !Number.isSafeInteger(value)) {
      this.fail(`integer ${lit} is beyond 2^53-1`, 'unsafe_integer');
    }
    this.pos += lit.length;
    return value;
  }

  parseObject(depth: number): Record<string, unknown> {
    if (depth >= DEPTH_LIMIT) this.fail(`nesting deeper than ${DEPTH_LIMIT}`);
    const { text, path } = this;
    this.pos++;
    const obj: Record<string, unknown> = {};
    this.skipWs();
    if (text.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
      return obj;
    }
    let members = 0;
    for (;;) {
      this.skipWs();
      if (text.charCodeAt(this.pos) !== 0x22) this.unexpected();
      const key = this.parseString();
      members++;
      path?.push(key);
      // The fast pass counts members and compares with the key count at the end; the slow pass names the key.
      if (path !== null && Object.hasOwn(obj, key)) this.fail(`duplicate key ${JSON.stringify(key)}`, 'duplicate_key');
      this.skipWs();
      if (text.charCodeAt(this.pos) !== 0x3a) this.unexpected();
      this.pos++;
      const v = this.parseValue(depth + 1);
      if (key === '__proto__') Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
      else obj[key] = v;
      path?.pop();
      this.skipWs();
      const d = text.charCodeAt(this.pos);
      this.pos++;
      if (d === 0x2c) continue;
      if (d === 0x7d) {
        if (path === null && Object.keys(obj).length !== members) this.fail('duplicate key', 'duplicate_key');
        return obj;
      }
      this.pos--;
      this.unexpected();
    }
  }

  parseArray(depth: number): unknown[] {
    if (depth >= DEPTH_LIMIT) this.fail(`nesting deeper than ${DEPTH_LIMIT}`);
    const { text, path } = this;
    this.pos++;
    const arr: unknown[] = [];
    this.skipWs();
    if (text.charCodeAt(this.pos) === 0x5d) {
      this.pos++;
      return arr;
    }
    for (;;) {
      path?.push(arr.length);
      arr.push(this.parseValue(depth + 1));
      path?.pop();
      this.skipWs();
      const d = text.charCodeAt(this.pos);
      this.pos++;
      if (d === 0x2c) continue;
      if (d === 0x5d) return arr;
      this.pos--;
      this.unexpected();
    }
  }

  parseValue(depth: number): unknown {
    this.skipWs();
    const { text } = this;
    const c = text.charCodeAt(this.pos);
    if (c === 0x22) return this.parseString();
    if (c === 0x7b) return this.parseObject(depth);
    if (c === 0x5b) return this.parseArray(depth);
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.parseNumber();
    if (c === 0x74 && text.startsWith('true', this.pos)) {
      this.pos += 4;
      return true;
    }
    if (c === 0x66 && text.startsWith('false', this.pos)) {
      this.pos += 5;
      return false;
    }
    if (c === 0x6e && text.startsWith('null', this.pos)) {
      this.pos += 4;
      return null;
    }
    return this.unexpected();
  }

  parseDocument(): unknown {
    const value = this.parseValue(0);
    this.skipWs();
    if (this.pos < this.n) this.unexpected();
    return value;
  }
}

/** Parse JSON text strictly. Throws CanonicalJsonError (code and JSON pointer) instead of guessing. */
export function parseJson(text: string): unknown {
  if (typeof text !== 'string') throw new CanonicalJsonError('invalid_json', '', 'JSON text must be a string');
  try {
    return new Parser(text, false).parseDocument();
  } catch (err) {
    if (!(err instanceof Failure)) throw err;
  }
  // Retrace with pointer bookkeeping to say where the first failure is.
  const slow = new Parser(text, true);
  try {
    slow.parseDocument();
  } catch (err) {
    if (err instanceof Failure) throw new CanonicalJsonError(err.code, jsonPointer(slow.path ?? []), err.message);
    throw err;
  }
  throw new CanonicalJsonError('invalid_json', '', 'invalid JSON');
}
