/**
 * The scope matrix of the hub (tests only): every hub route with what it needs (a scope, any token, a person's
 * token, or nothing), the status it answers when allowed, and how to set up a call; the spec's MCP tool scopes;
 * the tokens of the matrix; and the expected answer of a route for a token. scope-matrix.test.ts runs it in full;
 * the hostile-input harness (test-support/fuzz.ts) samples it.
 */
import { generateKeyFile, publicRecord } from '../../core/keys.js';
import { signDocument } from '../../core/signature.js';
import { advise } from '../../services/advice/index.js';
import type { QuoteRequestRecord } from './market.js';
import { FRY_RECIPE, type TestHub } from './test-helpers.js';
import { SCOPES, type Session } from './types.js';

/** What a route needs: a scope, any valid token, a person's token, or nothing. */
export type Need = string | readonly string[] | 'token' | 'human' | 'none';

export interface Row {
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

export const SERVE_AT = '2026-06-01T19:00:00Z';
export const sessionBody = { recipes: [{ recipeId: FRY_RECIPE }], serveAt: SERVE_AT, mode: 'assisted' };
let keyCount = 0;
/** A fresh principal's public key record. */
export const principalKey = () => publicRecord(generateKeyFile({ kid: `matrix-${++keyCount}`, actor: `person-${keyCount}` }));
export const human = { id: 'tok_matrix', name: 'matrix person', kind: 'human' as const, scopes: ['cook'] };
export const agent = { id: 'tok_matrix_agent', name: 'matrix agent', kind: 'agent' as const, scopes: ['cook'] };

let senders = 0;
/** A fresh sender for each notification the matrix sets up (each token has its own notification budget). */
const matrixSender = () => ({ ...agent, id: `tok_matrix_sender_${++senders}`, scopes: ['notify'] });

export function stopAll(h: TestHub): void {
  for (const s of h.hub.sessions.sessions.inStates(['running', 'paused'])) h.hub.sessions.abort(s.id, 'matrix cleanup');
}
export function planned(h: TestHub): Session {
  stopAll(h);
  return h.hub.sessions.create(sessionBody, human);
}
export function confirmed(h: TestHub): Session {
  const s = planned(h);
  return h.hub.sessions.confirm(s.id, s.confirmation.requiredRules, human).session;
}
export function running(h: TestHub): Session {
  return h.hub.sessions.start(confirmed(h).id, human);
}
/** Decide leftover pairing requests (at most MAX_PENDING may wait at once). */
export function clearPairing(h: TestHub): void {
  for (const r of h.hub.pairing.list()) if (r.state === 'pending') h.hub.pairing.reject(r.userCode, 'matrix');
}
export function pairingCode(h: TestHub): string {
  clearPairing(h);
  return h.hub.pairing.start({ name: 'matrix', kind: 'agent', scopes: ['read'] }).userCode;
}
export function confirmTask(h: TestHub): string {
  const s = planned(h);
  const task = h.hub.sessions.confirm(s.id, s.confirmation.requiredRules, agent).task;
  if (!task) throw new Error('no task');
  return task.id;
}

let leaseCount = 0;
/** A fresh lease on a named vessel, claimed by `by` (the matrix person unless given). */
export function leaseId(h: TestHub, by: { id: string; name: string; kind: 'human' | 'agent'; scopes: string[] } = human): string {
  return h.hub.leases.claim({ resource: `vessel:matrix-${++leaseCount}` }, by).id;
}
/** A fresh handoff of a tray from the hub's own device to a person (the person accepts; the hub completes). */
export function handoffId(h: TestHub, accepted = false): string {
  const dev = h.app.ctx.device.capabilities.actor?.id ?? 'device';
  const ho = h.hub.handoffs.propose({ item: 'tray', from: { kind: 'robot', id: dev }, to: { kind: 'human', id: 'amal' } }, agent);
  if (accepted) h.hub.handoffs.accept(ho.id, human);
  return ho.id;
}

let reliefCount = 0;
const SVC = '0.2.0';
/** A fresh relief need: 10 people, one meal, on 2 June 11:00-14:00 (the matrix hub coordinates relief). */
export const reliefNeedBody = () => ({
  svc: SVC,
  id: `need-matrix-${++reliefCount}`,
  program: 'prog-matrix',
  place: { country: 'EG' },
  window: { from: '2026-06-02T11:00:00Z', to: '2026-06-02T14:00:00Z' },
  people: 10,
});
/** A fresh robot-capacity pledge: 10 meals an hour, 08:00-12:00 (40 meals). */
export const reliefPledgeBody = () => ({
  svc: SVC,
  id: `pl-matrix-${++reliefCount}`,
  from: 'did:web:robots.example',
  kind: 'robot_capacity',
  capacity: { mealsPerHour: 10 },
  available: { from: '2026-06-02T08:00:00Z', to: '2026-06-02T12:00:00Z' },
});
export const reliefNeed = (h: TestHub) => h.hub.relief.postNeed(reliefNeedBody(), human).id;
export const reliefPledge = (h: TestHub) => h.hub.relief.postPledge(reliefPledgeBody(), human).id;
/** A fresh allocation of a fresh pledge to a fresh need, and the pledge's id. */
export function reliefAllocation(h: TestHub): { id: string; pledge: string } {
  const pledge = reliefPledge(h);
  return { id: h.hub.relief.allocate({ svc: SVC, need: reliefNeed(h), assignments: [{ pledge }] }, human).id, pledge };
}

/** A fresh advice answer (feed 4: its option `menu-a` is a plan to cook) kept on the hub, for apply. */
export function adviceAnswer(h: TestHub): { responseId: string; optionId: string } {
  const r = h.hub.advice.store ? advise(h.hub.advice, { intent: 'feed', query: { people: 4 } }, human) : undefined;
  if (!r?.options[0]) throw new Error('no advice option');
  return { responseId: r.responseId, optionId: r.options[0].id };
}

/** A quote request for the reference grocer's lamb (the hub of the matrix runs with the reference's market folder). */
export const quoteBody = { items: [{ ingredientId: 'cw.ing.lamb_shoulder', quantity: 2, unit: 'kg' }] };
export const MARKET_DIR = '../shared/reference/examples/market';
export function quoted(h: TestHub): QuoteRequestRecord {
  return h.hub.market.request(quoteBody, human);
}

/** A mandate with `plan_meals` for the agent named `agent`, signed by a principal whose key the hub holds. */
export function planMandate(h: TestHub, agentName: string): Record<string, unknown> {
  const key = generateKeyFile({ kid: `owner-${++keyCount}`, actor: 'matrix-owner', validFrom: '2026-01-01T00:00:00Z' });
  h.app.ctx.principalKeys.add(publicRecord(key), 'matrix');
  const doc = {
    kind: 'AgentMandate',
    principal: 'matrix-owner',
    agent: agentName,
    scopes: ['plan_meals'],
    expires: '2099-01-01T00:00:00Z',
  };
  return signDocument(doc, key, { kind: 'AgentMandate', signedAt: '2026-01-02T00:00:00Z' }) as Record<string, unknown>;
}

export const ROWS: Row[] = [
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
  { method: 'GET', route: '/svc/v1/notifications', need: 'read', ok: 200 },
  {
    method: 'POST',
    route: '/svc/v1/notifications/:id/ack',
    need: ['read', 'notify', 'admin'],
    ok: 200,
    setup: (h) => ({
      path: `/svc/v1/notifications/${h.hub.notifications.send({ audience: 'household', urgency: 'info', message: { en: 'hi' } }, matrixSender()).id}/ack`,
    }),
  },
  { method: 'GET', route: '/svc/v1/mode', need: 'read', ok: 200 },
  { method: 'PUT', route: '/svc/v1/mode', need: 'admin', ok: 200, body: { mode: 'eco' } },
  { method: 'POST', route: '/svc/v1/plan-preview', need: 'read', ok: 200, body: { recipeId: 'example-shakshuka', scale: 1.5 } },
  { method: 'GET', route: '/svc/v1/household', need: 'read', ok: 200 },
  {
    method: 'POST',
    route: '/svc/v1/advise/:intent',
    need: 'read',
    ok: 200,
    setup: () => ({ path: '/svc/v1/advise/feed', body: { query: { people: 4 } } }),
  },
  {
    method: 'POST',
    route: '/svc/v1/advise/:intent/apply',
    need: 'cook',
    ok: 201,
    setup: (h) => ({ path: '/svc/v1/advise/feed/apply', body: adviceAnswer(h) }),
  },
  { method: 'POST', route: '/svc/v1/ask', need: 'token', ok: 200, body: { text: 'how do I feed 6 people?' } },
  { method: 'GET', route: '/svc/v1/offers', need: 'token', ok: 200 },
  { method: 'POST', route: '/svc/v1/quotes', need: 'order:create', ok: 201, body: quoteBody },
  { method: 'GET', route: '/svc/v1/quotes/:id', need: 'read', ok: 200, setup: (h) => ({ path: `/svc/v1/quotes/${quoted(h).id}` }) },
  {
    method: 'POST',
    route: '/svc/v1/quotes/:id/order',
    need: 'order:create',
    ok: 201,
    setup: (h) => {
      const r = quoted(h);
      return { path: `/svc/v1/quotes/${r.id}/order`, body: { quoteId: r.quotes[0]?.id ?? 'qt-00000000-0000-0000-0000-000000000000' } };
    },
  },
  {
    method: 'POST',
    route: '/svc/v1/quotes/:id/approve',
    need: ['order:create', 'admin'],
    ok: 200,
    setup: (h) => {
      const r = quoted(h);
      return { path: `/svc/v1/quotes/${r.id}/approve`, body: { quoteId: r.quotes[0]?.id ?? 'qt-00000000-0000-0000-0000-000000000000' } };
    },
  },
  { method: 'PUT', route: '/svc/v1/household', need: 'admin', ok: 200, body: { excludeAllergens: [], diets: [] } },
  {
    method: 'POST',
    route: '/svc/v1/team-plans',
    need: 'cook',
    ok: 201,
    setup: (h) => ({ body: { sessionId: planned(h).id } }),
  },
  {
    method: 'GET',
    route: '/svc/v1/team-plans/:id',
    need: 'read',
    ok: 200,
    setup: (h) => ({ path: `/svc/v1/team-plans/${h.hub.team.propose({ sessionId: planned(h).id }, human).plan.id}` }),
  },
  { method: 'GET', route: '/svc/v1/leases', need: 'read', ok: 200 },
  {
    method: 'POST',
    route: '/svc/v1/leases',
    need: 'cook',
    ok: 201,
    setup: () => ({ body: { resource: `vessel:matrix-${++leaseCount}` } }),
  },
  { method: 'GET', route: '/svc/v1/leases/:id', need: 'read', ok: 200, setup: (h) => ({ path: `/svc/v1/leases/${leaseId(h)}` }) },
  {
    method: 'POST',
    route: '/svc/v1/leases/:id/renew',
    need: 'cook',
    ok: 200,
    setup: (h) => ({ path: `/svc/v1/leases/${leaseId(h)}/renew`, body: { ttlSeconds: 60 } }),
  },
  {
    method: 'POST',
    route: '/svc/v1/leases/:id/release',
    need: 'cook',
    ok: 200,
    setup: (h) => ({ path: `/svc/v1/leases/${leaseId(h)}/release` }),
  },
  { method: 'DELETE', route: '/svc/v1/leases/:id', need: 'cook', ok: 200, setup: (h) => ({ path: `/svc/v1/leases/${leaseId(h)}` }) },
  { method: 'GET', route: '/svc/v1/handoffs', need: 'read', ok: 200 },
  {
    method: 'POST',
    route: '/svc/v1/handoffs',
    need: 'cook',
    ok: 201,
    setup: (h) => ({
      body: { item: 'tray', from: { kind: 'robot', id: h.app.ctx.device.capabilities.actor?.id }, to: { kind: 'human', id: 'amal' } },
    }),
  },
  { method: 'GET', route: '/svc/v1/handoffs/:id', need: 'read', ok: 200, setup: (h) => ({ path: `/svc/v1/handoffs/${handoffId(h)}` }) },
  ...(['accept', 'complete', 'decline'] as const).map(
    (a): Row => ({
      method: 'POST',
      route: `/svc/v1/handoffs/:id/${a}`,
      need: 'cook',
      ok: 200,
      setup: (h) => ({ path: `/svc/v1/handoffs/${handoffId(h, a === 'complete')}/${a}`, body: {} }),
    }),
  ),
  { method: 'GET', route: '/svc/v1/relief/needs', need: 'read', ok: 200 },
  { method: 'POST', route: '/svc/v1/relief/needs', need: 'relief', ok: 201, setup: () => ({ body: reliefNeedBody() }) },
  {
    method: 'GET',
    route: '/svc/v1/relief/needs/:id',
    need: 'read',
    ok: 200,
    setup: (h) => ({ path: `/svc/v1/relief/needs/${reliefNeed(h)}` }),
  },
  { method: 'GET', route: '/svc/v1/relief/pledges', need: 'read', ok: 200 },
  { method: 'POST', route: '/svc/v1/relief/pledges', need: 'relief', ok: 201, setup: () => ({ body: reliefPledgeBody() }) },
  {
    method: 'GET',
    route: '/svc/v1/relief/pledges/:id',
    need: 'read',
    ok: 200,
    setup: (h) => ({ path: `/svc/v1/relief/pledges/${reliefPledge(h)}` }),
  },
  { method: 'GET', route: '/svc/v1/relief/allocations', need: 'read', ok: 200 },
  {
    method: 'POST',
    route: '/svc/v1/relief/allocations',
    need: 'relief',
    ok: 201,
    setup: (h) => ({ body: { svc: SVC, need: reliefNeed(h), assignments: [{ pledge: reliefPledge(h) }] } }),
  },
  {
    method: 'GET',
    route: '/svc/v1/relief/allocations/:id',
    need: 'read',
    ok: 200,
    setup: (h) => ({ path: `/svc/v1/relief/allocations/${reliefAllocation(h).id}` }),
  },
  {
    method: 'POST',
    route: '/svc/v1/relief/allocations/:id/handover',
    need: 'relief',
    ok: 200,
    setup: (h) => {
      const a = reliefAllocation(h);
      return { path: `/svc/v1/relief/allocations/${a.id}/handover`, body: { pledge: a.pledge, step: 'delivered' } };
    },
  },
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

/** The spec's tool table (§4.7): null = any valid token ("none" on the hub, "any" for the e-stop). */
export const SPEC_TOOL_SCOPES: Record<string, string | null> = {
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
  advise: 'read',
  ask: null,
  apply_advice: 'cook',
  search_offers: null,
  request_quote: 'order:create',
  team_call_for_proposals: 'cook',
  // Leases and handoffs (spec §2.2, §4.3's hub paths): runtime/mcp/tools-leases.ts.
  list_leases: 'read',
  claim_lease: 'cook',
  renew_lease: 'cook',
  release_lease: 'cook',
  list_handoffs: 'read',
  propose_handoff: 'cook',
  accept_handoff: 'cook',
  complete_handoff: 'cook',
  decline_handoff: 'cook',
  // Relief on a coordinator hub (spec §4.7): runtime/mcp/tools-relief.ts.
  relief_needs: 'read',
  relief_pledge: 'relief',
  relief_allocate: 'relief',
};

/** The tokens of the matrix: none, one per scope, and one with a scope the hub does not know. */
export const TOKEN_SCOPES: (string | null)[] = [null, ...SCOPES, 'x-unrelated'];

export function expected(need: Need, scope: string | null): number | 'ok' {
  if (need === 'none') return 'ok';
  if (scope === null) return 401;
  if (need === 'token' || need === 'human') return 'ok';
  const needs = typeof need === 'string' ? [need] : need;
  return needs.includes(scope) ? 'ok' : 403;
}
