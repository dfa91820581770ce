/**
 * A2A push notifications delivered, over real sockets: an agent's cook_recipe task waits for a person; the agent
 * registers a push config (URL and token) for it; once a person has confirmed and stands at the fryer, the agent
 * sends cook_recipe again on the same task and a receiver on 127.0.0.1 gets the task's updates as POSTs (the
 * A2A 1.0 StreamResponse JSON, with the config's token in `X-A2A-Notification-Token`), `working` first; the
 * config is listed and deleted through the JSON-RPC methods, and another token cannot read it.
 */
import t from 'tap';
import { webhookReceiver } from '../../test-support/subscribers.js';
import { startHub, type TestHub } from '../hub/test-helpers.js';

const V = { 'a2a-version': '1.0', 'content-type': 'application/json' };

function rpc(h: TestHub, token: string, method: string, params: unknown) {
  return fetch(`${h.url}/a2a`, {
    method: 'POST',
    headers: { ...V, authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
}

type Task = { id: string; status: { state: string; message?: { parts: { data?: Record<string, unknown> }[] } } };
type Rpc<R> = { result?: R; error?: { code: number; message: string } };

const message = (data: unknown, taskId?: string) => ({
  message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ data }], ...(taskId ? { taskId } : {}) },
});

async function until(done: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

t.test('push notifications reach the registered URL with its token as the task works', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const receiver = await webhookReceiver();
  t.teardown(() => receiver.close());
  const agent = h.token(['read', 'cook'], 'agent', 'push agent');
  const other = h.token(['read', 'cook'], 'agent', 'other agent');
  const person = h.token(['read', 'cook'], 'human', 'Amal');

  const plan = (await (
    await rpc(h, agent, 'SendMessage', message({ skill: 'plan_meal', input: { query: 'fried onions', serveAt: '2026-06-01T19:00:00Z' } }))
  ).json()) as Rpc<{ task: Task }>;
  const session = plan.result?.task.status.message?.parts[1]?.data?.session as { id: string; confirmation: { requiredRules: string[] } };
  t.ok(session?.id, JSON.stringify(plan).slice(0, 300));
  const rules = session.confirmation.requiredRules;
  const cook = (await (
    await rpc(h, agent, 'SendMessage', message({ skill: 'cook_recipe', input: { sessionId: session.id, acknowledgedRules: rules } }))
  ).json()) as Rpc<{ task: Task }>;
  const task = cook.result?.task.id ?? '';
  t.equal(cook.result?.task.status.state, 'TASK_STATE_INPUT_REQUIRED', 'the task waits for a person');

  const config = { taskId: task, id: 'kitchen-hook', url: receiver.url, token: 'push-token-1' };
  const created = (await (await rpc(h, agent, 'CreateTaskPushNotificationConfig', config)).json()) as Rpc<{ url: string }>;
  t.equal(created.result?.url, receiver.url, JSON.stringify(created));
  const listed = (await (await rpc(h, agent, 'ListTaskPushNotificationConfigs', { taskId: task })).json()) as Rpc<{
    configs: { id: string; url: string }[];
  }>;
  t.match(listed.result?.configs, [{ id: 'kitchen-hook', url: receiver.url }], 'listed for its owner');
  const foreign = (await (
    await rpc(h, other, 'GetTaskPushNotificationConfig', { taskId: task, id: 'kitchen-hook' })
  ).json()) as Rpc<unknown>;
  t.ok(foreign.error, 'another token cannot read it');

  // A person confirms and is at the fryer; the agent resumes the task, streamed.
  const confirmed = await h.call('POST', `/svc/v1/sessions/${session.id}/confirm`, { token: person, body: { acknowledgedRules: rules } });
  t.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  await h.presence(true);
  const stream = await rpc(h, agent, 'SendStreamingMessage', message({ skill: 'cook_recipe', input: {} }, task));
  t.match(stream.headers.get('content-type'), /^text\/event-stream/);
  const streamed = stream.text();

  await until(() => receiver.got.some((g) => g.rawBody.includes('TASK_STATE_WORKING')), 'a push with the working state');
  const push = receiver.got.find((g) => g.rawBody.includes('TASK_STATE_WORKING'));
  t.equal(push?.headers['x-a2a-notification-token'], 'push-token-1', 'the config’s token comes with each push');
  t.match(push?.headers['content-type'], /json/);
  t.match(push?.rawBody, task, 'about this task');

  // Cancel: the session is aborted and the stream ends.
  const canceled = (await (await rpc(h, agent, 'CancelTask', { id: task })).json()) as Rpc<Task>;
  t.equal(canceled.result?.status.state, 'TASK_STATE_CANCELED');
  await streamed;
  t.equal(h.hub.sessions.get(session.id).state, 'aborted');

  const deleted = (await (
    await rpc(h, agent, 'DeleteTaskPushNotificationConfig', { taskId: task, id: 'kitchen-hook' })
  ).json()) as Rpc<unknown>;
  t.notOk(deleted.error, JSON.stringify(deleted));
  const after = (await (await rpc(h, agent, 'ListTaskPushNotificationConfigs', { taskId: task })).json()) as Rpc<{ configs: unknown[] }>;
  t.same(after.result?.configs ?? [], [], 'deleted');
});
