/**
 * A2A push-notification URLs cannot aim the hub inside its machine or link (issue 27 item 1): the push store
 * refuses such a config when it is registered (a JSON-RPC error naming the address class), and the sender checks
 * again at each POST (the name resolved afresh, the connection to a checked address, no redirect followed), over
 * a real receiver on 127.0.0.1. push.test.ts runs the whole flow with loopback allow-listed.
 */
import type { StreamResponse, Task } from '@a2a-js/sdk';
import type { ServerCallContext } from '@a2a-js/sdk/server';
import t from 'tap';
import { OutboundGuard, type Resolver } from '../../platform/net/outbound.js';
import { webhookReceiver } from '../../test-support/subscribers.js';
import { GuardedPushSender } from './push-sender.js';
import { CheckedPushStore } from './stores.js';

const context = { user: { userName: 'tok_agent', isAuthenticated: true } } as unknown as ServerCallContext;
const task = {
  id: 'task-1',
  contextId: 'ctx-1',
  status: { state: 'TASK_STATE_WORKING' },
  artifacts: [],
  history: [],
} as unknown as Task;
const update = { payload: { $case: 'task', value: task } } as unknown as StreamResponse;

t.test('registration: loopback, link-local, LAN and the rest refused, naming the class; the allow-list opens', async (t) => {
  const store = new CheckedPushStore(new OutboundGuard());
  const cases: [string, RegExp][] = [
    ['http://127.0.0.1:9/hook', /127\.0\.0\.1 is a loopback address/],
    ['http://localhost:9/hook', /localhost \(.*\) is a loopback address/],
    ['http://[::ffff:127.0.0.1]/hook', /loopback/],
    ['http://2130706433/hook', /loopback/],
    ['http://0177.0.0.1/hook', /loopback/],
    ['http://169.254.169.254/latest/meta-data/', /link-local/],
    ['http://192.168.1.20/hook', /private \(LAN\)/],
    ['http://0.0.0.0/hook', /unspecified/],
  ];
  for (const [url, why] of cases) {
    await t.rejects(store.save(task.id, context, { taskId: task.id, id: 'c', url } as never), { message: why }, url);
    t.same(await store.load(task.id, context), [], `${url}: not stored`);
  }
  const open = new CheckedPushStore(new OutboundGuard({ allow: ['127.0.0.1'] }));
  await open.save(task.id, context, { taskId: task.id, id: 'c', url: 'http://127.0.0.1:9/hook' } as never);
  t.equal((await open.load(task.id, context)).length, 1);
});

t.test('delivery: resolved again and checked; a rebound name gets nothing, an allowed one gets the push', async (t) => {
  const rx = await webhookReceiver();
  t.teardown(rx.close);
  const port = new URL(rx.url).port;
  const toLoopback: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
  // Stored while the name was public (the store's own check passed), the name now resolves to loopback.
  const store = new CheckedPushStore(new OutboundGuard({ resolver: async () => [{ address: '93.184.216.34', family: 4 }] }));
  await store.save(task.id, context, { taskId: task.id, id: 'c', url: `http://push.example:${port}/hooks/svc`, token: 'tok-1' } as never);
  const logged: string[] = [];
  const strict = new GuardedPushSender(store, new OutboundGuard({ resolver: toLoopback }), (msg, d) =>
    logged.push(`${msg} ${String(d.error)}`),
  );
  await strict.send(update, context, task);
  t.same(rx.got, [], 'nothing reached the receiver on 127.0.0.1');
  t.match(logged[0], /A2A push not sent .*push\.example \(127\.0\.0\.1\) is a loopback address/);

  const open = new GuardedPushSender(store, new OutboundGuard({ resolver: toLoopback, allow: ['127.0.0.1'] }));
  await open.send(update, context, task);
  t.equal(rx.got.length, 1, 'allow-listed: delivered');
  t.equal(rx.got[0]?.headers['x-a2a-notification-token'], 'tok-1');
  t.equal(rx.got[0]?.headers.host, `push.example:${port}`);
  t.match(rx.got[0]?.rawBody, /task-1/);
});
