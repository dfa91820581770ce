/**
 * MCP messages for the hostile-input harness (fuzz-surfaces.ts), for the hub's /svc/v1/mcp and the index's
 * /v1/mcp: valid and broken calls of every method the servers answer, `initialize` with missing, malformed and
 * unsupported params, batches and non-JSON-RPC bodies. And the JSON-RPC check on every answer: a -32603 (internal
 * error) is a fault of ours reached by client input, counted and failed on.
 */
import { body, FIELDS, type Pick } from './fuzz-cases.js';

const TOOLS = ['search_recipes', 'get_recipe', 'emergency_stop', 'get_inventory', 'set_mode', 'nope', 'create_session', 'advise', 'search'];
const JUNK: unknown[] = [undefined, null, 5, 'x', [], {}, { '': 1 }, 'a'.repeat(5000), -1, 1e308, true];

function toolArgs(p: Pick): unknown {
  if (p.chance(0.2)) return p.one(JUNK);
  try {
    const v = JSON.parse(body(p, FIELDS)) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? v : { value: v };
  } catch {
    return { query: 'x'.repeat(p.int(3000)) };
  }
}

function initializeParams(p: Pick): unknown {
  const clientInfo = p.one<unknown>([{ name: 'fuzz', version: '1' }, { name: 5 }, {}, 'fuzz', undefined, { name: 'f', version: null }]);
  const params: Record<string, unknown> = {
    protocolVersion: p.one<unknown>([
      '2025-06-18',
      '2025-11-25',
      '1999-01-01',
      '2099-01-01',
      '',
      20250618,
      null,
      undefined,
      ['2025-06-18'],
    ]),
    capabilities: p.one<unknown>([{}, { roots: { listChanged: true } }, null, 'all', undefined, []]),
    clientInfo,
  };
  for (const k of Object.keys(params)) if (params[k] === undefined || p.chance(0.1)) delete params[k];
  return p.one<unknown>([params, params, params, undefined, null, 'init', [], {}]);
}

/** One JSON-RPC message (or batch) to send to an MCP endpoint. */
export function mcpMessage(p: Pick): unknown {
  const id = p.chance(0.8) ? 1 + p.int(1000) : p.one<unknown>(['a', 0, -7, 1.5, null, { x: 1 }]);
  const msg = (method: string, params: unknown) => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
  const one = (): unknown =>
    p.one([
      () => msg('initialize', initializeParams(p)),
      () => msg('tools/list', p.one<unknown>([{}, undefined, { cursor: p.one(JUNK) }])),
      () => msg('tools/call', p.one<unknown>([{ name: p.one(TOOLS), arguments: toolArgs(p) }, { name: p.one(JUNK) }, p.one(JUNK)])),
      () => msg('resources/read', { uri: p.one<unknown>(['svc://inventory', 'svc://recipe/x', 'file:///etc/passwd', 5, null, '']) }),
      () => msg('resources/list', p.one<unknown>([{}, { cursor: p.one(JUNK) }])),
      () => msg('resources/templates/list', {}),
      () => msg('prompts/list', {}),
      () => msg('prompts/get', { name: p.one<unknown>(['plan_dinner', 'use_expiring_items', 'nope', 5]), arguments: p.one(JUNK) }),
      () => msg('completion/complete', p.one(JUNK)),
      () => msg('logging/setLevel', { level: p.one<unknown>(['debug', 'loud', 5]) }),
      () => msg('ping', p.one(JUNK)),
      () => ({ jsonrpc: '2.0', method: 'notifications/initialized', params: p.one(JUNK) }),
      () => ({ jsonrpc: '1.0', id: 5, method: 'x' }),
      () => ({ jsonrpc: '2.0', id, method: p.one<unknown>([5, '', 'rpc.discover', 'server/discover']) }),
    ])();
  return p.chance(0.1) ? Array.from({ length: 1 + p.int(3) }, one) : one();
}

/** The MCP protocol version header to send with it. */
export function mcpVersionHeader(p: Pick): string | undefined {
  return p.chance(0.75) ? p.one(['2025-06-18', '2025-11-25', undefined]) : p.one(['2026-07-28', 'bogus', '2024-11-05']);
}

/** How many JSON-RPC answers in `text` (a JSON body or an event stream) are -32603 internal errors. */
export function internalErrors(text: string): number {
  const chunks = /^(event|data|id|retry):/m.test(text) ? [...text.matchAll(/^data: ?(.*)$/gm)].map((m) => m[1] as string) : [text];
  let n = 0;
  for (const c of chunks) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(c);
    } catch {
      continue;
    }
    for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
      const e = (m as { error?: { code?: unknown } } | null)?.error;
      if (typeof e === 'object' && e !== null && e.code === -32603) n++;
    }
  }
  return n;
}
