/**
 * Agent mandates (spec §5, common.schema.json `AgentMandate`): what an agent may do on a person's behalf,
 * signed by that person. Pure verification, no I/O: the caller supplies the principal keys it knows, the
 * agent presenting the mandate, the clock and what the action needs.
 *
 * Checks, first failure wins:
 * 1. `malformed`: not an object with principal, agent, scopes and expires;
 * 2. `bad_signature`: the signature (semantics §1, kind `AgentMandate`) does not verify against the known
 *    principal keys (unsigned, unknown key, revoked, tampered: `signatureReason` says which);
 * 3. `wrong_principal`: the signing key belongs to someone other than `principal`; a key revoked by now
 *    voids every mandate it signed (`bad_signature`, `key_revoked`), earlier ones too;
 * 4. `wrong_agent`: the mandate names another agent than the one presenting it;
 * 5. `expired`: `expires` is not after now (or is unreadable), or it was signed in the future;
 * 6. `scope`: the action's scope is not among `scopes`;
 * 7. `provider`: a provider outside `allowedProviders` (when that list is given);
 * 8. `over_cap`: an amount over `perOrderCap`, or over `spendCap` with what was spent before, or in
 *    another currency than the cap;
 * 9. `confirm_before`: the action is of a kind the principal must confirm (`confirmBefore`, which always
 *    includes `irreversible` and `safety_override`).
 */
import type { KeyRecord } from './keys.js';
import { checkSignature, type SignatureCheckReason } from './signature.js';
import { parseRfc3339 } from './time.js';

export const MANDATE_SCOPES = [
  'plan_meals',
  'search_recipes',
  'start_cooking',
  'stop_cooking',
  'order_groceries',
  'accept_deliveries',
  'offer_surplus',
  'claim_surplus',
  'share_data',
  'change_settings',
] as const;
export type MandateScope = (typeof MANDATE_SCOPES)[number];

export const CONFIRM_BEFORE = [
  'any_payment',
  'payment_over_cap',
  'irreversible',
  'safety_override',
  'new_provider',
  'sharing_data',
  'diet_or_allergen_change',
] as const;
export type ConfirmBefore = (typeof CONFIRM_BEFORE)[number];
/** Always in the confirm-before list, whatever the mandate says. */
export const ALWAYS_CONFIRM: readonly ConfirmBefore[] = ['irreversible', 'safety_override'];

export interface Money {
  amount: number;
  currency: string;
}

export interface AgentMandate {
  principal: string;
  agent: string;
  scopes: string[];
  expires: string;
  spendCap?: Money;
  perOrderCap?: Money;
  allowedProviders?: string[];
  confirmBefore?: string[];
  signature?: unknown;
  [k: string]: unknown;
}

export type MandateFailure =
  | 'malformed'
  | 'bad_signature'
  | 'wrong_principal'
  | 'wrong_agent'
  | 'expired'
  | 'scope'
  | 'provider'
  | 'over_cap'
  | 'confirm_before';

export interface MandateAction {
  /** The scope the action needs. */
  scope: MandateScope;
  /** Ids the presenting agent goes by (its token id and name); the mandate's `agent` must be one of them. */
  agent: readonly string[];
  now: Date;
  /** Kinds of action this is, checked against `confirmBefore`. */
  kinds?: readonly ConfirmBefore[];
  provider?: string;
  amount?: Money;
  /** Already spent under this mandate (same currency as the cap), for `spendCap`. */
  spent?: number;
}

export type MandateResult =
  | { ok: true; mandate: AgentMandate; hash: string }
  | { ok: false; reason: MandateFailure; detail: string; signatureReason?: SignatureCheckReason };

const fail = (reason: MandateFailure, detail: string, signatureReason?: SignatureCheckReason): MandateResult =>
  signatureReason ? { ok: false, reason, detail, signatureReason } : { ok: false, reason, detail };

function isMoney(v: unknown): v is Money {
  const m = v as Money;
  return typeof m === 'object' && m !== null && typeof m.amount === 'number' && Number.isFinite(m.amount) && typeof m.currency === 'string';
}

