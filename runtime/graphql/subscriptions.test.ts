/**
 * The hub's GraphQL subscriptions with the real graphql-ws client over a real socket (127.0.0.1, port 0):
 * `taskUpdated` delivers a task the moment an agent's confirmation creates it and again when a person answers
 * it; `safetyEvents` reaches a token without read; the token comes in connection_init or the upgrade header and
 * a missing or bad one closes the socket 4403; a missing scope refuses the subscription with the slug; the
 * per-token cap; depth limits; revoking the token closes its socket; a foreign Origin is refused before any upgrade.
 */
import t from 'tap';
import { WebSocket } from 'ws';
import { FRY_RECIPE, startHub } from '../hub/test-helpers.js';
import { collect, gql, waitFor, wsClient } from './test-helpers.js';

const input = { recipes: [{ recipeId: FRY_RECIPE }], serveAt: '2026-06-01T19:00:00Z', mode: 'assisted' };
const TASKS = 'subscription($s: ID!) { taskUpdated(sessionId: $s) { id state kind assignee { id kind } message(lang: "en") } }';

type TaskView = { taskUpdated: { id: string; state: string; kind: string; assignee: { id: string; kind: string }; message: string } };

t.test('taskUpdated delivers a task when it is created and when it changes', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const person = h.token(['cook', 'read']);
  const agent = h.token(['cook', 'read'], 'agent');
  const s = (
    await gql(h, 'mutation($i: CreateSessionInput!) { createSession(input: $i) { id confirmation { requiredRules } } }', {
      token: agent,
      variables: { i: input },
    })
  ).data?.createSession as { id: string; confirmation: { requiredRules: string[] } };

  const client = wsClient(h, agent);
  t.teardown(() => client.dispose());
  const bus = h.app.ctx.bus;
  const listening = bus.listenerCount('task.updated');
  const sub = collect<TaskView>(client, TASKS, { s: s.id });
  await waitFor(() => bus.listenerCount('task.updated') > listening, 'the subscription to be in place');
  // Another session's tasks are not delivered to this subscription.
  const other = (
    await gql(h, 'mutation($i: CreateSessionInput!) { createSession(input: $i) { id } }', { token: agent, variables: { i: input } })
  ).data?.createSession as { id: string };
  await gql(h, 'mutation($id: ID!, $r: [String!]!) { confirmSession(id: $id, acknowledgedRules: $r) { completed } }', {
    token: agent,
    variables: { id: other.id, r: s.confirmation.requiredRules },
  });

  const prepared = await gql(
    h,
    'mutation($id: ID!, $r: [String!]!) { confirmSession(id: $id, acknowledgedRules: $r) { completed task { id } } }',
    {
      token: agent,
      variables: { id: s.id, r: s.confirmation.requiredRules },
    },
  );
  const taskId = (prepared.data?.confirmSession as { task: { id: string } } | undefined)?.task.id ?? '';
  const first = await sub.next(1);
  t.notOk(first?.errors);
  t.match(first?.data?.taskUpdated, {
    id: taskId,
    state: 'input_required',
    kind: 'confirm_session',
    assignee: { id: 'household', kind: 'human' },
    message: /A person must confirm it/,
  });

  const answered = await h.call('POST', `/svc/v1/tasks/${taskId}/respond`, { token: person, body: { answer: 'yes' } });
  t.equal(answered.status, 200);
  const second = await sub.next(2);
  t.match(second?.data?.taskUpdated, { id: taskId, state: 'completed' });
  t.equal(sub.got.length, 2, 'only this session’s tasks');
  sub.dispose();
});

