/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) at `/.well-known/oauth-protected-resource` (and, for
 * clients that insert the resource's path, `/.well-known/oauth-protected-resource/svc/v1/mcp`). Every 401
 * points here (`WWW-Authenticate: Bearer resource_metadata="…"`, platform/http/auth.ts).
 *
 * The hub has no OAuth authorization server: a token comes from pairing, a device grant in the manner of
 * RFC 8628 (a client asks, a person approves on the hub with a user code, the client polls for the token)
 * over JSON rather than the RFC's form posts. So `authorization_servers` is left out (RFC 9728 makes it
 * optional) rather than pointing clients at endpoints that would not speak their wire format; the document
 * describes the pairing endpoints under `hearth_pairing` instead.
 */
import type { FastifyInstance } from 'fastify';

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

export function protectedResourceMetadata(base: string, scopes: readonly string[]): Record<string, unknown> {
  return {
    resource: base,
    resource_name: 'Hearth kitchen hub',
    scopes_supported: [...scopes],
    bearer_methods_supported: ['header'],
    hearth_pairing: {
      grant: 'device pairing in the manner of RFC 8628 (JSON bodies): a person approves the user code on the hub',
      device_authorization_endpoint: `${base}/svc/v1/pair`,
      device_authorization_request: { name: 'what the client is called', kind: 'human | agent', scopes: [...scopes] },
      token_endpoint: `${base}/svc/v1/pair/token`,
      token_request: { pollSecret: 'poll_secret from the device authorization answer' },
      approval: 'hearth pair approve USER_CODE on the hub, or POST /svc/v1/pair/requests/{code}/approve with a person’s admin token',
    },
  };
}

export function registerProtectedResourceMetadata(http: FastifyInstance, base: () => string, scopes: readonly string[]): void {
  const send = async () => protectedResourceMetadata(base(), scopes);
  http.get(PROTECTED_RESOURCE_PATH, send);
  http.get(`${PROTECTED_RESOURCE_PATH}/svc/v1/mcp`, send);
}
