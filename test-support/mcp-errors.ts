/**
 * The MCP error cases both MCP endpoints (the hub's /svc/v1/mcp, the index's /v1/mcp) must answer with the right
 * JSON-RPC code: params that fail the protocol's schema are the client's mistake (-32602 naming them), never -32603
 * with a dump of validator issues; an `initialize` asking for a version the server does not speak is answered with
 * the latest one it does (the MCP lifecycle's version negotiation).
 */
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/server';
import type { Test } from 'tap';

interface RpcAnswer {
  id?: unknown;
  result?: { protocolVersion?: string };
  error?: { code: number; message: string };
}

/** POST one JSON-RPC body; the answer's messages, from a JSON body or the `data:` lines of an event stream. */
export async function mcpPost(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; messages: RpcAnswer[] }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const chunks = (res.headers.get('content-type') ?? '').startsWith('text/event-stream')
    ? [...text.matchAll(/^data: ?(.*)$/gm)].map((m) => m[1] as string)
    : [text];
  const messages = chunks.flatMap((c) => {
    const parsed = JSON.parse(c) as RpcAnswer | RpcAnswer[];
    return Array.isArray(parsed) ? parsed : [parsed];
  });
  return { status: res.status, messages };
}

const clientInfo = { name: 'errors-test', version: '1.0.0' };
const init = (params?: unknown, id = 1) => ({ jsonrpc: '2.0', id, method: 'initialize', ...(params === undefined ? {} : { params }) });

/** Every case against one endpoint (`headers`: the token, for the hub; `resources`: whether it serves any). */
export async function checkMcpErrorCodes(t: Test, url: string, headers: Record<string, string> = {}, resources = true): Promise<void> {
  const invalid: [string, unknown, RegExp][] = [
    ['initialize without params', init(), /^invalid params for initialize: params: expected object, received undefined/],
    ['initialize with empty params', init({}), /params\.protocolVersion: expected string.*params\.capabilities.*params\.clientInfo/],
    [
      'initialize with a numeric protocolVersion',
      init({ protocolVersion: 20250618, capabilities: {}, clientInfo }),
      /^invalid params for initialize: params\.protocolVersion: expected string, received number$/,
    ],
    [
      'initialize without clientInfo.name',
      init({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { version: '1' } }),
      /params\.clientInfo\.name: expected string, received undefined/,
    ],
    [
      'resources/read with a numeric uri',
      { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 5 } },
      /^invalid params for resources\/read: params\.uri: expected string, received number$/,
    ],
    [
      'tools/call with a numeric name',
      { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 5, arguments: {} } },
      /^invalid params for tools\/call: params\.name: expected string, received number$/,
    ],
    [
      'tools/list with a numeric cursor',
      { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { cursor: 5 } },
      /^invalid params for tools\/list: params\.cursor/,
    ],
  ];
  for (const [what, body, message] of invalid) {
    if (!resources && what.startsWith('resources/')) continue;
    const r = await mcpPost(url, body, headers);
    const e = r.messages[0]?.error;
    t.equal(e?.code, -32602, `${what}: -32602 invalid params, not ${e?.code}`);
    t.match(e?.message, message, `${what}: names what is wrong`);
    t.notMatch(e?.message ?? '', /"expected"|\n/, `${what}: no dump of validator issues`);
    t.equal(r.messages[0]?.id, (body as { id: unknown }).id, `${what}: answers the request's id`);
  }
  const batch = await mcpPost(url, [init(undefined, 11)], headers);
  t.equal(batch.messages[0]?.error?.code, -32602, 'inside a batch too');

  for (const asked of ['1999-01-01', '2099-12-31', 'not-a-version']) {
    const r = await mcpPost(url, init({ protocolVersion: asked, capabilities: {}, clientInfo }), {
      ...headers,
      'mcp-protocol-version': '2025-06-18',
    });
    t.equal(r.messages[0]?.error, undefined, `initialize asking ${asked}: no error`);
    t.equal(r.messages[0]?.result?.protocolVersion, LATEST_PROTOCOL_VERSION, `asking ${asked}: answered with the latest version supported`);
  }
  const known = await mcpPost(url, init({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo }), headers);
  t.equal(known.messages[0]?.result?.protocolVersion, '2025-06-18', 'a supported version is kept');
}
