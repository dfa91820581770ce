/**
 * Mandates on the hub's paths that act for someone: the same verification as the executor's (core/mandate.ts),
 * answered as problem documents: 403 `policy-deny` (with `mandateReason`) for a mandate that does not hold, and
 * 403 `not-human-approver` when the principal must confirm the action first (`confirmBefore`).
 */
import type { KeyRecord } from '../../../core/keys.js';
import { type MandateAction, verifyMandate } from '../../../core/mandate.js';
import type { Principal } from '../../../platform/http/auth.js';
import { ProblemError } from '../../../platform/http/problems.js';

export interface MandateRef {
  principal: string;
  hash: string;
}

export function checkMandate(
  doc: unknown,
  keys: readonly KeyRecord[],
  by: Principal,
  action: Omit<MandateAction, 'agent' | 'now'>,
): MandateRef {
  const r = verifyMandate(doc, keys, { ...action, agent: [by.id, by.name], now: new Date() });
  if (r.ok) return { principal: r.mandate.principal, hash: r.hash };
  if (r.reason === 'confirm_before') throw new ProblemError('not-human-approver', r.detail, { mandateReason: r.reason });
  throw new ProblemError('policy-deny', `mandate refused (${r.reason}): ${r.detail}`, {
    mandateReason: r.reason,
    ...(r.signatureReason ? { signatureReason: r.signatureReason } : {}),
  });
}
