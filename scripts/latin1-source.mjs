/**
 * Generated JavaScript with every character above U+00FF written as a `\uXXXX` escape. V8 keeps a script's source
 * in the heap for as long as any of its functions lives, at one byte a character when every character fits in
 * Latin-1 and at two otherwise: one `…` in a schema's description doubled dist/route-validators-lazy.cjs's
 * source in the heap (200 KB of text, 392 KB held). The escape means the same character where ajv's generated
 * code holds such characters: string and regular expression literals (a character outside the BMP as its two
 * surrogates, which both read back as the one character) and comments. Not for code in general: a raw template
 * (`String.raw`) or an identifier outside the BMP would read the escape differently, and U+2028/U+2029 change a
 * comment or a line continuation when escaped, so those two are refused.
 */
export function latin1Source(code) {
  // A raw line or paragraph separator ends a comment and continues a line after a backslash; escaped it does neither.
  const separator = code.search(/[\u2028\u2029]/);
  if (separator >= 0) throw new Error(`generated code holds a raw U+2028/U+2029 at offset ${separator}: escape it where it comes from`);
  // A character already behind an odd run of backslashes is an identity escape (`\…` means `…`): the escape
  // replaces that backslash, or `\\u2026` would read as a backslash and the text "u2026".
  return code.replace(/(\\*)([\u0100-\uffff])/g, (_, slashes, c) => {
    const kept = slashes.length % 2 === 1 ? slashes.slice(1) : slashes;
    return `${kept}\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
