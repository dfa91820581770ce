/**
 * `POST /a2a` over real HTTP: HTTP-level refusals are problem documents (no token, a foreign Host, a body
 * that is not JSON), JSON-RPC-level ones are JSON-RPC errors (parse error, no A2A-Version, unknown method);
 * push-notification configs take only http(s) URLs; a token holds at most MAX_A2A_REQUESTS_PER_TOKEN open
 * requests and a revoked token's streams are closed; skills refuse what REST refuses.
 */
import t from 'tap';
import { startHub, type TestHub } from '../hub/test-helpers.js';
import { MAX_A2A_REQUESTS_PER_TOKEN } from './mount.js';

const V = { 'a2a-version': '1.0' };

function rpc(h: TestHub, token: string | undefined, body: unknown, headers: Record<string, string> = V) {
  return fetch(`${h.url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const send = (data: unknown, taskId?: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: { message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ data }], ...(taskId ? { taskId } : {}) } },
});

type Rpc = {
  result?: { task: { id: string; status: { state: string; message?: { parts: { data?: Record<string, unknown> }[] } } } };
  error?: { code: number; message: string };
};

t.test('/a2a: HTTP refusals are problem documents, protocol errors are JSON-RPC', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const token = h.token(['read'], 'agent');

  const anon = await rpc(h, undefined, send({ skill: 'restock_kitchen' }));
  t.equal(anon.status, 401);
  t.match(anon.headers.get('content-type'), /^application\/problem\+json/);
  t.match(anon.headers.get('www-authenticate'), /^Bearer /);

  const foreign = await rpc(h, token, send({ skill: 'restock_kitchen' }), { ...V, origin: 'http://evil.example' });
  t.equal(foreign.status, 403, 'DNS rebinding guard (a foreign Origin; runtime/http/host-guard.test.ts sends foreign Hosts)');
  t.match(foreign.headers.get('content-type'), /^application\/problem\+json/);

  const text = await fetch(`${h.url}/a2a`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain', ...V },
    body: 'hi',
  });
  t.equal(text.status, 415);
  t.match(text.headers.get('content-type'), /^application\/problem\+json/);

  const big = await rpc(h, token, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x'.repeat(300_000) } }));
  t.equal(big.status, 413);
  t.match(big.headers.get('content-type'), /^application\/problem\+json/);

  const parse = (await (await rpc(h, token, '{"jsonrpc": "2.0", "id": 1, ')).json()) as Rpc;
  t.ok(parse.error && parse.error.code < 0, JSON.stringify(parse));

  const noVersion = (await (await rpc(h, token, send({ skill: 'restock_kitchen' }), {})).json()) as Rpc;
  t.match(noVersion.error?.message, /version '0\.3' is not supported/);

  const unknown = (await (await rpc(h, token, { jsonrpc: '2.0', id: 2, method: 'tasks/send', params: {} })).json()) as Rpc;
  t.equal(unknown.error?.code, -32601, 'the 0.3 method name is not a 1.0 method');

  const inventory = (await (await rpc(h, token, send({ skill: 'restock_kitchen', input: {} }))).json()) as Rpc;
  t.equal(inventory.result?.task.status.state, 'TASK_STATE_COMPLETED');
  const order = (await (
    await rpc(h, token, send({ skill: 'restock_kitchen', input: { lines: [{ item: 'onions', quantity: 2, unit: 'kg' }] } }))
  ).json()) as Rpc;
  t.equal(order.result?.task.status.state, 'TASK_STATE_REJECTED', 'an order needs order:create');
  t.match(order.result?.task.status.message?.parts[1]?.data, { error: 'forbidden', requiredScope: 'order:create' });
  t.equal(h.hub.kitchen.orders().length, 0, 'no order was made');

  const bad = (await (await rpc(h, token, send({ skill: 'restock_kitchen', input: { lines: 'onions' } }))).json()) as Rpc;
  t.match(bad.result?.task.status.message?.parts[1]?.data, { error: 'validation-failed' });
  const free = {
    jsonrpc: '2.0',
    id: 8,
    method: 'SendMessage',
    params: { message: { messageId: 'm-text', role: 'ROLE_USER', parts: [{ text: 'cook dinner for four' }] } },
  };
  const text2 = (await (await rpc(h, token, free)).json()) as Rpc;
  t.equal(text2.result?.task.status.state, 'TASK_STATE_REJECTED', 'free text is not acted on');
  t.match(text2.result?.task.status.message?.parts[1]?.data, { error: 'bad-request', detail: /does not act on free text.*"skill"/ });
  const unknownSkill = (await (await rpc(h, token, send({ skill: 'juggle', input: {} }))).json()) as Rpc;
  t.match(unknownSkill.result?.task.status.message?.parts[1]?.data, { error: 'bad-request', detail: /no skill "juggle".*advise \{intent/ });
});

t.test('/a2a: push configs take http(s) URLs only; open requests are capped per token; revoking closes streams', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const agent = h.token(['read', 'cook'], 'agent', 'capped agent');
  const other = h.token(['read', 'cook'], 'agent', 'other agent');

  // Tasks that wait for a person (input-required): an agent prepared their confirmation.
  const waitingTask = async (token: string) => {
    const plan = (await (
      await rpc(h, token, send({ skill: 'plan_meal', input: { query: 'fried onions', serveAt: '2026-06-01T19:00:00Z' } }))
    ).json()) as Rpc;
    const data = plan.result?.task.status.message?.parts[1]?.data as
      | { session: { id: string; confirmation: { requiredRules: string[] } } }
      | undefined;
    if (!data) throw new Error(`no plan: ${JSON.stringify(plan)}`);
    const session = data.session;
    const cook = (await (
      await rpc(
        h,
        token,
        send({ skill: 'cook_recipe', input: { sessionId: session.id, acknowledgedRules: session.confirmation.requiredRules } }),
      )
    ).json()) as Rpc;
    t.equal(cook.result?.task.status.state, 'TASK_STATE_INPUT_REQUIRED');
    return cook.result?.task.id as string;
  };
  const ids: string[] = [];
  for (let i = 0; i < MAX_A2A_REQUESTS_PER_TOKEN; i++) ids.push(await waitingTask(agent));

  const pushTo = (url: string) => ({
    jsonrpc: '2.0',
    id: 3,
    method: 'CreateTaskPushNotificationConfig',
    params: { taskId: ids[0], id: 'p1', url },
  });
  const refused = (await (await rpc(h, agent, pushTo('file:///etc/passwd'))).json()) as Rpc;
  t.match(refused.error?.message, /http or https|absolute/);
  const creds = (await (await rpc(h, agent, pushTo('https://user:pw@example.test/hook'))).json()) as Rpc;
  t.match(creds.error?.message, /credentials/);
  const ok = (await (await rpc(h, agent, pushTo('https://example.test/hook'))).json()) as Rpc & { result?: { url?: string } };
  t.equal(ok.result?.url, 'https://example.test/hook', JSON.stringify(ok));

  // Each subscription to a waiting task stays open; the next request of the same token is refused.
  const streams = await Promise.all(ids.map((id) => rpc(h, agent, { jsonrpc: '2.0', id: 4, method: 'SubscribeToTask', params: { id } })));
  for (const s of streams) t.match(s.headers.get('content-type'), /^text\/event-stream/);
  const capped = await rpc(h, agent, { jsonrpc: '2.0', id: 5, method: 'GetTask', params: { id: ids[0] } });
  t.equal(capped.status, 429);
  t.match(capped.headers.get('content-type'), /^application\/problem\+json/);
  const free = (await (await rpc(h, other, { jsonrpc: '2.0', id: 6, method: 'GetTask', params: { id: ids[0] } })).json()) as Rpc;
  t.match(free.error?.message, /not found/i, 'another token is not capped, and cannot see the task');

  // Revoking the token ends its open streams.
  t.equal(h.app.ctx.tokens.revoke('capped agent'), 1);
  const ended = await Promise.all(streams.map((s) => s.text()));
  t.equal(ended.length, MAX_A2A_REQUESTS_PER_TOKEN, 'every stream ended');
  t.equal((await rpc(h, agent, { jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: ids[0] } })).status, 401);
});
