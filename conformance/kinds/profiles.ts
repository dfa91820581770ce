/** Profile kinds (profiles.md): sms_parse, signal_policy, certification, certification_set, disclosure_policy. */
import { checkCertification, checkCertificationSet } from '../../core/profiles/certification.js';
import { decideDisclosure } from '../../core/profiles/disclosure-policy.js';
import { checkSignal } from '../../core/profiles/signal-policy.js';
import { parseSms } from '../../core/profiles/sms-parse.js';
import type { KindHandler } from '../types.js';

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export const profileKinds: Record<string, KindHandler> = {
  sms_parse: (input) => parseSms(input.text),
  signal_policy: (input) => checkSignal(input.signal),
  certification: (input, ctx) =>
    checkCertification(
      { certification: input.certification, keys: list(input.keys), now: input.now, subjectHash: input.subjectHash },
      ctx.now,
    ),
  certification_set: (input, ctx) =>
    checkCertificationSet(
      { certifications: list(input.certifications), keys: list(input.keys), now: input.now, subjectHash: input.subjectHash },
      ctx.now,
    ),
  disclosure_policy: (input, ctx) =>
    decideDisclosure(
      { facets: list(input.facets), recipientRole: input.recipientRole, consents: list(input.consents) },
      ctx.data.disclosure,
    ),
};
