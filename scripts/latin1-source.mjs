/**
 * Generated JavaScript with every character above U+00FF written as a `\uXXXX` escape. V8 keeps a script's source
 * in the heap for as long as any of its functions lives, at one byte a character when every character fits in
 * Latin-1 and at two otherwise: one `…` in a schema's description doubled dist/route-validators-lazy.cjs's
 * source in the heap (200 KB of text, 392 KB held). The escape means the same character wherever it stands in
 * generated code (string and regular expression literals, comments); a character outside the BMP is escaped as
 * its two surrogates, which both literals read back as the one character.
 */
export function latin1Source(code) {
  // A character already behind an odd run of backslashes is an identity escape (`\…` means `…`): the escape
  // replaces that backslash, or `\\u2026` would read as a backslash and the text "u2026".
  return code.replace(/(\\*)([\u0100-\uffff])/g, (_, slashes, c) => {
    const kept = slashes.length % 2 === 1 ? slashes.slice(1) : slashes;
    return `${kept}\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
