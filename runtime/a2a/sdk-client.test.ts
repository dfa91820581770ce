// @slow: runs the A2A SDK client as a process (npm run test:fast skips this file; npm test runs it)
/**
 * The hub's A2A endpoint driven by the official `@a2a-js/sdk` client running as a separate process
 * (test-support/a2a-client.ts), over real HTTP: it resolves the card behind a paired token, plans a meal,
 * streams a cook task to completion on the simulated fryer, cancels another task (its session is aborted),
 * and a token without the scope is refused; allocates relief on a coordinator hub.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { validate } from '../../schemas/index.js';
import { packageRoot } from '../config/paths.js';
import { FRY_RECIPE, startHub } from '../hub/test-helpers.js';

const SCRIPT = fileURLToPath(new URL('../../test-support/a2a-client.ts', import.meta.url));

type Line = Record<string, unknown> & { id: number };
interface Peer {
  ask(cmd: Record<string, unknown>): Promise<Line>;
  stream(cmd: Record<string, unknown>, onEvent: (ev: Record<string, unknown>) => void): Promise<Line>;
  child: ChildProcess;
}

function startPeer(): Peer {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map<number, { done(l: Line): void; event?: (ev: Record<string, unknown>) => void }>();
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (text) => {
    const line = JSON.parse(text) as Line;
    const w = waiting.get(line.id);
    if (!w) return;
    if ('event' in line && w.event) return w.event(line.event as Record<string, unknown>);
    waiting.delete(line.id);
    w.done(line);
  });
  let next = 1;
  const send = (cmd: Record<string, unknown>, event?: (ev: Record<string, unknown>) => void) =>
    new Promise<Line>((resolve) => {
      const id = next++;
      waiting.set(id, { done: resolve, ...(event ? { event } : {}) });
      child.stdin?.write(`${JSON.stringify({ ...cmd, id })}\n`);
    });
  return { ask: (cmd) => send(cmd), stream: (cmd, onEvent) => send(cmd, onEvent), child };
}

const stateOf = (task: unknown) => (task as { status?: { state?: string } }).status?.state;

t.test('the A2A SDK client, as its own process, plans, streams a cook to completion, cancels, and is refused', async (t) => {
  const h = await startHub();
  const peer = startPeer();
  t.teardown(async () => {
    peer.child.kill();
    await h.close();
  });
  const agent = h.token(['read', 'cook'], 'agent', 'dinner agent');
  const person = h.token(['read', 'cook'], 'human', 'Amal');
  const reader = h.token(['read'], 'agent', 'reader');
  const base = { url: h.url };
  const serveAt = '2026-06-01T19:00:00+02:00';

  // The card resolves through the SDK (behind the token) and names the hub's JSON-RPC endpoint.
  const card = (await peer.ask({ ...base, op: 'card', token: agent })).card as Record<string, unknown>;
  t.same(card.supportedInterfaces, [{ url: `${h.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
  t.same(
    (card.skills as { id: string }[]).map((s) => s.id),
    ['plan_meal', 'cook_recipe', 'restock_kitchen', 'advise', 'team_plan', 'relief_allocate'],
  );

  // plan_meal: a planned session, the same one REST shows.
  const plan = async () => {
    const r = await peer.ask({
      ...base,
      op: 'send',
      token: agent,
      data: { skill: 'plan_meal', input: { query: 'fried onions', serveAt } },
    });
    const task = r.task as {
      status: unknown;
      artifacts: { parts: { data: { session: { id: string; confirmation: { requiredRules: string[] } } } }[] }[];
    };
    t.equal(stateOf(task), 'TASK_STATE_COMPLETED', JSON.stringify(r).slice(0, 300));
    const session = task.artifacts[0]?.parts[0]?.data.session;
    if (!session) throw new Error('no session in the plan');
    t.equal((await h.call('GET', `/svc/v1/sessions/${session.id}`, { token: person })).body.state, 'planned');
    return session;
  };
  const first = await plan();

  // An agent's cook_recipe only prepares the confirmation: the stream ends in input-required.
  const seen: string[] = [];
  let waitingTask = '';
  const prepared = await peer.stream(
    {
      ...base,
      op: 'stream',
      token: agent,
      data: { skill: 'cook_recipe', input: { sessionId: first.id, acknowledgedRules: first.confirmation.requiredRules } },
    },
    (ev) => {
      const task = (ev.task ?? ev.statusUpdate) as { id?: string; taskId?: string; status?: { state?: string } };
      waitingTask ||= task.id ?? task.taskId ?? '';
      seen.push(stateOf(task) ?? '');
    },
  );
  t.equal(prepared.done, true, JSON.stringify(prepared));
  t.equal(seen.at(-1), 'TASK_STATE_INPUT_REQUIRED', seen.join(' '));
  t.equal((await h.call('GET', `/svc/v1/sessions/${first.id}`, { token: person })).body.state, 'awaiting_confirmation');

  // Cancel it: the task is canceled and its session aborted.
  const canceled = await peer.ask({ ...base, op: 'cancel', token: agent, taskId: waitingTask });
  t.equal(stateOf(canceled.task), 'TASK_STATE_CANCELED', JSON.stringify(canceled).slice(0, 300));
  t.equal((await h.call('GET', `/svc/v1/sessions/${first.id}`, { token: person })).body.state, 'aborted');
  const got = await peer.ask({ ...base, op: 'get', token: agent, taskId: waitingTask });
  t.equal(stateOf(got.task), 'TASK_STATE_CANCELED');
  t.match((await peer.ask({ ...base, op: 'get', token: reader, taskId: waitingTask })).error, /not found/i, 'another token cannot see it');

  // A person's cook_recipe confirms; with nobody sensed at the fryer the start is refused, as over REST.
  const second = await plan();
  const rules = second.confirmation.requiredRules;
  const away = await peer.ask({
    ...base,
    op: 'send',
    token: person,
    data: { skill: 'cook_recipe', input: { sessionId: second.id, acknowledgedRules: rules } },
  });
  t.equal(stateOf(away.task), 'TASK_STATE_REJECTED');
  t.match(JSON.stringify(away.task), /presence-required/);

  // With a person present it starts; the stream follows the session until the fryer is done.
  await h.presence(true);
  const states: string[] = [];
  let running: () => void = () => {};
  const isRunning = new Promise<void>((resolve) => {
    running = resolve;
  });
  const cooked = peer.stream(
    { ...base, op: 'stream', token: person, data: { skill: 'cook_recipe', input: { sessionId: second.id } } },
    (ev) => {
      const s = stateOf(ev.task ?? ev.statusUpdate);
      if (s) states.push(s);
      if (s === 'TASK_STATE_WORKING' && JSON.stringify(ev).includes('"state":"running"')) running();
    },
  );
  await isRunning;
  const done = await h.runUntil(() => h.hub.sessions.get(second.id).state !== 'running');
  t.equal(done, true);
  t.equal(h.hub.sessions.get(second.id).state, 'completed');
  t.equal((await cooked).done, true);
  t.equal(states.at(-1), 'TASK_STATE_COMPLETED', states.join(' '));
  const exec = h.hub.sessions.get(second.id).recipes[0]?.executionId;
  t.equal((await h.call('GET', `/v1/executions/${exec}/log`, { token: person })).body.outcome, 'served', 'the executor says served');
  t.equal(h.hub.sessions.get(second.id).recipes[0]?.recipeId, FRY_RECIPE);

  // A token without the cook scope is refused, and nothing is created.
  const before = h.hub.sessions.sessions.inStates(['planned']).length;
  const refused = await peer.ask({
    ...base,
    op: 'send',
    token: reader,
    data: { skill: 'plan_meal', input: { query: 'fried onions', serveAt } },
  });
  t.equal(stateOf(refused.task), 'TASK_STATE_REJECTED');
  t.match(JSON.stringify(refused.task), /"error":"forbidden"/);
  t.match(JSON.stringify(refused.task), /"requiredScopes":\["cook"\]/);
  t.equal(h.hub.sessions.sessions.inStates(['planned']).length, before);
});

t.test('the A2A SDK client asks for advice: the answer REST and MCP give, kept for apply; refused as REST refuses', async (t) => {
  const h = await startHub();
  const peer = startPeer();
  t.teardown(async () => {
    peer.child.kill();
    await h.close();
  });
  const agent = h.token(['read'], 'agent', 'advice agent');
  const person = h.token(['read', 'cook'], 'human', 'Amal');
  const noRead = h.token(['inventory'], 'agent', 'stock keeper');
  const base = { url: h.url };
  const ask = async (token: string, input: unknown) =>
    (await peer.ask({ ...base, op: 'send', token, data: { skill: 'advise', input } })).task as {
      status: { state: string; message: unknown };
      artifacts: { parts: { data: Record<string, unknown> }[] }[];
    };

  // feed 4: the hub's answer (its inventory and household), a valid AdviceResponse, as POST /svc/v1/advise/feed answers.
  const fed = await ask(agent, { intent: 'feed', query: { people: 4 } });
  t.equal(stateOf(fed), 'TASK_STATE_COMPLETED', JSON.stringify(fed).slice(0, 300));
  const answer = fed.artifacts[0]?.parts[0]?.data as { responseId: string; intent: string; options: { id: string }[]; context: unknown };
  const v = validate.adviceResponse(answer);
  t.ok(v.valid, v.valid ? 'a valid AdviceResponse' : JSON.stringify(v.issues.slice(0, 3)));
  t.equal(answer.intent, 'feed');
  t.same(answer.context, { source: 'hub', used: (answer.context as { used: string[] }).used }, 'built from the hub context');
  const rest = await h.call('POST', '/svc/v1/advise/feed', { token: agent, body: { query: { people: 4 } } });
  t.same(
    answer.options.map((o) => o.id),
    (rest.body.options as { id: string }[]).map((o) => o.id),
    'the same options as REST',
  );
  const option = answer.options[0];
  if (!option) throw new Error('no option');
  // Kept in the hub's advice store: a person applies it over REST.
  const applied = await h.call('POST', '/svc/v1/advise/feed/apply', {
    token: person,
    body: { responseId: answer.responseId, optionId: option.id },
  });
  t.equal(applied.status, 201, String(applied.body.detail ?? ''));
  t.equal(applied.body.state, 'planned');

  // Chicken left out for 190 minutes: the safety verdict REST gives (discard), not a recipe.
  const incident = { incident: { type: 'cw.incident.time_temp_abuse', observations: { minutesInDangerZone: 190, ambientC: 27 } } };
  const left = await ask(agent, { intent: 'recover', query: incident });
  const restLeft = await h.call('POST', '/svc/v1/advise/recover', { token: agent, body: { query: incident } });
  t.match(left.artifacts[0]?.parts[0]?.data, { safety: { verdict: 'unsafe_discard' } });
  t.equal((restLeft.body.safety as { verdict: string }).verdict, 'unsafe_discard');

  // Refusals: an unknown intent (not-found, as REST's 404), a token without read (forbidden), bad input.
  const unknown = await ask(agent, { intent: 'juggle' });
  t.equal(stateOf(unknown), 'TASK_STATE_REJECTED');
  t.match(JSON.stringify(unknown.status.message), /"error":"not-found"/);
  t.equal((await h.call('POST', '/svc/v1/advise/juggle', { token: agent, body: {} })).status, 404);
  const denied = await ask(noRead, { intent: 'feed', query: { people: 4 } });
  t.equal(stateOf(denied), 'TASK_STATE_REJECTED');
  t.match(JSON.stringify(denied.status.message), /"error":"forbidden".*"requiredScopes":\["read"\]/);
  const bad = await ask(agent, { query: { people: 4 } });
  t.equal(stateOf(bad), 'TASK_STATE_REJECTED');
  t.match(JSON.stringify(bad.status.message), /"error":"validation-failed"/);
});

t.test('the A2A SDK client asks for a team plan: the TeamPlan REST gives, tasks assigned; refused as REST refuses', async (t) => {
  const h = await startHub();
  const peer = startPeer();
  t.teardown(async () => {
    peer.child.kill();
    await h.close();
  });
  const agent = h.token(['read', 'cook'], 'agent', 'team agent');
  const reader = h.token(['read'], 'agent', 'reader');
  const base = { url: h.url };
  const arm = JSON.parse(readFileSync(join(packageRoot(), '../shared/reference/examples/capabilities/robot-arm.json'), 'utf8')) as unknown;
  const created = await h.call('POST', '/svc/v1/sessions', {
    token: agent,
    body: { recipes: [{ recipeId: 'example-shakshuka', servings: 4 }], serveAt: '2026-10-03T19:30:00Z', mode: 'assisted' },
  });
  const sessionId = String(created.body.id);
  const ask = async (token: string, input: unknown) =>
    (await peer.ask({ ...base, op: 'send', token, data: { skill: 'team_plan', input } })).task as {
      status: { state: string; message: unknown };
      artifacts: { parts: { data: Record<string, unknown> }[] }[];
    };

  const input = { sessionId, actors: [arm], people: 1 };
  const done = await ask(agent, input);
  t.equal(stateOf(done), 'TASK_STATE_COMPLETED', JSON.stringify(done).slice(0, 300));
  const plan = done.artifacts[0]?.parts[0]?.data as {
    id: string;
    kind: string;
    assignments: { actorId: string; tasks: { ref: string }[] }[];
  };
  t.same(validate.teamPlan(plan).issues, [], 'a valid TeamPlan');
  t.equal(plan.kind, 'TeamPlan');
  const rest = await h.call('POST', '/svc/v1/team-plans', { token: agent, body: input });
  t.equal(rest.status, 200, 'REST finds the plan the skill made');
  t.same(rest.body, plan, 'the same plan as REST');
  const tasks = (await h.call('GET', `/svc/v1/tasks?session=${sessionId}`, { token: agent })).body.items as {
    kind: string;
    assignee: { id: string };
    step?: { ref: string };
  }[];
  for (const a of plan.assignments)
    for (const x of a.tasks)
      t.equal(
        tasks.find((k) => k.kind === 'team_step' && k.step?.ref === x.ref)?.assignee.id,
        a.actorId,
        `${x.ref} is ${a.actorId}'s task`,
      );

  const denied = await ask(reader, input);
  t.equal(stateOf(denied), 'TASK_STATE_REJECTED');
  t.match(JSON.stringify(denied.status.message), /"error":"forbidden".*"requiredScopes":\["cook"\]/);
  const bad = await ask(agent, { sessionId, people: 99 });
  t.equal(stateOf(bad), 'TASK_STATE_REJECTED');
  t.match(JSON.stringify(bad.status.message), /"error":"validation-failed"/);
  const unknown = await ask(agent, { sessionId: 'ses-nope' });
  t.match(JSON.stringify(unknown.status.message), /"error":"not-found"/);
});

t.test('the A2A SDK client allocates relief: the Allocation REST keeps; refused as REST refuses', async (t) => {
  const h = await startHub({ relief: true });
  const plain = await startHub();
  const peer = startPeer();
  t.teardown(async () => {
    peer.child.kill();
    await h.close();
    await plain.close();
  });
  const ref = (f: string) =>
    JSON.parse(readFileSync(join(packageRoot(), '../shared/reference/examples/relief', `${f}.json`), 'utf8')) as Record<string, unknown>;
  const coord = h.token(['read', 'relief'], 'agent', 'relief agent');
  const reader = h.token(['read'], 'agent', 'reader');
  for (const [path, f] of [
    ['needs', 'need'],
    ['pledges', 'pledge-robot'],
    ['pledges', 'pledge-surplus'],
  ] as const)
    t.equal((await h.call('POST', `/svc/v1/relief/${path}`, { token: coord, body: ref(f) })).status, 201, f);
  const nuts = { ...ref('pledge-surplus'), id: 'pl-nuts', items: [{ name: 'peanut butter', qty: { value: 10, unit: 'kg' } }] };
  t.equal((await h.call('POST', '/svc/v1/relief/pledges', { token: coord, body: nuts })).status, 201);
  const ask = async (url: string, token: string, input: unknown) =>
    (await peer.ask({ url, op: 'send', token, data: { skill: 'relief_allocate', input } })).task as {
      status: { state: string; message: unknown };
      artifacts: { parts: { data: Record<string, unknown> }[] }[];
    };
  const need = 'need-2026-11-03-shubra';

  const allergen = await ask(h.url, coord, { svc: '0.2.0', need, assignments: [{ pledge: 'pl-nuts' }, { pledge: 'pl-882' }] });
  t.equal(stateOf(allergen), 'TASK_STATE_REJECTED');
  t.match(JSON.stringify(allergen.status.message), /"error":"relief-mismatch".*"reason":"allergen"/);
  const over = await ask(h.url, coord, { svc: '0.2.0', need, assignments: [{ pledge: 'pl-882' }], coverage: { meals: 651 } });
  t.match(JSON.stringify(over.status.message), /"error":"over-allocation"/);
  const denied = await ask(h.url, reader, ref('allocation'));
  t.match(JSON.stringify(denied.status.message), /"error":"forbidden".*"requiredScopes":\["relief"\]/);
  const bad = await ask(h.url, coord, { svc: '0.2.0', need });
  t.match(JSON.stringify(bad.status.message), /"error":"validation-failed"/);
  t.match(
    (await h.call('GET', `/svc/v1/relief/needs/${need}`, { token: reader })).body,
    { remaining: { meals: 650 } },
    'nothing allocated',
  );

  const done = await ask(h.url, coord, ref('allocation'));
  t.equal(stateOf(done), 'TASK_STATE_COMPLETED', JSON.stringify(done).slice(0, 300));
  const allocation = done.artifacts[0]?.parts[0]?.data;
  t.same(validate.reliefAllocationRecord(allocation).issues, [], 'a valid AllocationRecord');
  t.match(allocation, { id: 'alloc-77', coverage: { meals: 650, pct: 100 } });
  t.same((await h.call('GET', '/svc/v1/relief/allocations/alloc-77', { token: reader })).body, allocation, 'the same allocation as REST');
  t.match((await h.call('GET', `/svc/v1/relief/needs/${need}`, { token: reader })).body, { status: 'fulfilled', remaining: { meals: 0 } });

  const elsewhere = await ask(plain.url, plain.token(['relief'], 'agent'), ref('allocation'));
  t.equal(stateOf(elsewhere), 'TASK_STATE_REJECTED');
  t.match(JSON.stringify(elsewhere.status.message), /"error":"not-coordinator"/);
});