t.test('tokens: connection_init or upgrade header; none or a bad one closes 4403; scopes refuse with the slug', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const closes: [number, string][] = [];
  const none = wsClient(h, undefined, { onClosed: (code, reason) => closes.push([code, reason]) });
  const noneSub = collect(none, 'subscription { safetyEvents { kind } }');
  await noneSub.ended();
  t.match(closes[0], [4403, /a bearer token is needed/]);
  const bad = wsClient(h, 'hth_not-a-real-token', { onClosed: (code, reason) => closes.push([code, reason]) });
  await collect(bad, 'subscription { safetyEvents { kind } }').ended();
  t.match(closes[1], [4403, /unknown, revoked or malformed/]);

  // A token without read: safety events yes, tasks no (refused with the problem in extensions).
  const notifyOnly = h.token(['notify'], 'agent');
  const viaHeader = wsClient(h, notifyOnly, { header: true });
  t.teardown(() => viaHeader.dispose());
  const tasks = collect(viaHeader, TASKS, { s: 'ses-x' });
  await tasks.ended();
  const err = (tasks.error as { message: string; extensions?: Record<string, unknown> }[] | undefined)?.[0];
  t.match(err?.extensions, { slug: 'forbidden', requiredScope: ['read'], type: `${h.url}/errors/forbidden` });

  const bus = h.app.ctx.bus;
  const listening = bus.listenerCount('safety');
  const safety = collect<{ safetyEvents: { kind: string; action: string; message: string } }>(
    viaHeader,
    'subscription { safetyEvents { kind action message } }',
  );
  await waitFor(() => bus.listenerCount('safety') > listening, 'the subscription to be in place');
  await gql(h, 'mutation { emergencyStop(reason: "smoke") { accepted } }', { token: notifyOnly });
  const first = await safety.next(1);
  t.match(first?.data?.safetyEvents, { kind: 'estop', action: 'heat_off_all', message: /smoke/ });
});

t.test('per-token cap, depth limit and revocation on graphql-ws', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const reader = h.token(['read'], 'agent', 'reader');
  const closes: [number, string][] = [];
  const client = wsClient(h, reader, { onClosed: (code, reason) => closes.push([code, reason]) });
  t.teardown(() => client.dispose());

  const deep = collect(
    client,
    'subscription { taskUpdated(sessionId: "s") { session { tasks { session { tasks { session { tasks { session { id } } } } } } } } }',
  );
  await deep.ended();
  const deepErr = (deep.error as { extensions?: Record<string, unknown> }[] | undefined)?.[0];
  t.match(deepErr?.extensions, { slug: 'query-too-complex', measure: 'depth', type: `${h.url}/errors/query-too-complex` });

  const bus = h.app.ctx.bus;
  const listening = bus.listenerCount('task.updated');
  const subs = Array.from({ length: 8 }, (_, i) => collect(client, TASKS, { s: `ses-${i}` }));
  await waitFor(() => bus.listenerCount('task.updated') === listening + 8, 'eight subscriptions in place');
  const ninth = collect(client, TASKS, { s: 'ses-9' });
  await ninth.ended();
  t.match((ninth.error as { extensions?: Record<string, unknown> }[] | undefined)?.[0]?.extensions, { slug: 'rate-limited' });
  t.equal(subs.filter((s) => s.error !== undefined).length, 0, 'the first eight stand');
  subs[0]?.dispose();
  await waitFor(() => bus.listenerCount('task.updated') === listening + 7, 'one subscription to end');
  // A place freed is a place taken again.
  const again = collect(client, TASKS, { s: 'ses-again' });
  await waitFor(() => bus.listenerCount('task.updated') === listening + 8, 'the ninth to be in place');
  t.equal(again.error, undefined, 'the ninth fits once one ended');

  t.equal(h.app.ctx.tokens.revoke('reader'), 1);
  await again.ended();
  t.match(closes.at(-1), [4403, 'token revoked']);
});

t.test('the Host/Origin guard refuses a foreign page before any upgrade', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const reader = h.token(['read']);
  const url = `${h.url.replace(/^http/, 'ws')}/svc/v1/graphql`;
  const status = await new Promise<number>((resolve) => {
    const ws = new WebSocket(url, 'graphql-transport-ws', {
      headers: { origin: 'https://evil.example', authorization: `Bearer ${reader}` },
    });
    ws.on('unexpected-response', (req, res) => {
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    ws.on('open', () => resolve(101));
    ws.on('error', () => resolve(-1));
  });
  t.equal(status, 403);
  const ok = await new Promise<number>((resolve) => {
    const ws = new WebSocket(url, 'graphql-transport-ws', { headers: { authorization: `Bearer ${reader}` } });
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
  });
  t.equal(ok, 101);
});
