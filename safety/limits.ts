/**
 * SafetyLimits: selection, merging and change control. Several limits on one quantity combine to the
 * strictest; a pack can only be tightened, never loosened, by a change (semantics §6).
 */
import { readData } from '../schemas/data.js';
import type { SafetyLimit, SafetyLimits } from './types.js';

export interface LimitSelector {
  op: string;
  medium?: string;
  foodClass?: string;
}

/** A limit applies when each selector it has matches. */
export function limitApplies(limit: SafetyLimit, sel: LimitSelector): boolean {
  const a = limit.appliesTo;
  if (!a) return true;
  if (a.ops !== undefined && !(Array.isArray(a.ops) && a.ops.includes(sel.op))) return false;
  if (a.medium !== undefined && a.medium !== sel.medium) return false;
  if (a.foodClass !== undefined && a.foodClass !== sel.foodClass) return false;
  return true;
}

function limitsOf(set: SafetyLimits): SafetyLimit[] {
  return set && Array.isArray(set.limits) ? set.limits : [];
}

function finite(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

/** The lowest applicable `max_temp` over every set, or null when none applies. */
export function effectiveMaxTempC(
  limitSets: readonly SafetyLimits[],
  sel: { op: string; medium?: string },
): { maxC: number; limitId: string; action: string } | null {
  let best: { maxC: number; limitId: string; action: string } | null = null;
  for (const set of limitSets) {
    for (const l of limitsOf(set)) {
      if (l.kind !== 'max_temp' || !finite(l.max) || !limitApplies(l, sel)) continue;
      const max = l.unit === 'degF' ? ((l.max - 32) * 5) / 9 : l.max;
      if (best === null || max < best.maxC) best = { maxC: max, limitId: l.id, action: l.action ?? 'cut_heat' };
    }
  }
  return best;
}

/**
 * The lowest `max_temp` limit on a medium, whatever ops it is scoped to: what the device enforces whenever it
 * heats that medium (a limit scoped to a food class is left to the recipe checks).
 */
export function mediumMaxTempC(
  limitSets: readonly SafetyLimits[],
  medium: string,
): { maxC: number; limitId: string; action: string } | null {
  let best: { maxC: number; limitId: string; action: string } | null = null;
  for (const set of limitSets) {
    for (const l of limitsOf(set)) {
      const a = l.appliesTo;
      if (l.kind !== 'max_temp' || !finite(l.max) || a?.medium !== medium || a.foodClass !== undefined) continue;
      const max = l.unit === 'degF' ? ((l.max - 32) * 5) / 9 : l.max;
      if (best === null || max < best.maxC) best = { maxC: max, limitId: l.id, action: l.action ?? 'cut_heat' };
    }
  }
  return best;
}

/** The lowest applicable `pressure` limit over every set, or null when none applies. */
export function effectivePressureMaxKPa(
  limitSets: readonly SafetyLimits[],
  sel: { op: string; medium?: string },
): { maxKPa: number; limitId: string } | null {
  let best: { maxKPa: number; limitId: string } | null = null;
  for (const set of limitSets) {
    for (const l of limitsOf(set)) {
      if (l.kind !== 'pressure' || !finite(l.max) || !limitApplies(l, sel)) continue;
      if (best === null || l.max < best.maxKPa) best = { maxKPa: l.max, limitId: l.id };
    }
  }
  return best;
}

/** One pack holding every limit of every set (same-id limits are kept side by side; evaluation takes the strictest). */
export function mergeLimits(sets: readonly SafetyLimits[]): SafetyLimits {
  const limits: SafetyLimit[] = [];
  const ids: string[] = [];
  for (const s of sets) {
    limits.push(...limitsOf(s));
    if (s.id) ids.push(s.id);
  }
  const first = sets[0];
  return {
    core: first?.core ?? '0.2.0',
    kind: 'SafetyLimits',
    id: ids.length > 0 ? ids.join('+') : 'merged',
    version: first?.version ?? '0.2.0',
    limits,
  };
}

const ACTION_STRENGTH: Record<string, number> = {
  alert: 1,
  ask_human: 2,
  refuse_start: 3,
  stop_motion: 4,
  cut_heat: 4,
  stop_all: 5,
};

/** True when `next` applies at least wherever `prev` applied. */
function scopeAtLeast(prev: SafetyLimit['appliesTo'], next: SafetyLimit['appliesTo']): boolean {
  if (!next) return true;
  if (next.medium !== undefined && next.medium !== prev?.medium) return false;
  if (next.foodClass !== undefined && next.foodClass !== prev?.foodClass) return false;
  if (next.ops !== undefined) {
    if (!prev?.ops) return false;
    if (!prev.ops.every((op) => next.ops?.includes(op))) return false;
  }
  return true;
}

export interface LimitChange {
  id: string;
  from: number;
  to: number;
  /** What loosened: `max` raised, `min` lowered, `removed`, `scope` narrowed, `action` weakened, `kind` changed. */
  what?: 'max' | 'min' | 'removed' | 'scope' | 'action' | 'kind';
}

/**
 * Compare a proposed pack with the current one. Any loosening is refused: a higher max, a lower min, a
 * removed limit, a narrower scope, a weaker action or a changed kind. New limits and tighter values are fine.
 */
export function checkLimitChange(current: SafetyLimits, proposed: SafetyLimits): { ok: boolean; raised: LimitChange[] } {
  const raised: LimitChange[] = [];
  const next = new Map<string, SafetyLimit>();
  for (const l of limitsOf(proposed)) if (!next.has(l.id)) next.set(l.id, l);
  for (const cur of limitsOf(current)) {
    const p = next.get(cur.id);
    const curMax = finite(cur.max) ? cur.max : Number.POSITIVE_INFINITY;
    const curMin = finite(cur.min) ? cur.min : Number.NEGATIVE_INFINITY;
    if (!p) {
      raised.push({
        id: cur.id,
        from: finite(cur.max) ? curMax : curMin,
        to: finite(cur.max) ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY,
        what: 'removed',
      });
      continue;
    }
    if (p.kind !== cur.kind) {
      raised.push({ id: cur.id, from: curMax, to: finite(p.max) ? p.max : Number.POSITIVE_INFINITY, what: 'kind' });
      continue;
    }
    const pMax = finite(p.max) ? p.max : Number.POSITIVE_INFINITY;
    const pMin = finite(p.min) ? p.min : Number.NEGATIVE_INFINITY;
    if ((p.unit ?? null) !== (cur.unit ?? null) && (finite(cur.max) || finite(cur.min))) {
      raised.push({ id: cur.id, from: finite(cur.max) ? curMax : curMin, to: finite(cur.max) ? pMax : pMin, what: 'kind' });
      continue;
    }
    if (pMax > curMax) raised.push({ id: cur.id, from: curMax, to: pMax, what: 'max' });
    if (pMin < curMin) raised.push({ id: cur.id, from: curMin, to: pMin, what: 'min' });
    if (!scopeAtLeast(cur.appliesTo, p.appliesTo)) raised.push({ id: cur.id, from: curMax, to: pMax, what: 'scope' });
    const ca = ACTION_STRENGTH[cur.action ?? ''] ?? 0;
    const pa = ACTION_STRENGTH[p.action ?? ''] ?? 0;
    if (pa < ca) raised.push({ id: cur.id, from: ca, to: pa, what: 'action' });
  }
  return { ok: raised.length === 0, raised };
}

let defaults: SafetyLimits | undefined;

/** The project's default SafetyLimits pack (schemas/packs/safety-limits.default.json), read once; a deep copy. */
export function defaultSafetyLimits(): SafetyLimits {
  defaults ??= readData('packs/safety-limits.default.json') as SafetyLimits;
  return structuredClone(defaults);
}
