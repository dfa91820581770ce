/**
 * Every hub route and every hub MCP tool against a token of every scope (and no token): 401, 403 or success.
 * One table (scope-table.ts) drives it; a test fails when a registered `/svc/v1` route is missing from the table.
 */

import { randomUUID } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t from 'tap';
import type { Principal } from '../../platform/http/auth.js';
import { TOOL_SCOPES } from '../mcp/tools.js';
import { FRY_RECIPE, startHub, type TestHub } from './test-helpers.js';
import {
  adviceAnswer,
  agent,
  confirmed,
  confirmTask,
  expected,
  handoffId,
  leaseId,
  MARKET_DIR,
  planMandate,
  planned,
  principalKey,
  quoteBody,
  ROWS,
  reliefNeed,
  reliefPledge,
  reliefPledgeBody,
  running,
  SPEC_TOOL_SCOPES,
  sessionBody,
  TOKEN_SCOPES,
} from './testing/scope-table.js';
import { SCOPES } from './types.js';

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
  const h = await startHub({ market: MARKET_DIR, relief: true });
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
  const h = await startHub({ market: MARKET_DIR, relief: true });
  t.teardown(() => h.close());
  await h.presence(true);
  for (const scope of TOKEN_SCOPES.filter((s): s is string => s !== null)) {
    const client = new Client({ name: 'matrix', version: '1' });
    const token = h.token([scope], 'agent');
    const principal = h.app.ctx.tokens.verify(token);
    if (!principal) throw new Error('the matrix token does not verify');
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${h.url}/svc/v1/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    for (const [tool, need] of Object.entries(SPEC_TOOL_SCOPES)) {
      const args = toolArgs(h, tool, principal);
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

function toolArgs(h: TestHub, tool: string, caller: Principal): Record<string, unknown> {
  switch (tool) {
    case 'list_leases':
    case 'list_handoffs':
      return {};
    case 'claim_lease':
      return { resource: `vessel:mcp-matrix-${randomUUID()}` };
    case 'renew_lease':
    case 'release_lease':
      return { id: leaseId(h, caller) };
    case 'propose_handoff':
      return { item: 'tray', from: { kind: 'robot', id: h.app.ctx.device.capabilities.actor?.id }, to: { kind: 'human', id: 'amal' } };
    case 'decline_handoff':
      return { id: handoffId(h) };
    case 'complete_handoff':
      return { id: handoffId(h, true) };
    case 'accept_handoff': {
      // The receiving side is the hub's own device, which the hub acknowledges for any caller with the scope.
      const dev = h.app.ctx.device.capabilities.actor?.id ?? 'device';
      return { id: h.hub.handoffs.propose({ item: 'pan', from: { kind: 'human', id: 'amal' }, to: { kind: 'robot', id: dev } }, agent).id };
    }
    case 'relief_needs':
      return {};
    case 'relief_pledge':
      return reliefPledgeBody();
    case 'relief_allocate':
      return { svc: '0.2.0', need: reliefNeed(h), assignments: [{ pledge: reliefPledge(h) }] };
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
    case 'advise':
      return { intent: 'feed', query: { people: 4 } };
    case 'ask':
      return { text: 'feed 6 people' };
    case 'apply_advice':
      return { ...adviceAnswer(h), mandate: planMandate(h, 'agent-cook') };
    case 'search_offers':
      return { q: 'lamb' };
    case 'request_quote':
      return quoteBody;
    case 'team_call_for_proposals':
      return { sessionId: planned(h).id };
    default:
      throw new Error(`no arguments for tool ${tool}`);
  }
}
