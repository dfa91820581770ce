/**
 * Documents other than recipes that a catalog folder may hold and the index publishes as static pages:
 * market providers and offers, relief programs, needs and impact reports, and execution and safety reports.
 * Each kind has one page, `{svc, note, entries}`, written even when empty so a client never guesses whether a
 * page exists. A document of any other kind is refused with its path: nothing is skipped in silence. Market
 * documents are checked against schemas/json/market.schema.json, relief Programs, Needs and ImpactReports against
 * schemas/json/relief.schema.json: one that does not hold stops the build with its path and the fault.
 */
import { type SchemaName, validate } from '../../../schemas/index.js';
import { MarketDocumentError, readMarketDocument } from '../../market/documents.js';
import type { Json } from '../entry.js';
import { BuildInputError } from './sources.js';

export interface PublishedKind {
  /** Key of the page (and of `entries` in the build result). */
  page: 'providers' | 'offers' | 'programs' | 'needs' | 'impact' | 'reports' | 'safetyReports';
  /** Path of the page under the index root. */
  path: string;
  /** What the page says of its entries. */
  note: string;
}

export const PUBLISHED_PAGES: Record<PublishedKind['page'], PublishedKind> = {
  providers: {
    page: 'providers',
    path: 'v1/market/providers.json',
    note: 'Providers that asked to be listed. Listing is not endorsement, certification or partnership.',
  },
  offers: {
    page: 'offers',
    path: 'v1/market/offers.json',
    note: "Offers from the providers' feeds, as they published them. Prices and availability are theirs; check with the provider.",
  },
  programs: { page: 'programs', path: 'v1/relief/programs.json', note: 'Relief programs that asked to be listed.' },
  needs: {
    page: 'needs',
    path: 'v1/relief/needs.json',
    note: 'Aggregated needs the programs chose to publish. No personal data.',
  },
  impact: { page: 'impact', path: 'v1/relief/impact.json', note: 'Impact reports the programs published.' },
  reports: {
    page: 'reports',
    path: 'v1/reports/index.json',
    note: 'Anonymous execution reports about recipes of this index. Contact details are never published.',
  },
  safetyReports: {
    page: 'safetyReports',
    path: 'v1/safety-reports/index.json',
    note: 'Safety reports about recipes of this index, published after triage. A report is not a recall: recalls are in the changes feed.',
  },
};

/** `$kind` (the reference's field) wins over `kind`, which some documents use for a sub-type. */
export function documentKind(doc: Json): string | undefined {
  const k = typeof doc.$kind === 'string' ? doc.$kind : typeof doc.kind === 'string' ? doc.kind : undefined;
  return k;
}

const KIND_PAGE: Record<string, PublishedKind['page']> = {
  Provider: 'providers',
  OfferFeed: 'offers',
  Offer: 'offers',
  Program: 'programs',
  Need: 'needs',
  ImpactReport: 'impact',
  ExecutionReport: 'reports',
  Report: 'reports',
  SafetyReport: 'safetyReports',
};

/** Kinds read as recipes. */
const RECIPE_KINDS = new Set(['Recipe']);

export const PUBLISHED_KINDS = Object.keys(KIND_PAGE);

/** Whether a document of the catalog folder is a recipe (no kind, or kind Recipe). */
export function isRecipeDocument(doc: Json): boolean {
  const k = documentKind(doc);
  return k === undefined || RECIPE_KINDS.has(k);
}

/** Fields never published, whatever a document carries (a reporter's contact is for triage only). */
const PRIVATE_FIELDS = ['contact', 'email', 'phone', 'reporter'];

function str(doc: Json, field: string): string | undefined {
  const v = doc[field];
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

function need(file: string, kind: string, doc: Json, fields: readonly string[]): void {
  const missing = fields.filter((f) => str(doc, f) === undefined);
  if (missing.length > 0)
    throw new BuildInputError(`${file}: ${kind} needs ${missing.map((m) => `"${m}"`).join(', ')} (a non-empty string)`);
}

/** The relief schema of each relief kind the index publishes. */
const RELIEF_SCHEMAS: Record<string, SchemaName> = { Program: 'reliefProgram', Need: 'reliefNeed', ImpactReport: 'reliefImpact' };

/** Check a relief document against schemas/json/relief.schema.json; throws `BuildInputError` naming the file and the faults. */
function checkRelief(file: string, kind: string, doc: Json): void {
  const name = RELIEF_SCHEMAS[kind];
  if (name === undefined) return;
  const r = validate[name](doc);
  if (r.valid) return;
  const faults = r.issues
    .slice(0, 3)
    .map((i) => `${i.path || '/'} ${i.message}`)
    .join('; ');
  throw new BuildInputError(`${file}: not a valid ${kind} (relief.schema.json): ${faults}`);
}

function withoutPrivate(doc: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(doc)) if (!PRIVATE_FIELDS.includes(k)) out[k] = v;
  return out;
}

