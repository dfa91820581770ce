/**
 * The GraphQL `search` field (spec §4.6), shared by the index (`/v1/graphql`) and the hub (`/svc/v1/graphql`):
 * `search(query, filter: {cuisine, excludeAllergens, minLevel, supervision}, lang, first, after)` returns `total`,
 * `edges[].node` and `pageInfo`. It builds the REST search's own parameters and runs the same `searchQuery`
 * checks and the same search, so both answer alike; `after` is the REST `cursor` (an offset).
 */
import { type Catalog, markRecalled } from '../catalog.js';
import { type IndexEntry, indexEntry, type RecipeFacts } from '../entry.js';
import { searchQuery } from './search-query.js';

export const SEARCH_SDL = `
"A verification level, from V0 (described, not machine-verified) to V3."
enum VerificationLevel { V0 V1 V2 V3 }

"Filters of a catalog search; every filter given must hold."
input RecipeFilter {
  "Cuisine codes (e.g. EG); any of them."
  cuisine: [String!]
  "EU allergen names (e.g. gluten, milk); recipes with any of them are left out."
  excludeAllergens: [String!]
  "The lowest verification level to return."
  minLevel: VerificationLevel
  "Only recipes with this supervision (e.g. presence_required)."
  supervision: String
}

type RecipeConnection {
  "How many recipes match, over every page."
  total: Int!
  edges: [RecipeEdge!]!
  pageInfo: PageInfo!
  "The catalog version the answer comes from."
  catalogVersion: String!
}

type RecipeEdge {
  "Pass as after to get the recipes after this one."
  cursor: String!
  node: RecipeNode!
}

type PageInfo {
  hasNextPage: Boolean!
  endCursor: String
}

"One recipe as the index lists it (an IndexEntry)."
type RecipeNode {
  id: ID!
  hash: String!
  revision: Int
  "The title in lang (default: the search's lang), else English, else the first the recipe has."
  title(lang: String): String!
  "The language title is in."
  titleLang(lang: String): String!
  level: VerificationLevel!
  "ISO 8601 duration, e.g. PT45M."
  totalTime: String
  totalTimeSeconds: Int
  supervision: String
  allergensEU: [String!]!
  cuisine: [String!]!
  course: String
  tags: [String!]!
  "True when a recall covers this revision: it stays findable, but no device may cook it."
  recalled: Boolean!
}
`;

export const SEARCH_QUERY_FIELD = `
  "Search the catalog: typos, accents and Arabic diacritics tolerated; results rank by match quality."
  search(query: String, filter: RecipeFilter, lang: String = "en", first: Int = 20, after: String): RecipeConnection!`;

export interface SearchArgs {
  query?: string | null;
  filter?: { cuisine?: string[] | null; excludeAllergens?: string[] | null; minLevel?: string | null; supervision?: string | null } | null;
  lang?: string | null;
  first?: number | null;
  after?: string | null;
}

interface NodeSource {
  entry: IndexEntry;
  facts: RecipeFacts | undefined;
  lang: string;
}

const factsById = new WeakMap<Catalog, Map<string, RecipeFacts>>();

function factsOf(cat: Catalog, id: string): RecipeFacts | undefined {
  let map = factsById.get(cat);
  if (!map) {
    map = new Map(cat.facts.map((f) => [f.id, f]));
    factsById.set(cat, map);
  }
  return map.get(id);
}

/** The REST search's query parameters for these arguments (what `GET /v1/search?…` would carry). */
export function restParams(a: SearchArgs): Record<string, string> {
  const p: Record<string, string> = {};
  if (a.query != null) p.q = a.query;
  if (a.lang != null) p.lang = a.lang;
  if (a.first != null) p.limit = String(a.first);
  if (a.after != null) p.cursor = a.after;
  const f = a.filter ?? {};
  if (f.minLevel != null) p.min_level = f.minLevel;
  if (f.cuisine != null) p.cuisine = f.cuisine.join(',');
  if (f.excludeAllergens != null) p.exclude_allergens = f.excludeAllergens.join(',');
  if (f.supervision != null) p.supervision = f.supervision;
  return p;
}

/** The answer of `search` over `cat`. Bad arguments throw the REST search's 400 `bad-request` problem. */
export function searchConnection(cat: Catalog, a: SearchArgs) {
  const q = searchQuery(restParams(a));
  const r = cat.search.search(q);
  const items = markRecalled(cat, r.items);
  const lang = q.lang ?? 'en';
  return {
    total: r.total,
    catalogVersion: cat.version,
    edges: items.map((entry, i) => ({
      cursor: String(r.offset + i + 1),
      node: { entry, facts: factsOf(cat, entry.id), lang } satisfies NodeSource,
    })),
    pageInfo: { hasNextPage: r.nextCursor !== undefined, endCursor: items.length > 0 ? String(r.offset + items.length) : null },
  };
}

const inLang = (n: NodeSource, lang: string | null | undefined): IndexEntry =>
  lang == null || lang === n.lang || !n.facts ? n.entry : indexEntry(n.facts, lang);

/** Field resolvers of RecipeNode (from the IndexEntry the search returned). */
export const recipeNodeResolvers = {
  id: (n: NodeSource) => n.entry.id,
  hash: (n: NodeSource) => n.entry.hash,
  revision: (n: NodeSource) => n.entry.revision ?? null,
  title: (n: NodeSource, a: { lang?: string | null }) => inLang(n, a.lang).title,
  titleLang: (n: NodeSource, a: { lang?: string | null }) => inLang(n, a.lang).titleLang,
  level: (n: NodeSource) => n.entry.level,
  totalTime: (n: NodeSource) => n.entry.totalTime ?? null,
  totalTimeSeconds: (n: NodeSource) => n.entry.totalTimeS ?? null,
  supervision: (n: NodeSource) => n.entry.supervision ?? null,
  allergensEU: (n: NodeSource) => n.entry.allergensEU,
  cuisine: (n: NodeSource) => n.entry.cuisine,
  course: (n: NodeSource) => n.entry.course ?? null,
  tags: (n: NodeSource) => n.entry.tags,
  recalled: (n: NodeSource) => n.entry.recalled === true,
};
