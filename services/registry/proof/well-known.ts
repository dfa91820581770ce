/** Namespace proof by `https://<domain>/.well-known/svc-verify` serving the token (the URL is a template). */
import { boundedGet } from '../fetch.js';
import type { ProofOutcome } from './dns.js';

export const DEFAULT_WELL_KNOWN_TEMPLATE = 'https://{domain}/.well-known/svc-verify';

export function wellKnownUrl(template: string, domain: string): string {
  return template.replace(/\{domain\}/g, domain);
}

/** The body must hold the token on a line of its own (bare or as `svc-verify=<token>`). */
export async function checkWellKnown(
  domain: string,
  token: string,
  template = DEFAULT_WELL_KNOWN_TEMPLATE,
  timeoutMs = 5000,
): Promise<ProofOutcome> {
  const url = wellKnownUrl(template, domain);
  const got = await boundedGet(url, { timeoutMs, maxBytes: 4096 });
  if (!got.ok) return { ok: false, message: got.message };
  const lines = got.bytes
    .toString('utf8')
    .split(/\r?\n/)
    .map((l) => l.trim());
  if (lines.includes(token) || lines.includes(`svc-verify=${token}`)) return { ok: true };
  return { ok: false, message: `${url} does not serve the challenge token` };
}
