/**
 * The open relief needs an index serves to agents (MCP `relief_needs`, no token): the Need documents of its
 * needs page (`/v1/relief/needs.json`, written by `hearth index build`), read again whenever the served catalog
 * version changes, filtered to the open ones (no `status`, or `open`) and by country, priority or program. A page
 * that cannot be read answers as empty. The page carries aggregated needs only: no personal data.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJson } from '../../../core/canonical.js';
import { PUBLISHED_PAGES } from '../build/published.js';
import type { Json } from '../entry.js';

export interface NeedQuery {
  country?: string;
  priority?: string;
  program?: string;
  limit?: number;
}

export const needQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    country: { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 country of the need' },
    priority: { enum: ['low', 'normal', 'high', 'critical'] },
    program: { type: 'string', maxLength: 128, description: 'the relief program id' },
    limit: { type: 'integer', minimum: 1, maximum: 100 },
  },
} as const;

export class NeedPages {
  private version: string | undefined;
  private needs: Json[] = [];

  constructor(
    private readonly dir: string,
    private readonly catalogVersion: () => string,
  ) {}

  get(): Json[] {
    const v = this.catalogVersion();
    if (v !== this.version) {
      this.version = v;
      try {
        const page = parseJson(readFileSync(join(this.dir, PUBLISHED_PAGES.needs.path), 'utf8')) as { entries?: unknown };
        this.needs = Array.isArray(page.entries) ? (page.entries.filter((e) => typeof e === 'object' && e !== null) as Json[]) : [];
      } catch {
        this.needs = [];
      }
    }
    return this.needs;
  }
}

const PRIORITY = ['critical', 'high', 'normal', 'low'];

/** The open needs matching `q`, most urgent first (then by id). */
export function openNeeds(needs: readonly Json[], q: NeedQuery): { total: number; items: Json[] } {
  const place = (n: Json) => (typeof n.place === 'object' && n.place !== null ? (n.place as Json) : {});
  const rank = (n: Json) => {
    const i = PRIORITY.indexOf(String(n.priority ?? 'normal'));
    return i < 0 ? PRIORITY.length : i;
  };
  const found = needs
    .filter((n) => n.status === undefined || n.status === 'open')
    .filter((n) => q.country === undefined || place(n).country === q.country)
    .filter((n) => q.priority === undefined || n.priority === q.priority)
    .filter((n) => q.program === undefined || n.program === q.program)
    .sort((a, b) => rank(a) - rank(b) || String(a.id).localeCompare(String(b.id)));
  return { total: found.length, items: found.slice(0, q.limit ?? 20) };
}
