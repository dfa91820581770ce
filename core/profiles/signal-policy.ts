/**
 * Demand and supply signal policy (profiles.md §2): every rule is evaluated; reasons are de-duplicated and
 * sorted by code point; `ok` exactly when there are none. Thresholds are fixed by the profile.
 */

export const MIN_SOURCES = 20;
export const MIN_DELAY_DAYS = 7;
export const FINE_REGION_MIN_SOURCES = 100;

const PRICE_FIELDS = ['price', 'prices', 'unitPrice', 'priceRange'] as const;

/** Truthiness as the reference library has it (a non-empty string, non-zero number, true, non-empty array or object). */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === '' || v === 0) return false;
  if (typeof v === 'number' && Number.isNaN(v)) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

/** `value < limit`, failing closed: a present value that is not a finite number counts as below. */
function below(value: unknown, limit: number): boolean {
  if (value === undefined || value === null) return 0 < limit;
  return typeof value !== 'number' || !Number.isFinite(value) || value < limit;
}

export function checkSignal(signal: unknown): { ok: boolean; reasons: string[] } {
  const s: Record<string, unknown> =
    typeof signal === 'object' && signal !== null && !Array.isArray(signal) ? (signal as Record<string, unknown>) : {};
  const reasons = new Set<string>();
  const demand = s.kind === 'DemandSignal';
  const supply = s.kind === 'SupplySignal';
  if (!demand && !supply) reasons.add('unknown_kind');
  if (demand) {
    if (below(s.contributingSources, MIN_SOURCES)) reasons.add('too_few_sources');
    if (below(s.delayDays, MIN_DELAY_DAYS)) reasons.add('delay_too_short');
    if (Object.hasOwn(s, 'prices') && s.prices !== 'none') reasons.add('prices_not_allowed');
  }
  for (const f of PRICE_FIELDS) {
    const v = s[f];
    if (v !== undefined && v !== null && v !== 'none') reasons.add('prices_not_allowed');
  }
  const cls = typeof s.ingredientClass === 'string' ? s.ingredientClass : '';
  if (!cls.startsWith('cw.ing.class.') && !cls.startsWith('x-')) reasons.add('class_level_required');
  const region = typeof s.region === 'object' && s.region !== null ? (s.region as Record<string, unknown>) : {};
  if ((truthy(region.admin2) || truthy(region.pcode)) && below(s.contributingSources, FINE_REGION_MIN_SOURCES))
    reasons.add('region_too_fine');
  if (supply && s.openToAll !== true) reasons.add('must_be_open_to_all');
  const sorted = [...reasons].sort();
  return { ok: sorted.length === 0, reasons: sorted };
}
