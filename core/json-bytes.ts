/**
 * The canonical (RFC 8785) text of a JSON value written straight as UTF-8 bytes, for hashing.
 *
 * Same output and same refusals as `canonicalize` in canonical.ts, byte for byte, but one pass: each string is
 * checked (escapes, lone surrogates) and encoded in a single char-code scan into a reused buffer, so SHA-256 sees
 * one flat byte run instead of a rope it must flatten and encode again. Anything JSON cannot say exactly makes
 * {@link withCanonicalBytes} return `undefined`; the caller then runs the careful writer in canonical.ts, which
 * throws with the JSON pointer and the reason.
 *
 * One buffer is reused between calls; a nested call (a getter that hashes) gets a buffer of its own.
 */
import { sortKeys } from './canonical.js';
import { MAX_DEPTH } from './json-errors.js';

/** Thrown inside the writer when the value is not exact JSON; never escapes this module. */
const NOT_JSON = Symbol('not-json');
/** The first buffer's size; it doubles as a document needs. Allocated on first use. */
const START_BYTES = 32 * 1024;
/** The largest buffer kept between calls; one that grew past this for a large document is dropped after it. */
const KEEP_BYTES = 256 * 1024;

let shared = new Uint8Array(0);
let busy = false;
let out = shared;
let pos = 0;

function grow(need: number): void {
  let size = out.length * 2;
  while (size < need) size *= 2;
  const next = new Uint8Array(size);
  next.set(out.subarray(0, pos));
  out = next;
}

const HEX = '0123456789abcdef';
/** The letter of the two-character escape of a control character (\b \t \n \f \r), else 0: write \u00XX. */
const SHORT_ESCAPE = new Uint8Array(0x20);
SHORT_ESCAPE[0x08] = 0x62;
SHORT_ESCAPE[0x09] = 0x74;
SHORT_ESCAPE[0x0a] = 0x6e;
SHORT_ESCAPE[0x0c] = 0x66;
SHORT_ESCAPE[0x0d] = 0x72;

/** `"s"` with JSON's minimal escapes, as UTF-8; throws NOT_JSON on a lone surrogate. */
function writeString(s: string): void {
  const n = s.length;
  // Worst case: every unit a 6-byte \u00XX escape.
  if (pos + 6 * n + 2 > out.length) grow(pos + 6 * n + 2);
  const b = out;
  let p = pos;
  b[p++] = 0x22;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c >= 0x20 && c !== 0x22 && c !== 0x5c) {
        b[p++] = c;
        continue;
      }
      b[p++] = 0x5c;
      const e = c < 0x20 ? (SHORT_ESCAPE[c] as number) : c;
      if (e !== 0) b[p++] = e;
      else {
        b[p++] = 0x75; // \u00XX, lowercase hex as JSON.stringify writes it
        b[p++] = 0x30;
        b[p++] = 0x30;
        b[p++] = HEX.charCodeAt(c >> 4);
        b[p++] = HEX.charCodeAt(c & 15);
      }
    } else if (c < 0x800) {
      b[p++] = 0xc0 | (c >> 6);
      b[p++] = 0x80 | (c & 63);
    } else if (c < 0xd800 || c > 0xdfff) {
      b[p++] = 0xe0 | (c >> 12);
      b[p++] = 0x80 | ((c >> 6) & 63);
      b[p++] = 0x80 | (c & 63);
    } else {
      // A high surrogate followed by a low one is one astral code point (4 bytes); anything else is refused.
      if (c > 0xdbff || i + 1 >= n) throw NOT_JSON;
      const d = s.charCodeAt(i + 1);
      if (d < 0xdc00 || d > 0xdfff) throw NOT_JSON;
      i++;
      const cp = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
      b[p++] = 0xf0 | (cp >> 18);
      b[p++] = 0x80 | ((cp >> 12) & 63);
      b[p++] = 0x80 | ((cp >> 6) & 63);
      b[p++] = 0x80 | (cp & 63);
    }
  }
  b[p++] = 0x22;
  pos = p;
}

/** ECMAScript Number#toString, which RFC 8785 adopts; always ASCII. */
function writeNumber(v: number): void {
  if (!Number.isFinite(v)) throw NOT_JSON;
  const s = String(v);
  const n = s.length;
  if (pos + n > out.length) grow(pos + n);
  const b = out;
  let p = pos;
  for (let i = 0; i < n; i++) b[p++] = s.charCodeAt(i);
  pos = p;
}

function writeAscii(s: string): void {
  const n = s.length;
  if (pos + n > out.length) grow(pos + n);
  for (let i = 0; i < n; i++) out[pos++] = s.charCodeAt(i);
}

function writeByte(c: number): void {
  if (pos >= out.length) grow(pos + 1);
  out[pos++] = c;
}

/**
 * What an object's member names come to, whatever its values: the names in sorted order and their written form
 * (`"name":`, with the `,` before every one but the first) as UTF-8, laid end to end in a block of bytes.
 */
interface Shape {
  /** The names in the order Object.keys gave them: the cache key, compared name by name. */
  readonly keys: readonly string[];
  readonly sorted: readonly string[];
  /** The block holding the written names, where they start in it, then where each one ends. */
  readonly bytes: Uint8Array;
  readonly start: number;
  readonly ends: readonly number[];
}

