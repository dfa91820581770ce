/**
 * In-memory search over the catalog: titles in every language, tags, course and cuisine, folded by
 * `foldText` (accents, tashkeel and Arabic letter forms), matched exactly, by prefix, or within a small edit
 * distance (typos). Every query word must match; results rank by match quality, then by id.
 */
import { type IndexEntry, indexEntry, LEVELS, type Level, type RecipeFacts } from '../entry.js';
import { allowedEdits, editDistance, tokens } from './text.js';

export interface SearchQuery {
  q?: string;
  lang?: string;
  minLevel?: Level;
  cuisine?: string[];
  excludeAllergens?: string[];
  supervision?: string;
  limit?: number;
  offset?: number;
}

export interface SearchResult {
  total: number;
  offset: number;
  limit: number;
  nextCursor?: string;
  items: IndexEntry[];
}

/** Arabic words often carry the article ("ال", also after و/ب/ف/ك/ل); the stem is what a user searches for. */
function stem(word: string): string {
  const m = /^(?:[وبفكل]?ال)(.{2,})$/u.exec(word);
  return m?.[1] ?? word;
}

const WEIGHT_TITLE = 3;
const WEIGHT_OTHER = 1;
const MATCH_EXACT = 3;
const MATCH_PREFIX = 2;
const MATCH_FUZZY = 1;

type Postings = Map<number, number>;

/** A built index's terms (in number order) and postings, to keep and restore without folding the texts again. */
export interface PackedSearch {
  terms: string[];
  starts: Int32Array;
  postings: Int32Array;
}

export class SearchIndex {
  /**
   * Term → its number; the postings of term n are the (doc, weight) pairs in `postings` from `starts[n]` to
   * `starts[n + 1]`, in the order they were added. Packed once built: a Map per term held 3.5 MB for 2,000
   * catalog recipes.
   */
  private readonly termIds = new Map<string, number>();
  private readonly starts: Int32Array;
  private readonly postings: Int32Array;
  private readonly byLength = new Map<number, string[]>();
  private readonly sortedTerms: string[];
  private readonly cache = new Map<string, Map<number, number>>();

  /** Build the index of `facts`, or take the one `packed` kept of the same facts (`pack()`). */
  constructor(
    readonly facts: readonly RecipeFacts[],
    packed?: PackedSearch,
  ) {
    if (packed) {
      this.starts = packed.starts;
      this.postings = packed.postings;
      for (const term of packed.terms) this.termIds.set(term, this.termIds.size);
      this.sortedTerms = [...packed.terms].sort();
      this.indexLengths();
      return;
    }
    // Tags, ingredient names and many titles repeat across a catalog: fold each distinct text once.
    const folded = new Map<string, string[]>();
    const termsOf = (text: string): string[] => {
      let terms = folded.get(text);
      if (terms === undefined) {
        terms = [...new Set(tokens(text).map(stem))];
        folded.set(text, terms);
      }
      return terms;
    };
    const terms = new Map<string, Postings>();
    facts.forEach((f, i) => {
      for (const title of Object.values(f.titles)) addTerms(terms, termsOf(title), i, WEIGHT_TITLE);
      // Each list on its own (a spread of lists of differing element kinds sent V8's optimized code back).
      for (const t of f.tags) addTerms(terms, termsOf(t), i, WEIGHT_OTHER);
      for (const t of f.cuisine) addTerms(terms, termsOf(t), i, WEIGHT_OTHER);
      addTerms(terms, termsOf(f.course ?? ''), i, WEIGHT_OTHER);
      addTerms(terms, termsOf(f.id), i, WEIGHT_OTHER);
    });
    let pairs = 0;
    for (const p of terms.values()) pairs += p.size;
    this.starts = new Int32Array(terms.size + 1);
    this.postings = new Int32Array(pairs * 2);
    let at = 0;
    for (const [term, p] of terms) {
      this.starts[this.termIds.size] = at;
      this.termIds.set(term, this.termIds.size);
      for (const [doc, weight] of p) {
        this.postings[at++] = doc;
        this.postings[at++] = weight;
      }
    }
    this.starts[terms.size] = at;
    this.sortedTerms = [...terms.keys()].sort();
    this.indexLengths();
  }

