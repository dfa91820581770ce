/**
 * Every hub route and every hub MCP tool against a token of every scope (and no token): 401, 403 or success.
 * One table drives it; a test fails when a registered `/svc/v1` route is missing from the table.
 */

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t from 'tap';
import { generateKeyFile, publicRecord } from '../../core/keys.js';
import { TOOL_SCOPES } from '../mcp/tools.js';
import { FRY_RECIPE, startHub, type TestHub } from './test-helpers.js';
import { SCOPES, type Session } from './types.js';

/** What a route needs: a scope, any valid token, a person's token, or nothing. */
type Need = string | readonly string[] | 'token' | 'human' | 'none';

interface Row {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  route: string;
  need: Need;
  ok: number;
  /** Build what the call needs (a fresh session, order, pairing…) and return the path and body. */
  setup?: (h: TestHub) => Promise<{ path?: string; body?: unknown }> | { path?: string; body?: unknown };
  body?: unknown;
  cleanup?: (h: TestHub) => void;
  headers?: Record<string, string>;
}

const SERVE_AT = '2026-06-01T19:00:00Z';
const sessionBody = { recipes: [{ recipeId: FRY_RECIPE }], serveAt: SERVE_AT, mode: 'assisted' };
let keyCount = 0;
/** A fresh principal's public key record. */
const principalKey = () => publicRecord(generateKeyFile({ kid: `matrix-${++keyCount}`, actor: `person-${keyCount}` }));
const human = { id: 'tok_matrix', name: 'matrix person', kind: 'human' as const, scopes: ['cook'] };
const agent = { id: 'tok_matrix_agent', name: 'matrix agent', kind: 'agent' as const, scopes: ['cook'] };

function stopAll(h: TestHub): void {
  for (const s of h.hub.sessions.sessions.inStates(['running', 'paused'])) h.hub.sessions.abort(s.id, 'matrix cleanup');
}
function planned(h: TestHub): Session {
  stopAll(h);
  return h.hub.sessions.create(sessionBody, human);
}
function confirmed(h: TestHub): Session {
  const s = planned(h);
  return h.hub.sessions.confirm(s.id, s.confirmation.requiredRules, human).session;
}
function running(h: TestHub): Session {
  return h.hub.sessions.start(confirmed(h).id, human);
}
/** Decide leftover pairing requests (at most MAX_PENDING may wait at once). */
function clearPairing(h: TestHub): void {
  for (const r of h.hub.pairing.list()) if (r.state === 'pending') h.hub.pairing.reject(r.userCode, 'matrix');
}
function pairingCode(h: TestHub): string {
  clearPairing(h);
  return h.hub.pairing.start({ name: 'matrix', kind: 'agent', scopes: ['read'] }).userCode;
}
function confirmTask(h: TestHub): string {
  const s = planned(h);
  const task = h.hub.sessions.confirm(s.id, s.confirmation.requiredRules, agent).task;
  if (!task) throw new Error('no task');
  return task.id;
}

