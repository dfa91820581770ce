/**
 * The scope matrix of the hub (tests only): every hub route with what it needs (a scope, any token, a person's
 * token, or nothing), the status it answers when allowed, and how to set up a call; the spec's MCP tool scopes;
 * the tokens of the matrix; and the expected answer of a route for a token. scope-matrix.test.ts runs it in full;
 * the hostile-input harness (test-support/fuzz.ts) samples it. The rows are kept by area (scope-rows-*.ts), the
 * fixtures they set up in scope-fixtures.ts.
 */

import { SCOPES } from '../types.js';
import type { Need, Row } from './scope-fixtures.js';
import { COORDINATION_ROWS } from './scope-rows-coordination.js';
import { KITCHEN_ROWS } from './scope-rows-kitchen.js';
import { PLATFORM_ROWS } from './scope-rows-platform.js';
import { RELIEF_ROWS } from './scope-rows-relief.js';

export * from './scope-fixtures.js';

export const ROWS: Row[] = [...KITCHEN_ROWS, ...COORDINATION_ROWS, ...RELIEF_ROWS, ...PLATFORM_ROWS];

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
