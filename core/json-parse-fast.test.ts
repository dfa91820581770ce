import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { parseJson } from './json-parse.js';
import { parseJsonFast } from './json-parse-fast.js';

/** Either the value or the error (name, code, pointer, message) a parser gives for `text`. */
function outcome(parse: (s: string) => unknown, text: string): unknown {
  try {
    return { value: parse(text) };
  } catch (err) {
    const e = err as Error & { code?: string; path?: string };
    return { error: [e.name, e.code, e.path, e.message] };
  }
}

function same(t: Test, text: string, what: string): void {
  const strict = outcome(parseJson, text);
  const fast = outcome(parseJsonFast, text);
  t.same(fast, strict, what);
  // Own-key order and __proto__ as an own key: compare the serialisations too.
  if ('value' in (strict as object)) t.equal(JSON.stringify(fast), JSON.stringify(strict), `${what}: same key order`);
}

const root = fileURLToPath(new URL('../', import.meta.url));
function jsonFilesUnder(dir: string, out: string[] = []): string[] {
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) jsonFilesUnder(p, out);
    else if (n.endsWith('.json')) out.push(p);
  }
  return out;
}

t.test('on every conformance vector file, and every JSON input inside them, the fast path answers as the strict parser', async (t) => {
  const files = [...jsonFilesUnder(join(root, '../shared/reference/conformance')), ...jsonFilesUnder(join(root, 'conformance'))];
  t.ok(files.length >= 10, `${files.length} vector files`);
  let inputs = 0;
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    same(t, text, f);
    const doc = parseJson(text);
    const vectors = Array.isArray(doc) ? doc : [];
    for (const v of vectors as { id?: string; input?: unknown }[]) {
      if (v.input === undefined) continue;
      // Inputs given as JSON text (the parse vectors) are parsed as they are; the others as their JSON.
      const text = typeof v.input === 'string' ? v.input : JSON.stringify(v.input);
      same(t, text, `${f} ${v.id ?? ''}`);
      inputs++;
    }
  }
  t.ok(inputs > 50, `${inputs} vector inputs`);
});

t.test('the cases JSON.parse would hide go to the strict parser and fail the same way', async (t) => {
  const cases: Record<string, string> = {
    'duplicate key': '{"a":1,"a":2}',
    'nested duplicate key': '{"x":[{"b":1,"c":{"d":1,"d":1}}]}',
    'duplicate key after an escaped quote in a value': '{"a":"he said \\"a\\":","a":2}',
    'duplicate key spelled with an escape': '{"a":1,"\\u0061":2}',
    'duplicate key with an escaped colon': '{"a\\u003a":1,"a:":2}',
    'duplicate key offset by an escaped colon': '{"a":1,"a":"\\u003a"}',
    'duplicate key whose dropped value has colons': '{"a":"x:y:z","b":{"a:":1},"a":"w"}',
    'duplicate key, colons balanced elsewhere': '{"k":{"a":1,"a":2},"s":"::"}',
    'raw lone high surrogate': `{"a":"x${'\ud800'}y"}`,
    'raw lone low surrogate in a key': `{"${'\udc00'}":1}`,
    'escaped lone surrogate': '{"a":"\\ud800"}',
    'escaped lone low surrogate': '["\\uDFFF"]',
    'integer beyond 2^53-1': '{"n":9007199254740993}',
    'negative integer beyond': '[-9007199254740993]',
    'overflow to Infinity': '[1e400]',
    'too deep': `${'['.repeat(300)}${']'.repeat(300)}`,
    'trailing comma': '{"a":1,}',
    'not JSON': '{ nope',
    empty: '',
    'trailing garbage': '{"a":1} x',
  };
  for (const [what, text] of Object.entries(cases)) {
    same(t, text, what);
    t.ok('error' in (outcome(parseJsonFast, text) as object), `${what}: refused`);
  }
});

t.test('valid documents that only look suspect take the slow path and still parse', async (t) => {
  const cases: Record<string, string> = {
    'exponent literal above 2^53': '{"n":1e20}',
    'a valid surrogate pair, escaped': '{"s":"\\ud83d\\ude00"}',
    'an escaped backslash before uD800': '{"s":"\\\\ud800"}',
    'colon inside a string value': '{"a":"b\\":","c":"\\"d\\" :"}',
    'proto key': '{"__proto__":{"x":1},"y":2}',
    'exactly 2^53-1': '[9007199254740991,-9007199254740991]',
    'depth 200': `${'['.repeat(200)}1${']'.repeat(200)}`,
    'whitespace before a colon': '{"a" \n : 1, "b"\t:2}',
    'an escaped colon': '{"\\u003a":"\\u003A","b":":"}',
    'colons in keys and values': '{"a:b":"c:d:e","f":[":",{"::":"g"}]}',
  };
  for (const [what, text] of Object.entries(cases)) {
    same(t, text, what);
    t.ok('value' in (outcome(parseJsonFast, text) as object), `${what}: parsed`);
  }
});

t.test('every JSON file of the repository (schemas, examples, vocabularies) parses the same both ways', async (t) => {
  const files = [
    ...jsonFilesUnder(join(root, 'schemas')),
    ...jsonFilesUnder(join(root, 'examples')),
    ...jsonFilesUnder(join(root, '../shared/reference/catalog')),
  ];
  for (const f of files) same(t, readFileSync(f, 'utf8'), f);
});

t.test('a text decoded from UTF-8 skips the raw surrogate scan: decoding cannot make one, escapes are still refused', async (t) => {
  // An encoded surrogate (ED A0 80), a stray continuation byte and a cut sequence: each decodes to U+FFFD.
  const bytes = Buffer.concat([Buffer.from('{"a":"x'), Buffer.from([0xed, 0xa0, 0x80, 0x80, 0xf0, 0x9f]), Buffer.from('","b":1}')]);
  const text = bytes.toString('utf8');
  t.equal((text as unknown as { isWellFormed(): boolean }).isWellFormed(), true, 'UTF-8 decoding gives a well-formed text');
  t.same(parseJsonFast(text, { utf8: true }), parseJson(text));
  for (const escaped of ['{"a":"\\ud800"}', '["\\uDFFF"]', '{"a":1,"a":2}']) {
    const fromBytes = Buffer.from(escaped).toString('utf8');
    t.same(
      outcome((s) => parseJsonFast(s, { utf8: true }), fromBytes),
      outcome(parseJson, fromBytes),
      `${escaped}: as the strict parser`,
    );
    t.ok('error' in (outcome((s) => parseJsonFast(s, { utf8: true }), fromBytes) as object), `${escaped}: refused`);
  }
});
