/**
 * Namespace proof and publish tokens. A publisher asks for a challenge (a random token), puts it in a DNS TXT
 * record or under /.well-known/svc-verify on the domain the namespace names (org.example ↔ example.org), and
 * asks for verification; a code-host account (io.github.<owner>) proves itself with an OIDC token instead.
 * A successful proof issues a publish token bound to the proven namespace (plus those of the caller's token).
 * Tokens are random, shown once, and stored only as their SHA-256.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { encodeBase64url } from '../../../core/base64url.js';
import { sha256Hex } from '../../../core/hash.js';
import { checkRegistryName } from '../../../core/registry-names.js';
import type { RegistryStore } from '../store/store.js';
import type { Challenge, ProofMethod, TokenRecord } from '../types.js';
import { checkDnsTxt, type ProofOutcome } from './dns.js';
import { type OidcOptions, verifyOidcToken } from './oidc.js';
import { checkWellKnown, DEFAULT_WELL_KNOWN_TEMPLATE, wellKnownUrl } from './well-known.js';

export const CHALLENGE_TTL_MS = 24 * 60 * 60 * 1000;
export type MethodName = 'dns' | 'well-known' | 'oidc';
export const METHODS: Record<MethodName, ProofMethod> = { dns: 'dns_txt', 'well-known': 'http_well_known', oidc: 'github_oidc' };

export interface ProverOptions {
  now: () => Date;
  dnsServers?: readonly string[];
  wellKnownTemplate?: string;
  oidc?: OidcOptions;
}

export class ProofError extends Error {
  constructor(
    message: string,
    readonly kind: 'bad_request' | 'failed' | 'not_found' = 'failed',
  ) {
    super(message);
  }
}

/** org.example → example.org */
export function domainOf(namespace: string): string {
  return namespace.split('.').reverse().join('.');
}

/**
 * A namespace is the part of a valid name before the slash. Its first label is the domain's top-level label,
 * which must hold a letter: `1.0.0.127` would send the registry's proof requests to an IP address.
 */
export function isValidNamespace(ns: string): boolean {
  return checkRegistryName(`${ns}/x`) === null && /[a-z]/.test(ns.split('.')[0] ?? '');
}

export function newTokenSecret(): string {
  return `svcreg_${encodeBase64url(randomBytes(32))}`;
}

export function tokenHash(token: string): string {
  return sha256Hex(token);
}

/** Create and store a token; returns the secret (shown once) and its record. */
export async function issueToken(
  store: RegistryStore,
  namespaces: readonly string[],
  admin: boolean,
  now: Date,
): Promise<{ token: string; record: TokenRecord }> {
  const token = newTokenSecret();
  const record: TokenRecord = {
    id: randomUUID(),
    hash: tokenHash(token),
    namespaces: [...new Set(namespaces)].sort(),
    admin,
    createdAt: now.toISOString(),
  };
  await store.putToken(record);
  return { token, record };
}

export class NamespaceProver {
  constructor(
    private readonly store: RegistryStore,
    private readonly opts: ProverOptions,
  ) {}

  private check(namespace: string, method: string): ProofMethod {
    if (!isValidNamespace(namespace))
      throw new ProofError(`${namespace} is not a namespace (reverse-DNS, lower case, e.g. org.example)`, 'bad_request');
    if (!Object.hasOwn(METHODS, method))
      throw new ProofError(`method must be dns, well-known or oidc, not ${JSON.stringify(method)}`, 'bad_request');
    return METHODS[method as MethodName];
  }

  /** Issue a challenge for the dns or well-known method. */
  async challenge(namespace: string, method: string): Promise<Challenge & { instructions: Record<string, string> }> {
    const m = this.check(namespace, method);
    if (m === 'github_oidc') throw new ProofError('the oidc method needs no challenge: send the OIDC token to verify', 'bad_request');
    if (namespace.startsWith('io.github.')) throw new ProofError('io.github.* namespaces are proven with the oidc method', 'bad_request');
    const now = this.opts.now();
    const domain = domainOf(namespace);
    const c: Challenge = {
      id: randomUUID(),
      namespace,
      domain,
      method: m,
      token: encodeBase64url(randomBytes(24)),
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS).toISOString(),
    };
    await this.store.putChallenge(c);
    const instructions: Record<string, string> =
      m === 'dns_txt'
        ? { type: 'TXT', name: domain, value: `svc-verify=${c.token}` }
        : { url: wellKnownUrl(this.opts.wellKnownTemplate ?? DEFAULT_WELL_KNOWN_TEMPLATE, domain), body: c.token };
    return { ...c, instructions };
  }

  /** Verify the newest pending challenge (or the OIDC token) and record the proof. Returns the method used. */
  async verify(namespace: string, method: string, idToken?: string): Promise<ProofMethod> {
    const m = this.check(namespace, method);
    const now = this.opts.now();
    let outcome: ProofOutcome;
    if (m === 'github_oidc') {
      if (!this.opts.oidc) throw new ProofError('this registry has no OIDC issuer configured', 'bad_request');
      if (typeof idToken !== 'string' || idToken === '') throw new ProofError('the oidc method needs "idToken"', 'bad_request');
      const r = await verifyOidcToken(idToken, this.opts.oidc, now);
      if (!r.ok) outcome = r;
      else if (`io.github.${r.owner}` !== namespace)
        outcome = { ok: false, message: `the OIDC token speaks for io.github.${r.owner}, not ${namespace}` };
      else outcome = { ok: true };
    } else {
      const c = await this.store.pendingChallenge(namespace, m);
      if (!c || Date.parse(c.expiresAt) <= now.getTime()) {
        throw new ProofError(`no open ${method} challenge for ${namespace}; ask for one first`, 'not_found');
      }
      outcome =
        m === 'dns_txt'
          ? await checkDnsTxt(c.domain, c.token, this.opts.dnsServers ? { servers: this.opts.dnsServers } : {})
          : await checkWellKnown(c.domain, c.token, this.opts.wellKnownTemplate);
      if (outcome.ok) await this.store.consumeChallenge(c.id);
    }
    if (!outcome.ok) throw new ProofError(outcome.message);
    await this.store.recordProof({ namespace, method: m, verifiedAt: now.toISOString() });
    return m;
  }
}
