/**
 * The build writes its generated validators one byte a character (scripts/latin1-source.mjs): V8 holds a source
 * with any character above U+00FF at two bytes a character for as long as the code lives.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { distIsFresh, repoRoot } from '../test-support/cli.js';
import { latin1Source } from './latin1-source.mjs';

t.test('escaped code means what it meant: strings, regular expressions, keys, characters outside the BMP', async (t) => {
  const code = String.raw`({ text: "milk, cereals…", key: { "a→b": 1 }, re: /^[^…]+$/, reU: /^😀…$/u, emoji: "😀", latin: "20 °C", escaped: "\…", slash: "\\…", id: /^\…$/ })`;
  const escaped = latin1Source(code);
  t.notMatch(escaped, /[\u0100-\uffff]/, 'nothing above U+00FF is left');
  t.match(escaped, /°/, 'Latin-1 stays as it is');
  const before = runInNewContext(code);
  const after = runInNewContext(escaped);
  t.equal(after.text, before.text);
  t.same(Object.keys(after.key), Object.keys(before.key));
  t.equal(after.emoji, before.emoji);
  t.equal(after.latin, before.latin);
  t.equal(after.escaped, '…', 'an identity escape before the character');
  t.equal(after.slash, '\\…', 'an escaped backslash before it');
  t.ok(after.id.test('…'), 'an identity escape in a regular expression');
  t.ok(after.re.test('abc') && !after.re.test('a…c'), 'a class with the character');
  t.ok(after.reU.test('😀…') && !after.reU.test('😀x'), 'a unicode expression with a character outside the BMP');
});

t.test('a raw line or paragraph separator is refused, never escaped into other code', async (t) => {
  t.throws(() => latin1Source('// a comment\u2028 then code'), /U\+2028\/U\+2029 at offset 12/);
});

t.test('the built validator files hold no character above U+00FF', { skip: !distIsFresh() && 'dist/ is not a fresh build' }, async (t) => {
  const dist = join(repoRoot, 'dist');
  const files = readdirSync(dist).filter((f) => /validators.*\.cjs$/.test(f));
  t.ok(files.length >= 3, files.join(' '));
  for (const f of files) t.notMatch(readFileSync(join(dist, f), 'utf8'), /[\u0100-\uffff]/, f);
});
