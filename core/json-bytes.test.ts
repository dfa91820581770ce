/**
 * The byte writer behind documentHash (core/json-bytes.ts) against the `canonicalize` package and the project's
 * string writer: the same bytes for every JSON value, the same refusals, whatever the shape cache holds.
 */
import { readFileSync } from 'node:fs';
import jcs from 'canonicalize';
import fc from 'fast-check';
import t from 'tap';
import { CanonicalJsonError, canonicalize, MAX_DEPTH, parseJson } from './canonical.js';
import { documentHash, sha256Hex, withoutMembers } from './hash.js';
import { clearShapeCache, SHAPE_CACHE_BYTES, shapeCacheSize, withCanonicalBytes } from './json-bytes.js';

/** The writer's bytes as hex, or undefined when it refuses the value. */
function bytesHex(v: unknown): string | undefined {
  return withCanonicalBytes(v, (b) => Buffer.from(b).toString('hex'));
}

const utf8Hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');

function refusal(fn: () => unknown): { code: string; path: string } | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (err instanceof CanonicalJsonError) return { code: err.code, path: err.path };
    throw err;
  }
}

// Member names from a small pool (so shapes repeat, in every insertion order, sharing first names) and any others.
const names = fc.oneof(
  fc.constantFrom('a', 'b', 'z', 'value', 'unit', 'en', 'ar', 'é', '😀', 'ﬀ', '10', '2', '0', '"', '\\', '\u0000', '\u001f', '\u2028'),
  fc.string({ unit: 'binary', maxLength: 8 }),
);
// Strings heavy in what needs care: escapes, controls, two- and three-byte characters, astral pairs.
const tricky = fc.string({
  unit: fc.constantFrom(...Array.from('a "\\/\n\r\t\b\f\u0001\u001f\u007féك€😀\u2028\uffff')),
  maxLength: 16,
});
const strings = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), tricky);
const numbers = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.constant(-0));
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    strings,
    numbers,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(names, tie('value'), { maxKeys: 6 }),
    fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { minKeys: 14, maxKeys: 40 }),
  ),
})).value;

t.test('property: the same bytes as the canonicalize package and the string writer, cold or warm', async (t) => {
  fc.assert(
    fc.property(jsonValue, fc.boolean(), (v, cold) => {
      if (cold) clearShapeCache();
      const got = bytesHex(v);
      return got !== undefined && got === utf8Hex(jcs(v) as string) && got === utf8Hex(canonicalize(v));
    }),
    { numRuns: 3000 },
  );
  t.pass('3000 values');
});

t.test('property: documentHash is SHA-256 of the string writer output', async (t) => {
  fc.assert(
    fc.property(fc.dictionary(names, jsonValue, { maxKeys: 8 }), (doc) => {
      return documentHash(doc) === `sha256:${sha256Hex(canonicalize(withoutMembers(doc, ['hash', 'signature'])))}`;
    }),
    { numRuns: 500 },
  );
  t.pass('500 documents');
});

t.test('property: the same members in any insertion order give the same bytes', async (t) => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.tuple(names, jsonValue), { selector: (e) => e[0], minLength: 1, maxLength: 10 }),
      fc.array(fc.nat(), { minLength: 10, maxLength: 10 }),
      (entries, picks) => {
        const sorted = utf8Hex(jcs(Object.fromEntries(entries)) as string);
        const shuffled: [string, unknown][] = [...entries];
        for (let i = shuffled.length - 1; i > 0; i--) {
          const j = (picks[i] as number) % (i + 1);
          const swap = shuffled[i] as [string, unknown];
          shuffled[i] = shuffled[j] as [string, unknown];
          shuffled[j] = swap;
        }
        return bytesHex(Object.fromEntries(entries)) === sorted && bytesHex(Object.fromEntries(shuffled)) === sorted;
      },
    ),
    { numRuns: 1000 },
  );
  t.pass('1000 member lists');
});

/** A value with one bad leaf somewhere inside it. */
const badLeaf = fc.oneof(
  fc.constant(Number.NaN),
  fc.constant(Number.NEGATIVE_INFINITY),
  fc.constant('\ud800'),
  fc.constant('a\udc00b'),
  fc.constant('\ud83d'),
  fc.constant('\udc00\udc00'),
  fc.constant(undefined),
  fc.constant(new Date(0)),
  fc.constant(new Map()),
  fc.constant(() => 1),
  fc.constant(10n),
);
const withBadLeaf = fc.tuple(fc.array(fc.oneof(names, fc.nat({ max: 3 })), { maxLength: 4 }), badLeaf).map(([path, leaf]) => {
  let v: unknown = leaf;
  for (const seg of path.reverse()) v = typeof seg === 'number' ? [...Array(seg).fill(0), v] : seg === 'z' ? { z: v } : { [seg]: v, z: 1 };
  return v;
});

