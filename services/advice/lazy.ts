/**
 * The advice engine (this folder's index.ts: the rules, tables and the free-text reader), imported on its first
 * use. `hearth start` registers the advice routes, MCP tools and A2A skill without loading it; the first call
 * loads it once (about a twentieth of a default start's import cost) and every later call reuses the module.
 */
type AdviceEngine = typeof import('./index.js');

let loading: Promise<AdviceEngine> | undefined;

/** The engine, loaded on the first call. */
export function adviceEngine(): Promise<AdviceEngine> {
  loading ??= import('./index.js');
  return loading;
}
