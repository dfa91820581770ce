/**
 * Text folding for search: one form per word so that "Kushari", "kushári" and "كُشَري" find what a user meant.
 * Latin: Unicode NFKD, combining marks removed, lower case (ß → ss, æ → ae, ø → o, œ → oe, ł → l).
 * Arabic: tashkeel and Quranic marks removed, tatweel removed, alef forms (أ إ آ ٱ) → ا, ة → ه, ى → ي,
 * ؤ → و, ئ → ي, Arabic-Indic digits → ASCII digits.
 */

const LATIN_SPECIAL: Record<string, string> = { ß: 'ss', æ: 'ae', ø: 'o', œ: 'oe', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i' };

const ARABIC_MAP: Record<string, string> = {
  أ: 'ا',
  إ: 'ا',
  آ: 'ا',
  ٱ: 'ا',
  ٲ: 'ا',
  ٳ: 'ا',
  ة: 'ه',
  ى: 'ي',
  ی: 'ي',
  ؤ: 'و',
  ئ: 'ي',
  ک: 'ك',
};

// Tashkeel (U+064B–U+065F), superscript alef (U+0670), Quranic annotation marks (U+06D6–U+06ED),
// tatweel (U+0640), and every other combining mark left after NFKD (\p{M}).
const MARKS = /[\u064B-\u065F\u0670\u06D6-\u06ED\u0640]|\p{M}/gu;

// Plain ASCII has no marks, no compatibility forms and no letters to unify: lower case is its whole fold.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the class is every ASCII code point.
const ASCII = /^[\u0000-\u007f]*$/;

/** Fold `text` for matching: no accents, no tashkeel, unified letter forms, lower case. */
export function foldText(text: string): string {
  if (ASCII.test(text)) return text.toLowerCase();
  // NFKD splits accented Latin letters into base + mark; Arabic letters with hamza also decompose
  // (أ → ا + U+0654), which the mark removal then unifies as the spec asks.
  const decomposed = text.normalize('NFKD').toLowerCase();
  let out = '';
  for (const ch of decomposed.replace(MARKS, '')) {
    const code = ch.codePointAt(0) ?? 0;
    if (code >= 0x0660 && code <= 0x0669) out += String(code - 0x0660);
    else if (code >= 0x06f0 && code <= 0x06f9) out += String(code - 0x06f0);
    else out += LATIN_SPECIAL[ch] ?? ARABIC_MAP[ch] ?? ch;
  }
  return out;
}

/** Split folded text into words (letters and digits of any script). */
export function tokens(text: string): string[] {
  return foldText(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/**
 * Levenshtein distance between `a` and `b`, giving up (returning `max + 1`) as soon as it must exceed `max`.
 * Adjacent transpositions count as one edit (optimal string alignment), the most common typo.
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (a === b) return 0;
  const n = b.length;
  if (scratch.length < 3 * (n + 1)) scratch = new Int32Array(6 * (n + 1));
  // Three rows in one reused buffer: no allocation per call (the search scans many terms per query word).
  let prev2 = 0;
  let prev = n + 1;
  let cur = 2 * (n + 1);
  for (let j = 0; j <= n; j++) scratch[prev + j] = j;
  for (let i = 1; i <= a.length; i++) {
    scratch[cur] = i;
    let rowMin = i;
    const ai = a.charCodeAt(i - 1);
    for (let j = 1; j <= n; j++) {
      const bj = b.charCodeAt(j - 1);
      const cost = ai === bj ? 0 : 1;
      let v = Math.min((scratch[prev + j] as number) + 1, (scratch[cur + j - 1] as number) + 1, (scratch[prev + j - 1] as number) + cost);
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj)
        v = Math.min(v, (scratch[prev2 + j - 2] as number) + 1);
      scratch[cur + j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    const t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return scratch[prev + n] as number;
}

let scratch = new Int32Array(128);

/** How many edits a query word of this length may carry and still match. */
export function allowedEdits(length: number): number {
  if (length < 4) return 0;
  if (length < 8) return 1;
  return 2;
}