t.test('property: refused exactly where the string writer refuses, and documentHash names the place', async (t) => {
  fc.assert(
    fc.property(withBadLeaf, (v) => {
      let called = false;
      const r = withCanonicalBytes(v, () => {
        called = true;
      });
      const want = refusal(() => canonicalize({ doc: v }));
      const got = refusal(() => documentHash({ doc: v }));
      return r === undefined && !called && want !== null && got?.code === want.code && got.path === want.path;
    }),
    { numRuns: 1000 },
  );
  t.pass('1000 values');
});

t.test('every UTF-16 code unit outside the surrogates, and astral pairs, written as JSON.stringify writes them', async (t) => {
  let bad = 0;
  for (let c = 0; c < 0x10000; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const s = `x${String.fromCharCode(c)}y`;
    if (bytesHex(s) !== utf8Hex(JSON.stringify(s))) bad++;
    if (bytesHex({ [s]: 1 }) !== utf8Hex(`{${JSON.stringify(s)}:1}`)) bad++;
  }
  for (const cp of [0x10000, 0x1f600, 0x1f9d1, 0x10ffff]) {
    const s = String.fromCodePoint(cp);
    if (bytesHex(s) !== utf8Hex(JSON.stringify(s))) bad++;
  }
  t.equal(bad, 0, 'no code unit written differently');
  t.equal(bytesHex('\u0000\u001f\b\t\n\f\r'), utf8Hex('"\\u0000\\u001f\\b\\t\\n\\f\\r"'), 'short escapes and lowercase hex');
});

t.test('lone surrogates are refused in values and names, and a refused name is not remembered', async (t) => {
  for (const s of ['\ud800', 'a\ud800', '\ud800a', '\udc00', 'a\udc00\ud800b', '\ud83d\ud83d', '\udc00\udc00', '\ude00\ude00x']) {
    t.equal(bytesHex(s), undefined, `value ${JSON.stringify(s)}`);
    t.equal(bytesHex({ [s]: 1, a: 2 }), undefined, `name ${JSON.stringify(s)}`);
  }
  t.same(
    refusal(() => documentHash({ a: { '\udc00': 1 } })),
    { code: 'lone_surrogate', path: '/a/\udc00' },
  );
  t.equal(bytesHex({ a: 2, b: 1 }), utf8Hex('{"a":2,"b":1}'), 'same first name, fine afterwards');
});

t.test('shapes that share a first name, many of them, and the cache bound', async (t) => {
  clearShapeCache();
  const docs: Record<string, unknown>[] = [];
  for (let i = 0; i < 20; i++) docs.push({ a: i, [`k${i}`]: i, b: [i] });
  docs.push({ a: 1 }, { a: 1, b: 2 }, { a: 1, b: 2, c: 3 }, { a: 1, c: 3 }, { a: 1, c: 3, b: 2 });
  for (let round = 0; round < 3; round++)
    for (const d of docs) t.equal(bytesHex(d), utf8Hex(jcs(d) as string), `round ${round}: ${JSON.stringify(d)}`);
  let maxBytes = 0;
  for (let i = 0; i < 20_000; i++) {
    const d = { [`first${i % 50}`]: 1, [`member-${i}`]: 'x'.repeat(i % 7) };
    if (bytesHex(d) !== utf8Hex(jcs(d) as string)) t.fail(`one-off shape ${i}`);
    maxBytes = Math.max(maxBytes, shapeCacheSize().bytes);
  }
  t.ok(maxBytes <= SHAPE_CACHE_BYTES, `the cache stayed within its bound (${maxBytes} bytes)`);
  t.ok(shapeCacheSize().shapes > 0, 'and still holds shapes');
  // The cache is emptied and refilled while the outer objects are still being written: their names stay right.
  // Long names, so that blocks turn over and the cache empties every few dozen shapes.
  const name = (p: string, i: number) => `${p}${i}`.padEnd(p === 'w' ? 1300 : 900, p);
  const churn = Array.from({ length: 1200 }, (_, i) => ({ [name('u', i)]: { [name('v', i)]: { [name('w', i)]: i }, zz: 2 }, zz: 1 }));
  t.equal(bytesHex(churn), utf8Hex(jcs(churn) as string), 'emptied in the middle of a document');
  const long = { ['l'.repeat(5000)]: 1, [`${'é'.repeat(3000)}"`]: 2, a: 3 };
  const kept = shapeCacheSize().shapes;
  t.equal(bytesHex(long), utf8Hex(jcs(long) as string), 'names too long to keep');
  t.equal(bytesHex(long), utf8Hex(jcs(long) as string), 'twice');
  t.equal(shapeCacheSize().shapes, kept, 'and not kept');
});

