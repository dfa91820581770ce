/**
 * The hub's MCP endpoint blames the right side (issue 27 item 2): params the protocol's schema refuses are answered
 * -32602 naming them (platform/mcp/invalid-params.ts), an unsupported protocol version in `initialize` with the
 * latest supported one. The index's endpoint runs the same cases (services/index/serve/mcp-errors.test.ts).
 */
import t from 'tap';
import { blameClient, blameClientInResponse, validationIssues } from '../../platform/mcp/invalid-params.js';
import { checkMcpErrorCodes, mcpPost } from '../../test-support/mcp-errors.js';
import { startHub } from '../hub/test-helpers.js';

t.test('the hub: -32602 for invalid params, never -32603; version negotiation', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const auth = { authorization: `Bearer ${h.token(['read'], 'agent')}` };
  await checkMcpErrorCodes(t, `${h.url}/svc/v1/mcp`, auth);
  const ok = await mcpPost(`${h.url}/svc/v1/mcp`, { jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} }, auth);
  t.ok(ok.messages[0]?.result, 'a valid request still passes through');
});

t.test('the hub: resources the client cannot have are its mistake too, never -32603', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const read = { authorization: `Bearer ${h.token(['read'], 'agent')}` };
  const notify = { authorization: `Bearer ${h.token(['notify'], 'agent')}` };
  const resource = (uri: string, headers: Record<string, string>) =>
    mcpPost(`${h.url}/svc/v1/mcp`, { jsonrpc: '2.0', id: 21, method: 'resources/read', params: { uri } }, headers);
  for (const uri of ['svc://recipe/nope', 'svc://session/nope']) {
    const e = (await resource(uri, read)).messages[0]?.error;
    t.equal(e?.code, -32602, `${uri}: not found is -32602 (MCP: a resources/read miss is invalid params)`);
    t.match(e?.message, /nope/);
  }
  const forbidden = (await resource('svc://inventory', notify)).messages[0]?.error;
  t.same(forbidden, { code: -32001, message: 'forbidden: this resource needs the read scope' }, 'a missing scope: -32001 forbidden');
  const prompt = await mcpPost(
    `${h.url}/svc/v1/mcp`,
    { jsonrpc: '2.0', id: 22, method: 'prompts/get', params: { name: 'use_expiring_items' } },
    notify,
  );
  t.equal(prompt.messages[0]?.error?.code, -32001, 'the inventory prompt likewise');
  t.ok((await resource('svc://inventory', read)).messages[0]?.result, 'with read it is served');
});

t.test('only a validator dump is rewritten; any other -32603 stays what it is', async (t) => {
  t.equal(validationIssues('boom'), null);
  t.equal(validationIssues('[1,2]'), null);
  t.equal(validationIssues('[]'), null);
  const fault = { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'database is locked' } };
  t.equal(blameClient(fault, new Map([[1, 'tools/call']])), fault, 'a real internal error is left for the harness to count');
  const other = { jsonrpc: '2.0', id: 1, error: { code: -32601, message: '[{"code":"x","path":[],"message":"m"}]' } };
  t.equal(blameClient(other, new Map()), other, 'other codes are untouched');
  const dump = JSON.stringify([{ code: 'invalid_type', path: ['params'], message: 'Invalid input: expected object, received undefined' }]);
  t.same(blameClient([{ jsonrpc: '2.0', id: 2, error: { code: -32603, message: dump } }], new Map([[2, 'initialize']])), [
    {
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32602, message: 'invalid params for initialize: params: expected object, received undefined' },
    },
  ]);
});

t.test('the rewrite reads a JSON answer and an event stream cut anywhere', async (t) => {
  const dump = JSON.stringify([
    { code: 'invalid_type', path: ['params', 'uri'], message: 'Invalid input: expected string, received number' },
  ]);
  const wrong = { jsonrpc: '2.0', id: 5, error: { code: -32603, message: dump } };
  const body = { jsonrpc: '2.0', id: 5, method: 'resources/read', params: { uri: 5 } };
  const want = {
    jsonrpc: '2.0',
    id: 5,
    error: { code: -32602, message: 'invalid params for resources/read: params.uri: expected string, received number' },
  };
  const json = blameClientInResponse(new Response(JSON.stringify(wrong), { headers: { 'content-type': 'application/json' } }), body);
  t.same(await json.json(), want);
  const sse = `event: message\ndata: ${JSON.stringify(wrong)}\n\nevent: message\ndata: {"jsonrpc":"2.0","id":6,"result":{}}\n\n`;
  const bytes = new TextEncoder().encode(sse);
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < bytes.length; i += 7) c.enqueue(bytes.slice(i, i + 7));
      c.close();
    },
  });
  const text = await blameClientInResponse(new Response(stream, { headers: { 'content-type': 'text/event-stream' } }), body).text();
  t.same(
    [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1] as string)),
    [want, { jsonrpc: '2.0', id: 6, result: {} }],
  );
});
