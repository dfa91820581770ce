/** The scope each of the hub's MCP tools needs (null: any token); the same rule over MQTT and A2A. */
export const TOOL_SCOPES: Record<string, string | null> = {
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

/** Tools beyond the spec's table, present only when their feature runs. */
export const EXTRA_TOOL_SCOPES: Record<string, string | null> = {
  run_flow: 'cook',
};

/** The market's tools (runtime/mcp/tools-market.ts): a hub has them only with a market. */
export const MARKET_TOOLS: readonly string[] = ['search_offers', 'request_quote'];

/**
 * The scope of the tool `name` of a hub's `hubTools` (null: any token), or undefined when that hub has no such
 * tool; without loading the tools (tools.ts): the MQTT command topics answer a first request's PUBACK with it.
 * `tool-scopes.test.ts` checks it against `hubTools` with and without the market and flows.
 */
export function hubToolScope(name: string, has: { market: boolean; flows: boolean }): string | null | undefined {
  if (Object.hasOwn(TOOL_SCOPES, name)) return !has.market && MARKET_TOOLS.includes(name) ? undefined : TOOL_SCOPES[name];
  if (name === 'run_flow' && has.flows) return EXTRA_TOOL_SCOPES.run_flow ?? null;
  return undefined;
}