t.test('objects with many members, integer-like names, __proto__ and null prototypes', async (t) => {
  const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`m${(i * 7919) % n}`, i]));
  for (const n of [16, 17, 32, 33, 200]) t.equal(bytesHex(many(n)), utf8Hex(jcs(many(n)) as string), `${n} members`);
  t.equal(bytesHex({ 10: 1, 2: 2, a: 3, 1: 0 }), utf8Hex('{"1":0,"10":1,"2":2,"a":3}'), 'code unit order, not numeric');
  const proto = parseJson('{"__proto__":{"x":1},"a":2}');
  t.equal(bytesHex(proto), utf8Hex('{"__proto__":{"x":1},"a":2}'), '__proto__ as a plain member');
  t.equal(bytesHex(Object.assign(Object.create(null), { k: 1 })), utf8Hex('{"k":1}'));
  t.equal(bytesHex(new (class Point {})()), undefined, 'a class instance');
  const holey = [1, 2, 3];
  delete holey[1];
  t.equal(bytesHex(holey), undefined, 'a hole is undefined');
});

t.test('numbers as Number#toString', async (t) => {
  for (const n of [0, -0, 1, -1, 0.1 + 0.2, 1e21, 1e-7, 5e-324, -1.7976931348623157e308, 2 ** 53, 123456789.125])
    t.equal(bytesHex(n), utf8Hex(n === 0 ? '0' : String(n)), String(n));
  t.equal(bytesHex([Number.NaN]), undefined);
});

t.test('documents larger than the buffer, then small ones; depth and cycles as the string writer', async (t) => {
  const big = { list: Array.from({ length: 30_000 }, (_, i) => ({ i, s: `é${i}\n` })) };
  t.equal(bytesHex(big), utf8Hex(canonicalize(big)), 'about 600 kB');
  const escapes = '\u0001'.repeat(100_000);
  t.equal(bytesHex([escapes]), utf8Hex(canonicalize([escapes])), 'a string six times longer written');
  t.equal(bytesHex({ a: [1] }), utf8Hex('{"a":[1]}'), 'small after large');
  const nest = (n: number) => {
    let v: unknown = 1;
    for (let i = 0; i < n; i++) v = i % 2 ? [v] : { d: v };
    return v;
  };
  t.equal(bytesHex(nest(MAX_DEPTH)), utf8Hex(canonicalize(nest(MAX_DEPTH))), 'nesting at the bound');
  t.equal(bytesHex(nest(MAX_DEPTH + 1)), undefined, 'nesting beyond it');
  t.ok(
    refusal(() => canonicalize(nest(MAX_DEPTH + 1))),
    'which the string writer refuses too',
  );
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  t.same(
    refusal(() => documentHash(cyclic)),
    refusal(() => canonicalize(withoutMembers(cyclic, []))),
  );
  t.same(
    refusal(() => documentHash(cyclic)),
    { code: 'unsupported_type', path: '/self/self' },
    'the copy, then the cycle',
  );
});

t.test('a getter that hashes inside a hash, and a getter that throws', async (t) => {
  const inner = { z: 'é', y: [1, 2] };
  // Nested: documentHash copies the top level first, which would call a top-level getter before any writing.
  const outer = {
    b: 1,
    n: {
      c: 2,
      get a() {
        return documentHash(inner);
      },
    },
  };
  const want = `sha256:${sha256Hex(canonicalize(outer))}`;
  t.equal(documentHash(outer), want, 'the nested call does not disturb the outer one');
  const throwing = {
    n: {
      get a(): unknown {
        throw new Error('boom');
      },
    },
  };
  t.throws(() => documentHash(throwing), /boom/, 'the getter error passes through');
  t.equal(bytesHex({ b: 1, a: 'x' }), utf8Hex('{"a":"x","b":1}'), 'and the writer works afterwards');
});

t.test('the conformance vectors and the koshari recipe', async (t) => {
  const vectors = parseJson(readFileSync(new URL('../../shared/reference/conformance/hash.json', import.meta.url), 'utf8')) as {
    id: string;
    input: Record<string, unknown>;
    expected: { canonical: string; hash: string };
  }[];
  for (const v of vectors) {
    t.equal(bytesHex(withoutMembers(v.input, ['hash', 'signature'])), utf8Hex(v.expected.canonical), v.id);
    t.equal(documentHash(v.input), v.expected.hash, `${v.id}: hash`);
  }
  for (const file of ['../examples/recipes/koshari.svc.json', '../../shared/reference/examples/koshari.cookwala.json']) {
    const doc = parseJson(readFileSync(new URL(file, import.meta.url), 'utf8')) as Record<string, unknown>;
    clearShapeCache();
    const cold = documentHash(doc);
    t.equal(cold, `sha256:${sha256Hex(canonicalize(withoutMembers(doc, ['hash', 'signature'])))}`, file);
    t.equal(documentHash(doc), cold, `${file}: warm`);
  }
});