interface Entry {
  key: string;
  file: string;
  doc: Json;
}

/** Collects the published documents of one build and checks each as it comes. */
export class PublishedDocuments {
  private readonly entries = new Map<PublishedKind['page'], Entry[]>();

  /** Add one document of the catalog folder; throws `BuildInputError` for a kind the index does not publish. */
  add(file: string, doc: Json): void {
    const kind = documentKind(doc) ?? '';
    const page = KIND_PAGE[kind];
    if (page === undefined) {
      const hint = kind === 'Recall' ? ' (recalls go in the folder given by --recalls)' : '';
      throw new BuildInputError(
        `${file}: a ${JSON.stringify(kind)} document is not published by an index${hint}; a catalog folder holds recipes and ${PUBLISHED_KINDS.join(', ')} documents`,
      );
    }
    const list = this.entries.get(page) ?? [];
    this.entries.set(page, list);
    switch (kind) {
      case 'OfferFeed':
      case 'Offer':
      case 'Provider': {
        // Checked against market.schema.json (services/market): a bad one stops the build with its file and fault.
        let r: ReturnType<typeof readMarketDocument>;
        try {
          r = readMarketDocument(file, doc);
        } catch (err) {
          if (err instanceof MarketDocumentError) throw new BuildInputError(err.message);
          throw err;
        }
        if (r.provider) list.push({ key: r.provider.id, file, doc });
        for (const offer of r.offers) list.push({ key: `${offer.provider} ${offer.id}`, file, doc: offer });
        return;
      }
      case 'Program':
        need(file, kind, doc, ['id', 'name']);
        checkRelief(file, kind, doc);
        break;
      case 'Need':
        need(file, kind, doc, ['id', 'program']);
        checkRelief(file, kind, doc);
        break;
      case 'ImpactReport':
        need(file, kind, doc, ['program']);
        checkRelief(file, kind, doc);
        break;
      default:
        need(file, kind, doc, ['id', 'recipeId']);
    }
    const key =
      kind === 'ImpactReport'
        ? `${doc.program as string} ${JSON.stringify(doc.period ?? null)} ${str(doc, 'id') ?? ''}`
        : (doc.id as string);
    list.push({ key, file, doc: page === 'reports' || page === 'safetyReports' ? withoutPrivate(doc) : doc });
  }

  /** Refuse a report about a recipe the index does not hold, and a key used twice on one page. */
  check(recipeIds: ReadonlySet<string>): void {
    for (const [page, list] of this.entries) {
      const seen = new Map<string, string>();
      for (const e of list) {
        const other = seen.get(e.key);
        if (other !== undefined) throw new BuildInputError(`${e.file}: ${page} entry ${e.key} is also given by ${other}`);
        seen.set(e.key, e.file);
        if ((page === 'reports' || page === 'safetyReports') && !recipeIds.has(e.doc.recipeId as string)) {
          throw new BuildInputError(`${e.file}: the report names recipe ${JSON.stringify(e.doc.recipeId)}, which this index does not hold`);
        }
      }
    }
  }

  /** The page documents, by path, each sorted by its key. */
  pages(svc: string): Map<string, Json> {
    const out = new Map<string, Json>();
    for (const def of Object.values(PUBLISHED_PAGES)) {
      const list = [...(this.entries.get(def.page) ?? [])].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      out.set(def.path, { svc, note: def.note, entries: list.map((e) => e.doc) });
    }
    return out;
  }

  count(page: PublishedKind['page']): number {
    return this.entries.get(page)?.length ?? 0;
  }

  total(): number {
    let n = 0;
    for (const list of this.entries.values()) n += list.length;
    return n;
  }
}
