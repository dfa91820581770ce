/**
 * The query of a catalog search as the index's REST search (`GET /v1/search`) reads it, with its checks (a bad
 * parameter is a 400 `bad-request` problem). The GraphQL `search` field builds the same parameters and calls
 * `searchQuery` too, so both answer the same for the same question.
 */
import { ProblemError } from '../../../platform/http/problems.js';
import { LEVELS, type Level } from '../entry.js';
import type { SearchQuery } from './search.js';

function one(q: Record<string, unknown>, name: string): string | undefined {
  const v = q[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new ProblemError('bad-request', `query parameter ${name} must be given once`);
  return v;
}

function list(q: Record<string, unknown>, name: string): string[] | undefined {
  const v = one(q, name);
  if (v === undefined || v.trim() === '') return undefined;
  return v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function int(q: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
  const v = one(q, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max)
    throw new ProblemError('bad-request', `${name} must be an integer from ${min} to ${max}`);
  return Number(v);
}

export function paging(q: Record<string, unknown>): { limit: number; offset: number } {
  const limit = int(q, 'limit', 1, 100) ?? 20;
  const cursor = int(q, 'cursor', 0, 1_000_000);
  const offset = int(q, 'offset', 0, 1_000_000) ?? cursor ?? 0;
  return { limit, offset };
}

export function lang(q: Record<string, unknown>): string {
  const l = one(q, 'lang') ?? 'en';
  if (!/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(l)) throw new ProblemError('bad-request', 'lang must be a BCP 47 language tag');
  return l;
}

export function searchQuery(raw: unknown): SearchQuery {
  const q = (raw ?? {}) as Record<string, unknown>;
  const out: SearchQuery = { ...paging(q), lang: lang(q) };
  const text = one(q, 'q');
  if (text !== undefined) {
    if (text.length > 200) throw new ProblemError('bad-request', 'q is longer than 200 characters');
    out.q = text;
  }
  const min = one(q, 'min_level');
  if (min !== undefined) {
    if (!(LEVELS as readonly string[]).includes(min))
      throw new ProblemError('bad-request', `min_level must be one of ${LEVELS.join(', ')}`);
    out.minLevel = min as Level;
  }
  const cuisine = list(q, 'cuisine');
  if (cuisine) out.cuisine = cuisine;
  const excluded = list(q, 'exclude_allergens');
  if (excluded) out.excludeAllergens = excluded;
  const sup = one(q, 'supervision');
  if (sup !== undefined) out.supervision = sup;
  return out;
}