const ROWS: Row[] = [
  { method: 'POST', route: '/svc/v1/sessions', need: 'cook', ok: 201, body: sessionBody },
  { method: 'GET', route: '/svc/v1/sessions', need: 'read', ok: 200 },
  { method: 'GET', route: '/svc/v1/sessions/:id', need: 'read', ok: 200, setup: (h) => ({ path: `/svc/v1/sessions/${planned(h).id}` }) },
  {
    method: 'POST',
    route: '/svc/v1/sessions/:id/confirm',
    need: 'cook',
    ok: 200,
    setup: (h) => {
      const s = planned(h);
      return { path: `/svc/v1/sessions/${s.id}/confirm`, body: { acknowledgedRules: s.confirmation.requiredRules } };
    },
  },
  {
    method: 'POST',
    route: '/svc/v1/sessions/:id/start',
    need: 'cook',
    ok: 202,
    setup: (h) => ({ path: `/svc/v1/sessions/${confirmed(h).id}/start` }),
  },
  {
    method: 'POST',
    route: '/svc/v1/sessions/:id/pause',
    need: 'cook',
    ok: 202,
    setup: async (h) => {
      const s = running(h);
      await h.clock.advanceAsync(2000);
      return { path: `/svc/v1/sessions/${s.id}/pause` };
    },
  },
  {
    method: 'POST',
    route: '/svc/v1/sessions/:id/resume',
    need: 'cook',
    ok: 202,
    setup: async (h) => {
      const s = running(h);
      await h.clock.advanceAsync(2000);
      h.hub.sessions.pause(s.id);
      return { path: `/svc/v1/sessions/${s.id}/resume` };
    },
  },
  {
    method: 'POST',
    route: '/svc/v1/sessions/:id/abort',
    need: 'cook',
    ok: 202,
    setup: (h) => ({ path: `/svc/v1/sessions/${running(h).id}/abort`, body: { reason: 'matrix' } }),
  },
  { method: 'GET', route: '/svc/v1/tasks', need: 'read', ok: 200 },
  { method: 'GET', route: '/svc/v1/tasks/:id', need: 'read', ok: 200, setup: (h) => ({ path: `/svc/v1/tasks/${confirmTask(h)}` }) },
  {
    method: 'POST',
    route: '/svc/v1/tasks/:id/respond',
    need: 'cook',
    ok: 200,
    setup: (h) => ({ path: `/svc/v1/tasks/${confirmTask(h)}/respond`, body: { answer: 'yes' } }),
  },
  { method: 'GET', route: '/svc/v1/inventory', need: 'read', ok: 200 },
  { method: 'PATCH', route: '/svc/v1/inventory', need: 'inventory', ok: 200, body: { upsert: [{ name: 'Eggs', quantity: 6, unit: '1' }] } },
  { method: 'POST', route: '/svc/v1/orders', need: 'order:create', ok: 201, body: { lines: [{ item: 'oil', quantity: 1, unit: 'L' }] } },
  { method: 'GET', route: '/svc/v1/orders', need: 'read', ok: 200 },
  {
    method: 'GET',
    route: '/svc/v1/orders/:id',
    need: 'read',
    ok: 200,
    setup: (h) => ({
      path: `/svc/v1/orders/${h.hub.kitchen.createOrder([{ item: 'salt', quantity: 1, unit: 'kg' }], undefined, agent).id}`,
    }),
  },
  {
    method: 'POST',
    route: '/svc/v1/orders/:id/approve',
    need: ['order:create', 'admin'],
    ok: 200,
    setup: (h) => ({
      path: `/svc/v1/orders/${h.hub.kitchen.createOrder([{ item: 'salt', quantity: 1, unit: 'kg' }], undefined, agent).id}/approve`,
    }),
  },
  {
    method: 'POST',
    route: '/svc/v1/notify',
    need: 'notify',
    ok: 202,
    body: { audience: 'household', urgency: 'low', message: { en: 'hello' } },
  },
  { method: 'GET', route: '/svc/v1/mode', need: 'read', ok: 200 },
  { method: 'PUT', route: '/svc/v1/mode', need: 'admin', ok: 200, body: { mode: 'eco' } },
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
  { method: 'GET', route: '/.well-known/agent-card.json', need: 'token', ok: 200 },
  // RFC 9728 metadata: public, it says how to get a token.
  { method: 'GET', route: '/.well-known/oauth-protected-resource', need: 'none', ok: 200 },
  { method: 'GET', route: '/.well-known/oauth-protected-resource/svc/v1/mcp', need: 'none', ok: 200 },
];

/** The spec's tool table (§4.7): null = any valid token ("none" on the hub, "any" for the e-stop). */
const SPEC_TOOL_SCOPES: Record<string, string | null> = {
  search_recipes: null,
  get_recipe: null,
  match_kitchen: 'read',
  plan_preview: 'read',
  create_session: 'cook',
  get_session: 'read',
  list_tasks: 'read',
  confirm_session: 'cook',
  start_session: 'cook',
  pause_session: 'cook',
  abort_session: 'cook',
  get_inventory: 'read',
  update_inventory: 'inventory',
  create_order_intent: 'order:create',
  notify: 'notify',
  emergency_stop: null,
  get_mode: 'read',
  set_mode: 'admin',
};

/** The tokens of the matrix: none, one per scope, and one with a scope the hub does not know. */
const TOKEN_SCOPES: (string | null)[] = [null, ...SCOPES, 'x-unrelated'];

function expected(need: Need, scope: string | null): number | 'ok' {
  if (need === 'none') return 'ok';
  if (scope === null) return 401;
  if (need === 'token' || need === 'human') return 'ok';
  const needs = typeof need === 'string' ? [need] : need;
  return needs.includes(scope) ? 'ok' : 403;
}

t.test('every hub route is in the table, and every row is a route', async (t) => {
  const registered = new Set<string>();
  const h = await startHub({
    beforeStart: (app) =>
      app.ctx.http.addHook('onRoute', (r) => {
        const url = r.url ?? r.path;
        if (!url.startsWith('/svc/v1') && !url.startsWith('/.well-known')) return;
        for (const m of Array.isArray(r.method) ? r.method : [r.method]) if (m !== 'HEAD') registered.add(`${m} ${url}`);
      }),
  });
  t.teardown(() => h.close());
  const table = new Set(ROWS.map((r) => `${r.method} ${r.route}`));
  t.same([...registered].filter((r) => !table.has(r)).sort(), [], 'no route is missing from the table');
  t.same([...table].filter((r) => !registered.has(r)).sort(), [], 'no row names a route that does not exist');
});

