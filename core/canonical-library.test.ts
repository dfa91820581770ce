/**
 * The project's RFC 8785 writer (core/canonical.ts) against the `canonicalize` package wrapped by the strict
 * checks (test-support/canonical-library.ts): the same text for every JSON value, the same refusal (code and
 * pointer) for every value JSON cannot say exactly.
 */
import { readFileSync } from 'node:fs';
import jcs from 'canonicalize';
import fc from 'fast-check';
import t from 'tap';
import { canonicalizeJsonText, canonicalizeWithLibrary } from '../test-support/canonical-library.js';
import { CanonicalJsonError, canonicalize, parseJson } from './canonical.js';

/** The error both implementations throw for `v`, or the text both write; fails the test when they differ. */
function both(v: unknown): { text?: string; code?: string; path?: string } {
  const run = (f: (x: unknown) => string) => {
    try {
      return { text: f(v) };
    } catch (err) {
      if (!(err instanceof CanonicalJsonError)) throw err;
      return { code: err.code, path: err.path };
    }
  };
  const own = run(canonicalize);
  const lib = run(canonicalizeWithLibrary);
  if (JSON.stringify(own) !== JSON.stringify(lib)) throw new Error(`own ${JSON.stringify(own)} but library ${JSON.stringify(lib)}`);
  return own;
}

// Full Unicode strings (astral characters, escapes) and every finite double, including -0 and subnormals.
const strings = fc.string({ unit: 'binary', maxLength: 12 });
const numbers = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.constant(-0));
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    strings,
    numbers,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(strings, tie('value'), { maxKeys: 5 }),
  ),
})).value;

t.test('property: both implementations write the same text for any JSON value', async (t) => {
  fc.assert(
    fc.property(jsonValue, (v) => {
      const r = both(v);
      return r.text !== undefined && r.text === canonicalizeWithLibrary(JSON.parse(r.text));
    }),
    { numRuns: 2000 },
  );
  t.pass('2000 values');
});

/** A value with one bad leaf somewhere inside it. */
const badLeaf = fc.oneof(
  fc.constant(Number.NaN),
  fc.constant(Number.POSITIVE_INFINITY),
  fc.constant(Number.NEGATIVE_INFINITY),
  fc.constant('\ud800'),
  fc.constant('a\udc00b'),
  fc.constant(undefined),
  fc.constant(new Date(0)),
  fc.constant(() => 1),
  fc.constant(10n),
);
const withBadLeaf = fc.tuple(fc.array(fc.oneof(strings, fc.nat({ max: 3 })), { maxLength: 4 }), badLeaf).map(([path, leaf]) => {
  let v: unknown = leaf;
  for (const seg of path.reverse()) v = typeof seg === 'number' ? [...Array(seg).fill(0), v] : { [seg]: v, z: 1 };
  return v;
});

t.test('property: both implementations refuse the same values, with the same code and pointer', async (t) => {
  fc.assert(
    fc.property(withBadLeaf, (v) => {
      const r = both(v);
      return r.text === undefined && typeof r.code === 'string';
    }),
    { numRuns: 1000 },
  );
  t.pass('1000 values');
});

t.test('the strict checks catch what the package alone would coerce', async (t) => {
  const cases: [unknown, string][] = [
    [{ a: undefined }, 'unsupported_type'],
    [[undefined], 'unsupported_type'],
    [{ d: new Date(0) }, 'unsupported_type'],
    [{ n: Number.NaN }, 'non_finite_number'],
    [[Number.NEGATIVE_INFINITY], 'non_finite_number'],
    [{ '\ud800': 1 }, 'lone_surrogate'],
    [{ toJSON: () => 1 }, 'unsupported_type'],
  ];
  for (const [i, [v, code]] of cases.entries()) {
    t.throws(() => canonicalizeWithLibrary(v), { code }, `case ${i}: library refuses with ${code}`);
    t.throws(() => canonicalize(v), { code }, `case ${i}: own writer refuses with ${code}`);
  }
  t.equal(jcs({ a: undefined, d: new Date(0) }), '{"d":"1970-01-01T00:00:00.000Z"}', 'the package alone coerces');
  const deep: unknown[] = [];
  let cur = deep;
  for (let i = 0; i < 300; i++) {
    const next: unknown[] = [];
    cur.push(next);
    cur = next;
  }
  t.throws(() => canonicalizeWithLibrary(deep), { code: 'unsupported_type' }, 'nesting beyond the bound');
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  t.throws(() => canonicalizeWithLibrary(cyclic), CanonicalJsonError, 'a cycle');
});

t.test('strict text: duplicate keys and unsafe integer literals', async (t) => {
  t.throws(() => canonicalizeJsonText('{"a":1,"a":2}'), { code: 'duplicate_key', path: '/a' });
  t.throws(() => canonicalizeJsonText('[9007199254740993]'), { code: 'unsafe_integer' });
  t.throws(() => canonicalizeJsonText('"\\ud800"'), { code: 'lone_surrogate' });
  t.equal(canonicalizeJsonText('{"b":[1e20,2.50],"a":"\\u00e9"}'), '{"a":"é","b":[100000000000000000000,2.5]}');
});

t.test('the public hash vectors and a recipe: both implementations agree', async (t) => {
  const vectors = parseJson(readFileSync(new URL('../../shared/reference/conformance/hash.json', import.meta.url), 'utf8')) as {
    input: unknown;
    expected: { canonical: string };
  }[];
  for (const v of vectors) t.equal(canonicalizeWithLibrary(v.input), v.expected.canonical);
  const recipe = parseJson(readFileSync(new URL('../../shared/reference/examples/koshari.cookwala.json', import.meta.url), 'utf8'));
  t.equal(canonicalizeWithLibrary(recipe), canonicalize(recipe));
});
