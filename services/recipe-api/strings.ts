/** The per-catalog table of shared texts (rows.ts): one copy of each repeated string, word list and list. */
import { wordsOf } from './select/screens.js';

/**
 * One copy of each repeated text, shared by every row of a catalog. JSON.parse gives each document its own copy
 * of "onion", "g", "ingredients" or a claim's ruleset, and the rows outlive the documents; 2,000 recipes held
 * most of their row memory in such copies. Words of an ingredient name are shared the same way (by name).
 */
export class Strings {
  private readonly texts = new Map<string, string>();
  private readonly words = new Map<string, string[]>();
  private readonly lists = new Map<string, string[]>();

  /** The catalog's copy of `s`. */
  of(s: string): string;
  of(s: string | undefined): string | undefined;
  of(s: string | undefined): string | undefined {
    if (s === undefined) return undefined;
    const have = this.texts.get(s);
    if (have !== undefined) return have;
    this.texts.set(s, s);
    return s;
  }

  /** The catalog's copy of a list of texts (shared between rows: never mutated). */
  list(items: string[]): string[] {
    if (items.length === 0) return EMPTY;
    const key = items.join('\u0000');
    const have = this.lists.get(key);
    if (have !== undefined) return have;
    const out = items.map((x) => this.of(x));
    this.lists.set(key, out);
    return out;
  }

  /** The folded words of an ingredient name, one array per distinct name. */
  wordsOf(name: string): string[] {
    let w = this.words.get(name);
    if (w === undefined) {
      w = this.list([...wordsOf([name])]);
      this.words.set(name, w);
    }
    return w;
  }
}

// The shared empty list, made with the element kind of the lists `list` returns (an array of strings, sliced to
// nothing): a literal [] has another kind in V8, and code optimized while it saw only non-empty lists was thrown
// away ('wrong map') when it met this one, which made V8 compile rowOf again at start.
const EMPTY: string[] = ['-'].slice(1);