t.test('scope matrix: every route against every scope', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  await h.presence(true);
  const tokens = new Map<string | null, string | undefined>(
    TOKEN_SCOPES.map((s) => [s, s === null ? undefined : h.token([s], 'human', `matrix ${s}`)]),
  );
  for (const row of ROWS) {
    for (const scope of TOKEN_SCOPES) {
      const want = expected(row.need, scope);
      const prepared = want === 'ok' && row.setup ? await row.setup(h) : row.setup && want !== 'ok' ? await row.setup(h) : {};
      const path = prepared.path ?? row.route;
      const body = prepared.body ?? row.body;
      const r = await h.call(row.method, path, {
        token: tokens.get(scope),
        ...(body !== undefined ? { body } : {}),
        ...(row.headers ? { headers: row.headers } : {}),
      });
      const label = `${row.method} ${row.route} with ${scope ?? 'no token'}`;
      if (want === 'ok') t.equal(r.status, row.ok, `${label}: ${row.ok}${r.status >= 400 ? ` (${String(r.body.detail)})` : ''}`);
      else {
        t.equal(r.status, want, `${label}: ${want}`);
        t.match(r.body.type, want === 401 ? /\/errors\/unauthorized$/ : /\/errors\/forbidden$/);
      }
      row.cleanup?.(h);
    }
  }
});

t.test('agents: routes that need a person answer 403 not-human-approver', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const a = h.token([...SCOPES], 'agent');
  const order = h.hub.kitchen.createOrder([{ item: 'oil', quantity: 1, unit: 'L' }], undefined, agent);
  const cases: [string, string, unknown][] = [
    ['POST', `/svc/v1/orders/${order.id}/approve`, undefined],
    ['POST', `/svc/v1/tasks/${confirmTask(h)}/respond`, { answer: 'yes' }],
    ['POST', '/svc/v1/safety/reset', {}],
    ['POST', '/svc/v1/principal-keys', principalKey()],
    ['POST', `/svc/v1/pair/requests/${h.hub.pairing.start({ name: 'x', kind: 'agent', scopes: ['read'] }).userCode}/approve`, {}],
  ];
  for (const [method, path, body] of cases) {
    const r = await h.call(method, path, { token: a, ...(body !== undefined ? { body } : {}) });
    t.equal(r.status, 403, `${method} ${path}`);
    t.match(r.body.type, /not-human-approver$/);
  }
  const s = planned(h);
  const prep = await h.call('POST', `/svc/v1/sessions/${s.id}/confirm`, {
    token: a,
    body: { acknowledgedRules: s.confirmation.requiredRules },
  });
  t.equal(prep.status, 202, 'an agent’s confirmation only prepares');
  t.equal(prep.body.state, 'awaiting_confirmation');
});

t.test('scope matrix: every MCP tool against every scope', async (t) => {
  t.same(TOOL_SCOPES, SPEC_TOOL_SCOPES, 'the hub enforces the spec’s tool scopes');
  const h = await startHub();
  t.teardown(() => h.close());
  await h.presence(true);
  for (const scope of TOKEN_SCOPES.filter((s): s is string => s !== null)) {
    const client = new Client({ name: 'matrix', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${h.url}/svc/v1/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${h.token([scope], 'agent')}` } },
      }),
    );
    for (const [tool, need] of Object.entries(SPEC_TOOL_SCOPES)) {
      const args = toolArgs(h, tool);
      const r = await client.callTool({ name: tool, arguments: args });
      const allowed = need === null || need === scope;
      const err = (r.structuredContent as { error?: string } | undefined)?.error;
      if (allowed) t.notOk(r.isError, `${tool} with ${scope}: success${r.isError ? ` (${JSON.stringify(r.structuredContent)})` : ''}`);
      else t.equal(err, 'forbidden', `${tool} with ${scope}: forbidden`);
      if (tool === 'emergency_stop') h.app.ctx.supervisor.reset('matrix');
    }
    await client.close();
  }
});

function toolArgs(h: TestHub, tool: string): Record<string, unknown> {
  switch (tool) {
    case 'search_recipes':
      return { query: 'onions' };
    case 'get_recipe':
      return { id: FRY_RECIPE };
    case 'match_kitchen':
    case 'get_inventory':
    case 'get_mode':
      return {};
    case 'plan_preview':
      return { recipeId: FRY_RECIPE };
    case 'create_session':
      return sessionBody;
    case 'get_session':
    case 'list_tasks':
      return { id: planned(h).id };
    case 'confirm_session': {
      const s = planned(h);
      return { id: s.id, acknowledgedRules: s.confirmation.requiredRules };
    }
    case 'start_session':
      return { id: confirmed(h).id };
    case 'pause_session': {
      const s = running(h);
      h.clock.advance(1000);
      return { id: s.id };
    }
    case 'abort_session':
      return { id: planned(h).id };
    case 'update_inventory':
      return { upsert: [{ name: 'Rice', quantity: 500, unit: 'g' }] };
    case 'create_order_intent':
      return { lines: [{ item: 'oil', quantity: 1, unit: 'L' }] };
    case 'notify':
      return { audience: 'household', urgency: 'low', message: { en: 'hi' } };
    case 'emergency_stop':
      return { reason: 'matrix' };
    case 'set_mode':
      return { mode: 'quiet' };
    default:
      throw new Error(`no arguments for tool ${tool}`);
  }
}
