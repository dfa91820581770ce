/**
 * Namespace proof by a code-host OIDC token (`io.github.<owner>` namespaces). The JWT is verified with
 * node:crypto against the issuer's JWKS (RS256 or ES256), then `iss`, `aud`, `exp` and `nbf` are checked.
 * The account is the `repository_owner` claim, as in GitHub Actions tokens.
 */
import { createPublicKey, type JsonWebKey, verify } from 'node:crypto';
import { decodeBase64url } from '../../../core/base64url.js';
import { parseJson } from '../../../core/canonical.js';
import { boundedGet } from '../fetch.js';

export interface OidcOptions {
  jwksUrl: string;
  issuer: string;
  audience: string;
  /** Allowed clock skew in seconds (default 30). */
  leewayS?: number;
}

export type OidcOutcome = { ok: true; owner: string; claims: Record<string, unknown> } | { ok: false; message: string };

const ALGS: Record<string, { dsaEncoding?: 'ieee-p1363' }> = { RS256: {}, ES256: { dsaEncoding: 'ieee-p1363' } };

function decodeJson(part: string, what: string): Record<string, unknown> {
  const bytes = decodeBase64url(part);
  if (!bytes) throw new Error(`the token's ${what} is not base64url`);
  const v = parseJson(Buffer.from(bytes).toString('utf8'));
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`the token's ${what} is not a JSON object`);
  return v as Record<string, unknown>;
}

async function jwks(url: string): Promise<Record<string, unknown>[]> {
  const got = await boundedGet(url, { maxBytes: 256 * 1024 });
  if (!got.ok) throw new Error(got.message);
  const doc = parseJson(got.bytes.toString('utf8')) as { keys?: unknown };
  if (!Array.isArray(doc?.keys)) throw new Error('the JWKS has no "keys" array');
  return doc.keys.filter((k): k is Record<string, unknown> => typeof k === 'object' && k !== null);
}

/** Verify `jwt` and return the account it speaks for. `now` is the current time (injectable clock). */
export async function verifyOidcToken(jwt: string, opts: OidcOptions, now: Date): Promise<OidcOutcome> {
  try {
    const parts = jwt.split('.');
    if (parts.length !== 3) return { ok: false, message: 'the OIDC token is not a JWT (three dot-separated parts)' };
    const [h, p, s] = parts as [string, string, string];
    const header = decodeJson(h, 'header');
    const claims = decodeJson(p, 'payload');
    const alg = typeof header.alg === 'string' ? header.alg : '';
    const algOpts = ALGS[alg];
    if (!algOpts) return { ok: false, message: `the OIDC token uses alg ${JSON.stringify(header.alg)}; only RS256 and ES256 are accepted` };
    const keys = await jwks(opts.jwksUrl);
    const jwk = typeof header.kid === 'string' ? keys.find((k) => k.kid === header.kid) : keys.length === 1 ? keys[0] : undefined;
    if (!jwk) return { ok: false, message: `no key ${JSON.stringify(header.kid)} in the issuer's JWKS` };
    const key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    const sig = decodeBase64url(s);
    if (!sig) return { ok: false, message: 'the OIDC token signature is not base64url' };
    const ok = verify('sha256', Buffer.from(`${h}.${p}`), { key, ...algOpts }, sig);
    if (!ok) return { ok: false, message: 'the OIDC token signature does not verify' };
    if (claims.iss !== opts.issuer)
      return { ok: false, message: `the OIDC token issuer ${JSON.stringify(claims.iss)} is not ${opts.issuer}` };
    const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!aud.includes(opts.audience)) return { ok: false, message: `the OIDC token audience is not ${opts.audience}` };
    const t = now.getTime() / 1000;
    const leeway = opts.leewayS ?? 30;
    if (typeof claims.exp !== 'number' || claims.exp + leeway <= t)
      return { ok: false, message: 'the OIDC token has expired (or has no exp)' };
    if (typeof claims.nbf === 'number' && claims.nbf - leeway > t) return { ok: false, message: 'the OIDC token is not valid yet (nbf)' };
    const owner = claims.repository_owner;
    if (typeof owner !== 'string' || !/^[A-Za-z0-9-]{1,39}$/.test(owner))
      return { ok: false, message: 'the OIDC token has no usable repository_owner claim' };
    return { ok: true, owner: owner.toLowerCase(), claims };
  } catch (err) {
    return { ok: false, message: `the OIDC token could not be checked: ${(err as Error).message}` };
  }
}
