/**
 * What the scope matrix (tests only; scope-table.ts) is made of: the shape of a row, and the fixtures its rows set
 * up before a call (a fresh session, task, lease, handoff, relief need, pledge or allocation, quote, mandate…).
 */
import { generateKeyFile, publicRecord } from '../../../core/keys.js';
import { signDocument } from '../../../core/signature.js';
import { advise } from '../../../services/advice/index.js';
import type { QuoteRequestRecord } from '../market/market.js';
import { FRY_RECIPE, type TestHub } from '../test-helpers.js';
import type { Session } from '../types.js';

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
export const matrixSender = () => ({ ...agent, id: `tok_matrix_sender_${++senders}`, scopes: ['notify'] });

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
/** A fresh vessel resource name. */
export const matrixVessel = () => `vessel:matrix-${++leaseCount}`;
/** A fresh lease on a named vessel, claimed by `by` (the matrix person unless given). */
export function leaseId(h: TestHub, by: { id: string; name: string; kind: 'human' | 'agent'; scopes: string[] } = human): string {
  return h.hub.leases.claim({ resource: matrixVessel() }, by).id;
}
/** A fresh handoff of a tray from the hub's own device to a person (the person accepts; the hub completes). */
export function handoffId(h: TestHub, accepted = false): string {
  const dev = h.app.ctx.device.capabilities.actor?.id ?? 'device';
  const ho = h.hub.handoffs.propose({ item: 'tray', from: { kind: 'robot', id: dev }, to: { kind: 'human', id: 'amal' } }, agent);
  if (accepted) h.hub.handoffs.accept(ho.id, human);
  return ho.id;
}

let reliefCount = 0;
export const SVC = '0.2.0';
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