function shapeError(m: Record<string, unknown>): string | undefined {
  for (const k of ['principal', 'agent', 'expires'] as const)
    if (typeof m[k] !== 'string' || (m[k] as string).length === 0 || (m[k] as string).length > 200)
      return `"${k}" must be a string of 1-200 characters`;
  if (!Array.isArray(m.scopes) || m.scopes.length === 0 || !m.scopes.every((s) => typeof s === 'string'))
    return '"scopes" must be a non-empty list of scope names';
  for (const k of ['allowedProviders', 'confirmBefore'] as const)
    if (m[k] !== undefined && (!Array.isArray(m[k]) || !(m[k] as unknown[]).every((s) => typeof s === 'string')))
      return `"${k}" must be a list of strings`;
  for (const k of ['spendCap', 'perOrderCap'] as const)
    if (m[k] !== undefined && !isMoney(m[k])) return `"${k}" must be {amount, currency}`;
  return undefined;
}

/** Verify `doc` as a mandate for `action` against the principal keys this device knows. */
export function verifyMandate(doc: unknown, keys: readonly KeyRecord[], action: MandateAction): MandateResult {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return fail('malformed', 'a mandate is a JSON object');
  const m = doc as AgentMandate;
  const shape = shapeError(m);
  if (shape) return fail('malformed', shape);
  const sig = checkSignature(m, keys, { kind: 'AgentMandate' });
  if (sig.reason !== 'ok') return fail('bad_signature', `the mandate's signature does not verify (${sig.reason})`, sig.reason);
  const kid = (m.signature as { kid: string }).kid;
  const key = keys.find((k) => k.kid === kid);
  if (!key || key.actor !== m.principal)
    return fail(
      'wrong_principal',
      `the mandate names principal ${JSON.stringify(m.principal)} but is signed by ${JSON.stringify(key?.actor ?? kid)}`,
    );
  // Semantics §1 keeps signatures made before a revocation valid; a mandate is standing consent, so revoking the
  // principal's key withdraws every mandate it signed.
  if (key.revokedAt !== undefined) {
    const revoked = parseRfc3339(key.revokedAt);
    if (!revoked || revoked.epochMicros <= action.now.getTime() * 1000)
      return fail('bad_signature', `the principal's key ${JSON.stringify(kid)} is revoked`, 'key_revoked');
  }
  if (!action.agent.includes(m.agent))
    return fail('wrong_agent', `the mandate is for agent ${JSON.stringify(m.agent)}, not the one presenting it`);
  const expires = parseRfc3339(m.expires);
  const nowMicros = action.now.getTime() * 1000;
  if (!expires || expires.epochMicros <= nowMicros) return fail('expired', `the mandate expired (${m.expires})`);
  const signedAt = parseRfc3339((m.signature as { signedAt: unknown }).signedAt);
  if (!signedAt || signedAt.epochMicros > nowMicros + 300_000_000) return fail('expired', 'the mandate is signed in the future');
  if (!m.scopes.includes(action.scope)) return fail('scope', `the mandate does not include ${action.scope}`);
  const confirm = new Set<string>([...ALWAYS_CONFIRM, ...(m.confirmBefore ?? [])]);
  if (action.provider !== undefined && m.allowedProviders !== undefined && !m.allowedProviders.includes(action.provider))
    return fail('provider', `provider ${JSON.stringify(action.provider)} is not among the mandate's allowed providers`);
  if (action.amount !== undefined) {
    const a = action.amount;
    for (const [name, cap, total] of [
      ['perOrderCap', m.perOrderCap, a.amount],
      ['spendCap', m.spendCap, a.amount + (action.spent ?? 0)],
    ] as const) {
      if (!cap) continue;
      if (cap.currency !== a.currency) return fail('over_cap', `${name} is in ${cap.currency}, the amount in ${a.currency}`);
      if (total > cap.amount) {
        if (confirm.has('payment_over_cap'))
          return fail('confirm_before', `${a.amount} ${a.currency} is over the ${name}: the principal must confirm`);
        return fail('over_cap', `${total} ${a.currency} is over the mandate's ${name} of ${cap.amount} ${cap.currency}`);
      }
    }
    if (a.amount > 0 && confirm.has('any_payment')) return fail('confirm_before', 'the principal confirms every payment (any_payment)');
  }
  const needs = (action.kinds ?? []).filter((k) => confirm.has(k));
  if (needs.length > 0) return fail('confirm_before', `the principal must confirm this first (${needs.join(', ')})`);
  return { ok: true, mandate: m, hash: sig.hash };
}
