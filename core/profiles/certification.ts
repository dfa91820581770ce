/**
 * Certifications (profiles.md §3): a signed claim by an authority about a subject, checked for kind, signature
 * (semantics §1 order, kind `Certification`), subject, status and validity window at a given instant.
 */
import { checkSignature } from '../signature.js';
import { parseRfc3339 } from '../time.js';

export type CertificationReason =
  | 'ok'
  | 'not_a_certification'
  | 'unsigned'
  | 'unsigned_time'
  | 'unknown_key'
  | 'alg_mismatch'
  | 'alg_not_supported_by_reference'
  | 'invalid_timestamp'
  | 'key_not_valid_at_signing_time'
  | 'key_revoked'
  | 'bad_signature'
  | 'subject_mismatch'
  | 'revoked'
  | 'suspended'
  | 'not_yet_valid'
  | 'expired';

type Doc = Record<string, unknown>;

function isObject(v: unknown): v is Doc {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function nonEmpty(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}

export interface CertificationInput {
  certification: unknown;
  keys: readonly unknown[];
  /** RFC 3339; absent means the current clock. */
  now?: unknown;
  subjectHash?: unknown;
}

/** Judge one certification. `clock` supplies the time when `now` is absent. */
export function checkCertification(
  input: CertificationInput,
  clock: () => Date = () => new Date(),
): { ok: boolean; reason: CertificationReason } {
  const fail = (reason: CertificationReason) => ({ ok: reason === 'ok', reason });
  const c = input.certification;
  if (!isObject(c) || c.kind !== 'Certification') return fail('not_a_certification');
  const keys = (Array.isArray(input.keys) ? input.keys : []).filter(isObject);
  const sig = checkSignature(c, keys, { kind: 'Certification' });
  if (sig.reason !== 'ok') return fail(sig.reason);
  if (nonEmpty(input.subjectHash)) {
    const subject = isObject(c.subject) ? c.subject.hash : undefined;
    if (subject !== input.subjectHash) return fail('subject_mismatch');
  }
  const nowText = nonEmpty(input.now) ? input.now : clock().toISOString();
  const now = parseRfc3339(nowText);
  if (!now) return fail('invalid_timestamp');
  const t = now.epochMicros;
  if (c.status === 'revoked') {
    if (!nonEmpty(c.revokedAt)) return fail('revoked');
    const at = parseRfc3339(c.revokedAt);
    if (!at) return fail('invalid_timestamp');
    if (t >= at.epochMicros) return fail('revoked');
  }
  if (c.status === 'suspended') return fail('suspended');
  if (nonEmpty(c.validFrom)) {
    const from = parseRfc3339(c.validFrom);
    if (!from) return fail('invalid_timestamp');
    if (t < from.epochMicros) return fail('not_yet_valid');
  }
  if (nonEmpty(c.validUntil)) {
    const until = parseRfc3339(c.validUntil);
    if (!until) return fail('invalid_timestamp');
    if (t > until.epochMicros) return fail('expired');
  }
  return fail('ok');
}

/**
 * Judge a set: failing documents are rejected with their reason; of the passing ones, per (authority, scheme)
 * the last by `issuedAt` (plain string order, input order on ties) is current and the others are superseded.
 */
export function checkCertificationSet(
  input: { certifications: readonly unknown[]; keys: readonly unknown[]; now?: unknown; subjectHash?: unknown },
  clock: () => Date = () => new Date(),
): { current: string[]; rejected: Record<string, string> } {
  const docs = Array.isArray(input.certifications) ? input.certifications : [];
  const verdicts = new Map<string, string>();
  const idOf = (d: unknown): string => String(isObject(d) ? d.id : undefined);
  for (const d of docs) {
    const { reason } = checkCertification({ certification: d, keys: input.keys, now: input.now, subjectHash: input.subjectHash }, clock);
    verdicts.set(idOf(d), reason);
  }
  const rejected: Record<string, string> = {};
  const groups = new Map<string, { id: string; issuedAt: string }[]>();
  for (const d of docs) {
    const id = idOf(d);
    const verdict = verdicts.get(id) as string;
    if (verdict !== 'ok') {
      rejected[id] = verdict;
      continue;
    }
    const c = d as Doc;
    const authority = isObject(c.authority) ? c.authority.id : undefined;
    const key = JSON.stringify([authority ?? null, c.scheme ?? null]);
    const group = groups.get(key) ?? [];
    group.push({ id, issuedAt: typeof c.issuedAt === 'string' ? c.issuedAt : '' });
    groups.set(key, group);
  }
  const current: string[] = [];
  for (const group of groups.values()) {
    // Stable sort by issuedAt as plain strings: the last one wins, input order breaks ties.
    const ordered = group
      .map((g, i) => ({ ...g, i }))
      .sort((a, b) => (a.issuedAt < b.issuedAt ? -1 : a.issuedAt > b.issuedAt ? 1 : a.i - b.i));
    const winner = ordered[ordered.length - 1] as { id: string };
    for (const g of ordered) if (g !== winner) rejected[g.id] = 'superseded';
    current.push(winner.id);
  }
  current.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { current, rejected };
}
