/**
 * A loopback OIDC issuer for tests: publishes a JWKS (one ES256 and one RS256 key) on a test web server and
 * signs ID tokens with either key, with whatever claims a test needs.
 */
import { createPrivateKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { encodeBase64url } from '../../../core/base64url.js';
import { startTestWebServer, type TestWebServer } from './web-server.js';

export interface TestOidcIssuer {
  issuer: string;
  jwksUrl: string;
  /** Sign a token; `alg` default ES256. */
  token(claims: Record<string, unknown>, opts?: { alg?: 'ES256' | 'RS256'; kid?: string; key?: KeyObject }): string;
  /** A key that is not in the JWKS (for forged tokens). */
  strangerKey: KeyObject;
  close(): Promise<void>;
}

const b64json = (v: unknown) => encodeBase64url(Buffer.from(JSON.stringify(v)));

export async function startTestOidcIssuer(): Promise<TestOidcIssuer> {
  const web: TestWebServer = await startTestWebServer();
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwks = {
    keys: [
      { ...ec.publicKey.export({ format: 'jwk' }), kid: 'ec-1', alg: 'ES256', use: 'sig' },
      { ...rsa.publicKey.export({ format: 'jwk' }), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
    ],
  };
  web.set('/.well-known/jwks', JSON.stringify(jwks));
  return {
    issuer: web.base,
    jwksUrl: web.url('/.well-known/jwks'),
    strangerKey: createPrivateKey(stranger.privateKey.export({ format: 'pem', type: 'pkcs8' })),
    token(claims, opts = {}) {
      const alg = opts.alg ?? 'ES256';
      const kid = opts.kid ?? (alg === 'ES256' ? 'ec-1' : 'rsa-1');
      const key = opts.key ?? (alg === 'ES256' ? ec.privateKey : rsa.privateKey);
      const input = `${b64json({ alg, kid, typ: 'JWT' })}.${b64json(claims)}`;
      const sig = sign('sha256', Buffer.from(input), alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key);
      return `${input}.${encodeBase64url(sig)}`;
    },
    close: () => web.close(),
  };
}
