/**
 * Review a proposed SafetyLimits set against the limits in force. The proposal is read as "these limits
 * replace the ones with the same id": anything that would loosen a limit in force (a higher max, a lower min,
 * a removed or narrowed limit, a weaker action) is refused; a proposal that only tightens or adds is accepted.
 * A malformed proposal is refused too. The comparison itself is checkLimitChange (safety/limits.ts).
 */
import { checkLimitChange, mergeLimits } from '../../safety/limits.js';
import type { SafetyLimits } from '../../safety/types.js';

export type LimitReview =
  | { ok: true }
  | { ok: false; raised: Array<{ id: string; from: number; to: number; what?: string }>; message: string };

export function reviewLimitChange(inForce: readonly SafetyLimits[], proposed: unknown): LimitReview {
  const p = proposed as Partial<SafetyLimits> | null;
  if (
    typeof p !== 'object' ||
    p === null ||
    !Array.isArray(p.limits) ||
    p.limits.some((l) => typeof l !== 'object' || l === null || typeof l.id !== 'string')
  ) {
    return { ok: false, raised: [], message: 'not a SafetyLimits document (limits[] with an id each)' };
  }
  const proposedLimits = p.limits;
  const current = mergeLimits(inForce);
  const verdict = checkLimitChange(current, {
    ...current,
    limits: [...current.limits.filter((l) => !proposedLimits.some((q) => q.id === l.id)), ...proposedLimits],
  });
  if (verdict.ok) return { ok: true };
  return {
    ok: false,
    raised: verdict.raised,
    message: verdict.raised.map((r) => `${r.id} (${r.what ?? 'max'} ${r.from} → ${r.to})`).join(', '),
  };
}
