/**
 * `hubToolScope` answers the MQTT command topics' first PUBACK without loading the tools: it must name exactly
 * the tools `hubTools` builds, with their scopes, with and without the market and a flows runtime.
 */
import t from 'tap';
import { hubToolScope, TOOL_SCOPES } from './tool-scopes.js';
import { type HubMcpDeps, hubTools } from './tools.js';

// hubTools only keeps its deps for later calls; building the list reads nothing from them but which are present.
const base = {} as HubMcpDeps;
const market = {} as NonNullable<HubMcpDeps['market']>;
const runFlow: NonNullable<HubMcpDeps['runFlow']> = async () => null;

for (const has of [
  { market: false, flows: false },
  { market: true, flows: false },
  { market: false, flows: true },
  { market: true, flows: true },
]) {
  t.test(`market ${has.market}, flows ${has.flows}`, async (t) => {
    const deps: HubMcpDeps = { ...base, ...(has.market ? { market } : {}), ...(has.flows ? { runFlow } : {}) };
    const built = Object.fromEntries(hubTools(deps, 'MQTT').map((tool) => [tool.name, tool.scope]));
    const names = [...new Set([...Object.keys(built), ...Object.keys(TOOL_SCOPES), 'run_flow', 'no_such_tool', 'toString'])];
    const told = Object.fromEntries(
      names.map((n) => [n, hubToolScope(n, has)] as const).filter((e): e is [string, string | null] => e[1] !== undefined),
    );
    t.same(told, built, 'the same tools with the same scopes');
    t.equal('search_offers' in built, has.market, 'the market tools come with the market');
    t.equal('run_flow' in built, has.flows, 'run_flow comes with flows');
  });
}
