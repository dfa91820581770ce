/** The scope matrix rows of safety, pairing, principal keys, MCP, GraphQL and the well-known documents. */
import { clearPairing, pairingCode, principalKey, type Row } from './scope-fixtures.js';

export const PLATFORM_ROWS: Row[] = [
  { method: 'GET', route: '/svc/v1/safety', need: 'read', ok: 200 },
  {
    method: 'POST',
    route: '/svc/v1/safety/estop',
    need: 'token',
    ok: 202,
    body: { reason: 'matrix' },
    cleanup: (h) => void h.app.ctx.supervisor.reset('matrix'),
  },
  {
    method: 'POST',
    route: '/svc/v1/safety/reset',
    need: 'human',
    ok: 200,
    setup: (h) => {
      h.app.ctx.supervisor.cutAll('estop', 'matrix');
      return { body: {} };
    },
    cleanup: (h) => void h.app.ctx.supervisor.reset('matrix'),
  },
  {
    method: 'POST',
    route: '/svc/v1/pair',
    need: 'none',
    ok: 201,
    setup: (h) => {
      clearPairing(h);
      return { body: { name: 'matrix', kind: 'agent', scopes: ['read'] } };
    },
  },
  {
    method: 'POST',
    route: '/svc/v1/pair/token',
    need: 'none',
    ok: 200,
    setup: (h) => {
      clearPairing(h);
      const r = h.hub.pairing.start({ name: 'matrix', kind: 'agent', scopes: ['read'] });
      h.hub.pairing.approve(r.userCode, 'matrix');
      return { body: { pollSecret: r.pollSecret } };
    },
  },
  { method: 'GET', route: '/svc/v1/pair/requests', need: 'admin', ok: 200 },
  { method: 'GET', route: '/svc/v1/principal-keys', need: 'admin', ok: 200 },
  { method: 'POST', route: '/svc/v1/principal-keys', need: 'admin', ok: 201, setup: () => ({ body: principalKey() }) },
  {
    method: 'POST',
    route: '/svc/v1/principal-keys/:kid/revoke',
    need: 'admin',
    ok: 200,
    setup: (h) => ({ path: `/svc/v1/principal-keys/${h.app.ctx.principalKeys.add(principalKey(), 'matrix').kid}/revoke`, body: {} }),
  },
  ...(['approve', 'reject'] as const).map(
    (a): Row => ({
      method: 'POST',
      route: `/svc/v1/pair/requests/:code/${a}`,
      need: 'admin',
      ok: 200,
      setup: (h) => ({
        path: `/svc/v1/pair/requests/${pairingCode(h)}/${a}`,
        body: {},
      }),
    }),
  ),
  {
    method: 'POST',
    route: '/svc/v1/mcp',
    need: 'token',
    ok: 200,
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'matrix', version: '1' } },
    },
  },
  // Stateless MCP: the SDK answers 405 to the 2025-era session operations, once the token is checked.
  { method: 'GET', route: '/svc/v1/mcp', need: 'token', ok: 405, headers: { accept: 'text/event-stream' } },
  { method: 'DELETE', route: '/svc/v1/mcp', need: 'token', ok: 405 },
  // GraphQL: a token to get in; each field then checks its own scope (runtime/graphql/scopes.ts, graphql.test.ts).
  { method: 'POST', route: '/svc/v1/graphql', need: 'token', ok: 200, body: { query: '{ search(first: 1) { total } }' } },
  {
    method: 'GET',
    route: '/svc/v1/graphql',
    need: 'token',
    ok: 200,
    setup: () => ({ path: `/svc/v1/graphql?query=${encodeURIComponent('{ search(first: 1) { total } }')}` }),
  },
  { method: 'GET', route: '/.well-known/agent-card.json', need: 'token', ok: 200 },
  // RFC 9728 metadata: public, it says how to get a token.
  { method: 'GET', route: '/.well-known/oauth-protected-resource', need: 'none', ok: 200 },
  { method: 'GET', route: '/.well-known/oauth-protected-resource/svc/v1/mcp', need: 'none', ok: 200 },
];