  private indexLengths(): void {
    for (const term of this.sortedTerms) {
      const list = this.byLength.get(term.length) ?? [];
      list.push(term);
      this.byLength.set(term.length, list);
    }
  }

  /** What restores this index over the same facts (see the constructor). */
  pack(): PackedSearch {
    return { terms: [...this.termIds.keys()], starts: this.starts, postings: this.postings };
  }

  /** doc → best score of one query word. */
  private matchWord(word: string): Map<number, number> {
    const cached = this.cache.get(word);
    if (cached) return cached;
    const scores = new Map<number, number>();
    const add = (term: string, quality: number) => {
      const id = this.termIds.get(term);
      if (id === undefined) return;
      const end = this.starts[id + 1] as number;
      for (let i = this.starts[id] as number; i < end; i += 2) {
        const doc = this.postings[i] as number;
        const s = quality * (this.postings[i + 1] as number);
        if ((scores.get(doc) ?? 0) < s) scores.set(doc, s);
      }
    };
    add(word, MATCH_EXACT);
    if (word.length >= 2) {
      // Terms are sorted, so the terms with this prefix are one contiguous run.
      let lo = 0;
      let hi = this.sortedTerms.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((this.sortedTerms[mid] as string) < word) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < this.sortedTerms.length; i++) {
        const term = this.sortedTerms[i] as string;
        if (!term.startsWith(word)) break;
        if (term !== word) add(term, MATCH_PREFIX);
      }
    }
    const k = allowedEdits(word.length);
    if (k > 0) {
      for (let len = word.length - k; len <= word.length + k; len++) {
        for (const term of this.byLength.get(len) ?? []) {
          if (term !== word && editDistance(word, term, k) <= k) add(term, MATCH_FUZZY);
        }
      }
    }
    if (this.cache.size > 2000) this.cache.clear();
    this.cache.set(word, scores);
    return scores;
  }

  /**
   * Every recipe (by its position in `facts`) that matches all words of `q`, with its score; every recipe with
   * score 0 when `q` has no words. Unordered.
   */
  rank(q: string): { doc: number; score: number }[] {
    const words = [...new Set(tokens(q).map(stem))];
    if (words.length === 0) return this.facts.map((_, doc) => ({ doc, score: 0 }));
    let total: Map<number, number> | undefined;
    for (const w of words) {
      const m = this.matchWord(w);
      const next = new Map<number, number>();
      for (const [doc, s] of m) {
        if (total === undefined) next.set(doc, s);
        else {
          const prev = total.get(doc);
          if (prev !== undefined) next.set(doc, prev + s);
        }
      }
      total = next;
      if (total.size === 0) break;
    }
    return [...(total ?? new Map<number, number>()).entries()].map(([doc, score]) => ({ doc, score }));
  }

  search(query: SearchQuery): SearchResult {
    const lang = query.lang ?? 'en';
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const minRank = query.minLevel ? LEVELS.indexOf(query.minLevel) : 0;
    const cuisine = query.cuisine?.map((c) => c.toUpperCase());
    const excluded = query.excludeAllergens;
    const keep = (f: RecipeFacts) =>
      LEVELS.indexOf(f.level) >= minRank &&
      (!cuisine?.length || f.cuisine.some((c) => cuisine.includes(c.toUpperCase()))) &&
      (!excluded?.length || !f.allergensEU.some((a) => excluded.includes(a))) &&
      (query.supervision === undefined || f.supervision === query.supervision);

    const ranked = this.rank(query.q ?? '');
    const hits = ranked.filter((r) => keep(this.facts[r.doc] as RecipeFacts));
    hits.sort((a, b) => b.score - a.score || cmp((this.facts[a.doc] as RecipeFacts).id, (this.facts[b.doc] as RecipeFacts).id));
    const page = hits.slice(offset, offset + limit).map((r) => indexEntry(this.facts[r.doc] as RecipeFacts, lang));
    const result: SearchResult = { total: hits.length, offset, limit, items: page };
    if (offset + limit < hits.length) result.nextCursor = String(offset + limit);
    return result;
  }
}

function addTerms(index: Map<string, Postings>, terms: readonly string[], doc: number, weight: number): void {
  for (const term of terms) {
    let p = index.get(term);
    if (!p) {
      p = new Map();
      index.set(term, p);
    }
    if ((p.get(doc) ?? 0) < weight) p.set(doc, weight);
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