// Documents are made of a few object shapes repeated ({value, unit}, {en, ar}, a step...): each shape's sorted
// names and written bytes are kept, found by the first name and checked name by name against Object.keys, so an
// entry cannot go stale and holds nothing of any value. Bounded: objects with many members or long names are not
// kept, a name leads at most a few shapes, and the whole cache is emptied when it would pass a limit (a stream of
// one-off shapes costs a refill, never memory).
const MAX_SHAPE_KEYS = 32;
const MAX_SHAPES_PER_NAME = 16;
/** The kept shapes, counted at their written names plus a share for their arrays, stay within this many bytes. */
export const SHAPE_CACHE_BYTES = 128 * 1024;
/** Written names are laid in blocks of this size; a block is only ever appended to, never rewritten. */
const BLOCK_BYTES = 4096;
let shapes = new Map<string, Shape[]>();
let shapeCount = 0;
let shapeBytes = 0;
let block = new Uint8Array(0);
let blockUsed = 0;

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function shapeOf(keys: string[]): Shape {
  const list = shapes.get(keys[0] as string);
  if (list !== undefined) {
    for (let i = 0; i < list.length; i++) {
      const s = list[i] as Shape;
      if (sameKeys(s.keys, keys)) return s;
    }
  }
  return addShape(keys, list);
}

function addShape(keys: string[], list: Shape[] | undefined): Shape {
  const sorted = sortKeys(keys.slice());
  // Written at the end of the output (throws NOT_JSON for a lone surrogate), copied to a block, then taken back.
  const from = pos;
  const ends: number[] = [];
  for (let i = 0; i < sorted.length; i++) {
    if (i > 0) writeByte(0x2c);
    writeString(sorted[i] as string);
    writeByte(0x3a);
    ends.push(pos - from);
  }
  const size = pos - from;
  if (blockUsed + size > block.length) {
    block = new Uint8Array(Math.max(BLOCK_BYTES, size));
    blockUsed = 0;
  }
  const bytes = block;
  const start = blockUsed;
  // Byte by byte: names are short, and subarray + set cost more than the copy here.
  for (let i = 0; i < size; i++) bytes[start + i] = out[from + i] as number;
  blockUsed += size;
  pos = from;
  for (let i = 0; i < ends.length; i++) ends[i] = (ends[i] as number) + start;
  const shape: Shape = { keys, sorted, bytes, start, ends };
  const cost = size + 32 * keys.length + 96;
  if (cost > BLOCK_BYTES) return shape; // used for this object only
  if (shapeBytes + cost > SHAPE_CACHE_BYTES) {
    clearShapeCache();
    list = undefined;
  }
  shapeBytes += cost;
  shapeCount++;
  if (list === undefined) shapes.set(keys[0] as string, [shape]);
  else if (list.length < MAX_SHAPES_PER_NAME) list.push(shape);
  else list[list.length - 1] = shape;
  return shape;
}

/** How many object shapes were kept since the cache was last emptied, and the bytes they are counted at. */
export function shapeCacheSize(): { shapes: number; bytes: number } {
  return { shapes: shapeCount, bytes: shapeBytes };
}

/** Empties the shape cache: the next document is written as if none had been seen (for tests and benches). */
export function clearShapeCache(): void {
  shapes = new Map(); // faster than Map#clear
  shapeCount = 0;
  shapeBytes = 0;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function writeValue(v: unknown, depth: number): void {
  switch (typeof v) {
    case 'string':
      writeString(v);
      return;
    case 'number':
      writeNumber(v);
      return;
    case 'boolean':
      writeAscii(v ? 'true' : 'false');
      return;
    case 'object':
      if (v === null) writeAscii('null');
      // A cycle ends here too, as nesting beyond the bound.
      else if (depth >= MAX_DEPTH) throw NOT_JSON;
      else if (Array.isArray(v)) writeArray(v, depth + 1);
      else if (isPlainObject(v)) writeObject(v as Record<string, unknown>, depth + 1);
      else throw NOT_JSON;
      return;
    default:
      throw NOT_JSON;
  }
}

function writeArray(v: unknown[], depth: number): void {
  writeByte(0x5b);
  for (let i = 0; i < v.length; i++) {
    if (i > 0) writeByte(0x2c);
    writeValue(v[i], depth);
  }
  writeByte(0x5d);
}

function writeObject(v: Record<string, unknown>, depth: number): void {
  const keys = Object.keys(v);
  const n = keys.length;
  writeByte(0x7b);
  if (n > MAX_SHAPE_KEYS) {
    sortKeys(keys);
    for (let i = 0; i < n; i++) {
      const k = keys[i] as string;
      if (i > 0) writeByte(0x2c);
      writeString(k);
      writeByte(0x3a);
      writeValue(v[k], depth);
    }
  } else if (n > 0) {
    const { sorted, bytes, start, ends } = shapeOf(keys);
    let from = start;
    for (let i = 0; i < n; i++) {
      const to = ends[i] as number;
      if (pos + to - from > out.length) grow(pos + to - from);
      const b = out;
      let p = pos;
      for (let j = from; j < to; j++) b[p++] = bytes[j] as number;
      pos = p;
      from = to;
      writeValue(v[sorted[i] as string], depth);
    }
  }
  writeByte(0x7d);
}

/**
 * Calls `use` with the canonical UTF-8 bytes of `value` (a view valid only during the call) and returns its
 * result, or returns `undefined` without calling it when the value is not exact JSON.
 */
export function withCanonicalBytes<T>(value: unknown, use: (bytes: Uint8Array) => T): T | undefined {
  const nested = busy;
  const saved = out;
  const savedPos = pos;
  if (nested) out = new Uint8Array(4096);
  else out = shared.length > 0 ? shared : new Uint8Array(START_BYTES);
  pos = 0;
  busy = true;
  try {
    writeValue(value, 0);
    return use(out.subarray(0, pos));
  } catch (err) {
    if (err !== NOT_JSON) throw err;
    return undefined;
  } finally {
    if (!nested && out.length <= KEEP_BYTES) shared = out;
    busy = nested;
    out = saved;
    pos = savedPos;
  }
}
