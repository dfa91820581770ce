import fc from 'fast-check';
import t from 'tap';
import { CanonicalJsonError, canonicalize, MAX_DEPTH, parseJson } from './canonical.js';

function codeOf(fn: () => unknown): { code: string; path: string } | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (err instanceof CanonicalJsonError) return { code: err.code, path: err.path };
    throw err;
  }
}

t.test('canonicalize: RFC 8785 layout', async (t) => {
  t.equal(canonicalize({ b: 1, a: [true, null, 'x'] }), '{"a":[true,null,"x"],"b":1}');
  t.equal(canonicalize({ z: 1, é: 2, a: 3, '😀': 4, ﬀ: 5 }), '{"a":3,"z":1,"é":2,"😀":4,"ﬀ":5}', 'UTF-16 code unit order');
  t.equal(canonicalize([1e21, 1e-7, 1e-6, -0, 0.1 + 0.2, 100]), '[1e+21,1e-7,0.000001,0,0.30000000000000004,100]');
  t.equal(canonicalize('\u000f\n"\\/€'), '"\\u000f\\n\\"\\\\/€"', 'minimal escaping, slash and non-ASCII as is');
  t.equal(canonicalize({ nested: { y: {}, x: [] } }), '{"nested":{"x":[],"y":{}}}');
  t.equal(canonicalize(Object.assign(Object.create(null), { k: 1 })), '{"k":1}', 'null-prototype objects are plain');
});

t.test('canonicalize: rejects what JSON cannot say exactly', async (t) => {
  t.same(
    codeOf(() => canonicalize({ a: [1, Number.NaN] })),
    { code: 'non_finite_number', path: '/a/1' },
  );
  t.same(
    codeOf(() => canonicalize(Number.POSITIVE_INFINITY)),
    { code: 'non_finite_number', path: '' },
  );
  t.same(
    codeOf(() => canonicalize({ 'a/b': '\uD800x' })),
    { code: 'lone_surrogate', path: '/a~1b' },
  );
  t.same(
    codeOf(() => canonicalize({ '\uDC00': 1 })),
    { code: 'lone_surrogate', path: '/\uDC00' },
  );
  t.same(
    codeOf(() => canonicalize({ a: undefined })),
    { code: 'unsupported_type', path: '/a' },
  );
  t.same(
    codeOf(() => canonicalize([() => 1])),
    { code: 'unsupported_type', path: '/0' },
  );
  t.same(
    codeOf(() => canonicalize(10n)),
    { code: 'unsupported_type', path: '' },
  );
  t.same(
    codeOf(() => canonicalize(Symbol('s'))),
    { code: 'unsupported_type', path: '' },
  );
  t.same(
    codeOf(() => canonicalize({ d: new Date(0) })),
    { code: 'unsupported_type', path: '/d' },
  );
  t.same(
    codeOf(() => canonicalize(new Map())),
    { code: 'unsupported_type', path: '' },
  );
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  t.same(
    codeOf(() => canonicalize(cyclic)),
    { code: 'unsupported_type', path: '/self' },
  );
  t.equal(canonicalize('\uD83D\uDE00'), '"😀"', 'a proper pair is fine');
});

t.test('parseJson: strict where JSON.parse is lenient', async (t) => {
  t.same(parseJson(' {"a":[1,2.5,-0.5e3,"x\\u00e9\\n"],"b":{"c":null,"d":true,"e":false}} '), {
    a: [1, 2.5, -500, 'xé\n'],
    b: { c: null, d: true, e: false },
  });
  t.same(
    codeOf(() => parseJson('{"a":1,"a":2}')),
    { code: 'duplicate_key', path: '/a' },
  );
  t.same(
    codeOf(() => parseJson('{"x":[{"k":1,"k":1}]}')),
    { code: 'duplicate_key', path: '/x/0/k' },
  );
  t.same(
    codeOf(() => parseJson('{"a\\u0062":1,"ab":2}')),
    { code: 'duplicate_key', path: '/ab' },
    'escaped spelling is the same key',
  );
  t.same(
    codeOf(() => parseJson('["\\ud800"]')),
    { code: 'lone_surrogate', path: '/0' },
  );
  t.same(
    codeOf(() => parseJson('{"\\udc00x":1}')),
    { code: 'lone_surrogate', path: '' },
  );
  t.same(parseJson('"\\ud83d\\ude00"'), '😀');
  t.same(
    codeOf(() => parseJson('{"n":9007199254740992}')),
    { code: 'unsafe_integer', path: '/n' },
  );
  t.same(
    codeOf(() => parseJson('-9007199254740993')),
    { code: 'unsafe_integer', path: '' },
  );
  t.equal(parseJson('9007199254740991'), 9007199254740991);
  t.equal(parseJson('1e+30'), 1e30, 'exponent form is not an integer literal');
  t.same(
    codeOf(() => parseJson('1e400')),
    { code: 'non_finite_number', path: '' },
  );
  for (const bad of [
    '',
    '{',
    '[1,]',
    '{"a":1,}',
    '01',
    '1.',
    '.5',
    '+1',
    'NaN',
    'tru',
    '"a',
    '"\\x"',
    '"\t"',
    '{a:1}',
    '1 2',
    "'a'",
    '[1]x',
  ]) {
    t.equal(codeOf(() => parseJson(bad))?.code, 'invalid_json', `rejects ${JSON.stringify(bad)}`);
  }
  const err = codeOf(() => parseJson('{"a": [1, }'));
  t.same(err, { code: 'invalid_json', path: '/a/1' });
  t.match(
    String(
      (() => {
        try {
          parseJson('[1,}');
        } catch (e) {
          return (e as Error).message;
        }
      })(),
    ),
    /position 3/,
  );
});

