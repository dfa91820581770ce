/**
 * Handoffs over a real socket (the whole hub: REST, SSE and MCP on the simulated rig with a manual clock): a task
 * changes assignee only once the receiving side has accepted and the giving side has completed; a person's side
 * needs a person's token (`not-human-approver`); a person's task cannot go to a robot (`capability-mismatch`);
 * the hub acknowledges for its own device, never while a stop is latched; open handoffs expire by the clock;
 * each step arrives as `svc.handoff.*` with the task's own `svc.task.updated`.
 */
import { readFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import t, { type Test } from 'tap';
import { type FullHub, startFullHub } from '../../../test-support/hub-app.js';
import { sseSubscriber, waitFor } from '../../../test-support/subscribers.js';
import { sessionBody } from '../testing/scope-table.js';

type AddFormats = (ajv: Ajv2020) => Ajv2020;
const formatsExport = addFormatsModule as unknown as AddFormats & { default?: AddFormats };
const addFormats: AddFormats = typeof formatsExport.default === 'function' ? formatsExport.default : formatsExport;
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: true }));
ajv.addSchema(JSON.parse(readFileSync(new URL('../../../schemas/json/coordination.schema.json', import.meta.url), 'utf8')) as object);
const validHandoff = ajv.getSchema('https://schemas.hearth.dev/svc/0.2/coordination.schema.json#/$defs/Handoff');

function checkHandoff(t: Test, body: unknown, label: string): void {
  if (!validHandoff) throw new Error('no Handoff schema');
  t.ok(validHandoff(body), `${label}: a valid Handoff${validHandoff.errors ? ` ${JSON.stringify(validHandoff.errors)}` : ''}`);
}

async function hub(t: Test): Promise<FullHub & { dev: string }> {
  const h = await startFullHub();
  t.teardown(() => h.close());
  const dev = h.app.ctx.device.capabilities.actor?.id;
  if (typeof dev !== 'string') throw new Error('the test device has no actor id');
  return Object.assign(h, { dev });
}

/** A session an agent prepared: its confirmation task waits for the household. */
function confirmTask(h: FullHub): string {
  const agent = { id: 'tok_agent', name: 'agent', kind: 'agent' as const, scopes: ['cook'] };
  const s = h.hub.sessions.create(sessionBody, agent);
  const task = h.hub.sessions.confirm(s.id, s.confirmation.requiredRules, agent).task;
  if (!task) throw new Error('no confirmation task');
  return task.id;
}