t.test('parseJson: nesting limit', async (t) => {
  t.same(parseJson(`${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}`) !== undefined, true);
  t.equal(codeOf(() => parseJson(`${'['.repeat(MAX_DEPTH + 1)}${']'.repeat(MAX_DEPTH + 1)}`))?.code, 'invalid_json');
  t.equal(codeOf(() => parseJson('{"a":'.repeat(100_000)))?.code, 'invalid_json', 'deep input never overflows the stack');
});

t.test('parseJson keeps __proto__ as a plain member', async (t) => {
  const v = parseJson('{"__proto__":{"polluted":1}}') as Record<string, unknown>;
  t.equal(Object.getPrototypeOf(v), Object.prototype);
  t.same(Object.keys(v), ['__proto__']);
  t.equal(({} as Record<string, unknown>).polluted, undefined);
  t.equal(canonicalize(v), '{"__proto__":{"polluted":1}}');
});

const jsonValue = fc.jsonValue({ maxDepth: 5 });

/** Parse canonical text; integers beyond 2^53-1 are written as plain digits and parseJson refuses them by design. */
function parseBack(text: string): { value: unknown } | 'unsafe' {
  try {
    return { value: parseJson(text) };
  } catch (err) {
    if (err instanceof CanonicalJsonError && err.code === 'unsafe_integer' && /\d{16}/.test(text)) return 'unsafe';
    throw err;
  }
}

t.test('property: canonical text parses back to an equal value and is stable', async () => {
  fc.assert(
    fc.property(jsonValue, (v) => {
      const c = canonicalize(v);
      const back = parseBack(c);
      if (back !== 'unsafe' && canonicalize(back.value) !== c) return false;
      // JSON.parse must agree with the strict parser on canonical text.
      return canonicalize(JSON.parse(c)) === c;
    }),
    { numRuns: 300 },
  );
});

t.test('property: numbers are written as String(n) and parse back to the same double', async () => {
  fc.assert(
    fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
      const c = canonicalize(n);
      if (c !== String(n)) return false;
      const back = parseJson(c.includes('e') || c.includes('.') || Math.abs(n) <= Number.MAX_SAFE_INTEGER ? c : `${c}.0`);
      return Object.is(back, n === 0 ? 0 : n) || (n === 0 && back === 0);
    }),
    { numRuns: 2000 },
  );
});

t.test('property: parseJson agrees with JSON.parse on duplicate-free text', async () => {
  fc.assert(
    fc.property(jsonValue, (v) => {
      const text = JSON.stringify(v, null, 1);
      const back = parseBack(text);
      return back === 'unsafe' || canonicalize(back.value) === canonicalize(JSON.parse(text));
    }),
    { numRuns: 300 },
  );
});

t.test('property: key order follows UTF-16 code units', async () => {
  fc.assert(
    fc.property(fc.dictionary(fc.string({ unit: 'grapheme' }), fc.integer()), (obj) => {
      const keys = Object.keys(parseJson(canonicalize(obj)) as object);
      const text = canonicalize(obj);
      const order = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      return text === canonicalize(Object.fromEntries(order.map((k) => [k, obj[k]])));
    }),
    { numRuns: 200 },
  );
});

t.test('property: a duplicated key anywhere is found, with its pointer', async () => {
  fc.assert(
    fc.property(
      fc.dictionary(fc.string({ maxLength: 6 }), fc.integer(), { minKeys: 1, maxKeys: 6 }),
      fc.nat(),
      fc.boolean(),
      (obj, pick, nested) => {
        const keys = Object.keys(obj);
        const dup = keys[pick % keys.length] as string;
        const members = keys.map((k) => `${JSON.stringify(k)}:${obj[k]}`);
        members.push(`${JSON.stringify(dup)}:0`);
        const inner = `{${members.join(',')}}`;
        const text = nested ? `{"outer":[1,${inner}]}` : inner;
        const err = codeOf(() => parseJson(text));
        const pointer = `/${dup.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        return err?.code === 'duplicate_key' && err.path === (nested ? `/outer/1${pointer}` : pointer);
      },
    ),
    { numRuns: 300 },
  );
});