t.test('a task changes assignee only after both sides acknowledge; each step is an event', async (t) => {
  const h = await hub(t);
  const person = h.token(['cook', 'read'], 'human', 'Amal');
  const agent = h.token(['cook', 'read'], 'agent', 'helper agent');
  const sse = await sseSubscriber(`${h.url}/svc/v1/events?types=svc.handoff.,svc.task.`, person);
  t.teardown(() => sse.close());
  const taskId = confirmTask(h);
  const assignee = async () => (await h.call('GET', `/svc/v1/tasks/${taskId}`, { token: person })).body.assignee;
  t.same(await assignee(), { id: 'household', kind: 'human' });

  const toRobot = await h.call('POST', '/svc/v1/handoffs', { token: agent, body: { taskId, to: { kind: 'robot', id: h.dev } } });
  t.equal(toRobot.status, 422, 'a confirmation cannot go to a robot');
  t.match(toRobot.body.type, /\/errors\/capability-mismatch$/);
  const foreign = await h.call('POST', '/svc/v1/handoffs', {
    token: agent,
    body: { item: 'sauce', from: { kind: 'robot', id: 'robot:neo-1' }, to: { kind: 'human', id: 'amal' } },
  });
  t.equal(foreign.status, 422, 'a robot that is not this hub’s device');

  const proposed = await h.call('POST', '/svc/v1/handoffs', {
    token: agent,
    body: { taskId, to: { kind: 'human', id: 'amal', name: 'Amal' } },
  });
  t.equal(proposed.status, 201);
  checkHandoff(t, proposed.body, 'proposed');
  t.match(proposed.body, { state: 'proposed', from: { kind: 'human', id: 'household' }, item: taskId, taskId });
  const hid = String(proposed.body.id);
  const twice = await h.call('POST', '/svc/v1/handoffs', { token: agent, body: { taskId, to: { kind: 'human', id: 'sami' } } });
  t.equal(twice.status, 409, 'one open handoff per task');

  const early = await h.call('POST', `/svc/v1/handoffs/${hid}/complete`, { token: person });
  t.equal(early.status, 409, 'the giving side cannot complete before the receiving side accepts');
  const byAgent = await h.call('POST', `/svc/v1/handoffs/${hid}/accept`, { token: agent });
  t.equal(byAgent.status, 403, 'an agent cannot accept for a person');
  t.match(byAgent.body.type, /\/errors\/not-human-approver$/);

  const accepted = await h.call('POST', `/svc/v1/handoffs/${hid}/accept`, { token: person });
  t.equal(accepted.status, 200);
  checkHandoff(t, accepted.body, 'accepted');
  t.equal(accepted.body.state, 'accepted');
  t.same(await assignee(), { id: 'household', kind: 'human' }, 'one side’s acknowledgement changes nothing');
  const agentCompletes = await h.call('POST', `/svc/v1/handoffs/${hid}/complete`, { token: agent });
  t.equal(agentCompletes.status, 403, 'nor can an agent complete for a person');

  const completed = await h.call('POST', `/svc/v1/handoffs/${hid}/complete`, { token: person });
  t.equal(completed.status, 200);
  checkHandoff(t, completed.body, 'completed');
  t.match(completed.body, { state: 'completed', acks: { to: { by: { kind: 'human' } }, from: { by: { kind: 'human' } } } });
  t.same(await assignee(), { id: 'amal', kind: 'human' }, 'the assignee changed once both sides acknowledged');
  const again = await h.call('POST', `/svc/v1/handoffs/${hid}/decline`, { token: person, body: {} });
  t.equal(again.status, 409, 'a completed handoff takes no more steps');

  const want = ['svc.handoff.proposed', 'svc.handoff.accepted', 'svc.handoff.completed'];
  await waitFor('the handoff events over SSE', () => want.filter((w) => !sse.got.some((e) => e.ce.type === w)));
  const steps = sse.got.filter((e) => e.ce.data?.taskId === taskId);
  t.same(
    steps.map((e) => {
      const task = e.ce.data?.task as { handoff?: { state: string } } | undefined;
      return e.ce.type === 'svc.task.updated' ? `${e.ce.type}:${String(task?.handoff?.state)}` : e.ce.type;
    }),
    [
      'svc.task.updated:undefined',
      'svc.handoff.proposed',
      'svc.task.updated:proposed',
      'svc.handoff.accepted',
      'svc.task.updated:accepted',
      'svc.handoff.completed',
      'svc.task.updated:completed',
    ],
    'each step: the handoff event, then the task’s update',
  );
  const last = steps.at(-1)?.ce.data?.task as { assignee: unknown };
  t.same(last.assignee, { id: 'amal', kind: 'human' }, 'the last task update carries the new assignee');
});

t.test('the hub acknowledges for its own device, not while a stop is latched; decline and expiry', async (t) => {
  const h = await hub(t);
  const person = h.token(['cook', 'read'], 'human', 'Amal');
  const agent = h.token(['cook', 'read'], 'agent', 'helper agent');
  const body = { item: 'hot oil pot', from: { kind: 'robot', id: h.dev }, to: { kind: 'human', id: 'amal' }, hazards: ['hot_vessel'] };
  const p = await h.call('POST', '/svc/v1/handoffs', { token: agent, body });
  t.equal(p.status, 201);
  const hid = String(p.body.id);
  t.equal((await h.call('POST', `/svc/v1/handoffs/${hid}/accept`, { token: person })).status, 200, 'the person accepts the pot');

  h.app.ctx.supervisor.cutAll('estop', 'test');
  const latched = await h.call('POST', `/svc/v1/handoffs/${hid}/complete`, { token: agent });
  t.equal(latched.status, 409, 'nothing is acknowledged for the device while a stop is latched');
  await h.app.ctx.supervisor.reset('test');
  const done = await h.call('POST', `/svc/v1/handoffs/${hid}/complete`, { token: agent });
  t.equal(done.status, 200);
  t.match(done.body, { state: 'completed', acks: { from: { viaHub: true } } }, 'the hub acknowledged for its device');

  const d = await h.call('POST', '/svc/v1/handoffs', { token: agent, body: { ...body, item: 'tray' } });
  const declined = await h.call('POST', `/svc/v1/handoffs/${String(d.body.id)}/decline`, { token: person, body: { reason: 'hands full' } });
  t.match(declined.body, { state: 'declined', declined: { side: 'to', reason: 'hands full' } });
  checkHandoff(t, declined.body, 'declined');

  const e = await h.call('POST', '/svc/v1/handoffs', { token: agent, body: { ...body, item: 'bowl', ttlSeconds: 60 } });
  await h.clock.advanceAsync(61_000);
  const expired = await h.call('GET', `/svc/v1/handoffs/${String(e.body.id)}`, { token: person });
  t.equal(expired.body.state, 'expired', 'an open handoff expires by the device clock');
  const late = await h.call('POST', `/svc/v1/handoffs/${String(e.body.id)}/accept`, { token: person });
  t.equal(late.status, 409);
  const listed = await h.call('GET', '/svc/v1/handoffs?state=expired', { token: person });
  t.same(
    (listed.body.items as { id: string }[]).map((x) => x.id),
    [e.body.id],
  );
});

t.test('MCP: claim_lease refused with lease-conflict; propose, accept and complete a handoff', async (t) => {
  const h = await hub(t);
  const connect = async (token: string) => {
    const c = new Client({ name: 'lease-test', version: '1' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`${h.url}/svc/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    t.teardown(() => c.close());
    return c;
  };
  const a = await connect(h.token(['cook', 'read'], 'agent', 'agent a'));
  const b = await connect(h.token(['cook', 'read'], 'agent', 'agent b'));
  const person = await connect(h.token(['cook', 'read'], 'human', 'Amal'));
  const claimed = await a.callTool({ name: 'claim_lease', arguments: { resource: `${h.dev}/pot`, ttlSeconds: 120 } });
  t.notOk(claimed.isError);
  const lease = claimed.structuredContent as { id: string; until: string };
  const conflict = await b.callTool({ name: 'claim_lease', arguments: { resource: h.dev } });
  t.ok(conflict.isError);
  t.match(conflict.structuredContent, { error: 'lease-conflict', leaseId: lease.id, until: lease.until });
  const listed = await b.callTool({ name: 'list_leases', arguments: {} });
  t.same(
    (listed.structuredContent as { items: { id: string }[] }).items.map((l) => l.id),
    [lease.id],
  );
  t.match((await a.callTool({ name: 'renew_lease', arguments: { id: lease.id, ttlSeconds: 600 } })).structuredContent, { renewals: 1 });
  t.match((await a.callTool({ name: 'release_lease', arguments: { id: lease.id } })).structuredContent, { state: 'released' });

  const taskId = confirmTask(h);
  const p = await a.callTool({ name: 'propose_handoff', arguments: { taskId, to: { kind: 'human', id: 'amal' } } });
  const hid = (p.structuredContent as { id: string }).id;
  const refused = await a.callTool({ name: 'accept_handoff', arguments: { id: hid } });
  t.match(refused.structuredContent, { error: 'not-human-approver' });
  t.match((await person.callTool({ name: 'accept_handoff', arguments: { id: hid } })).structuredContent, { state: 'accepted' });
  t.match((await person.callTool({ name: 'complete_handoff', arguments: { id: hid } })).structuredContent, { state: 'completed' });
  t.same(h.hub.sessions.tasks.get(taskId)?.assignee, { id: 'amal', kind: 'human' });
  const hs = await b.callTool({ name: 'list_handoffs', arguments: { task: taskId } });
  t.same(
    (hs.structuredContent as { items: { id: string }[] }).items.map((x) => x.id),
    [hid],
  );
  const d = await a.callTool({
    name: 'propose_handoff',
    arguments: { item: 'tray', from: { kind: 'robot', id: h.dev }, to: { kind: 'human', id: 'amal' } },
  });
  const declined = await a.callTool({
    name: 'decline_handoff',
    arguments: { id: (d.structuredContent as { id: string }).id, reason: 'withdrawn' },
  });
  t.match(declined.structuredContent, { state: 'declined', declined: { side: 'from' } }, 'the giving side (the hub’s device) withdraws');
});
