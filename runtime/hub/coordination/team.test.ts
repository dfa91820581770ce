/**
 * Team plans over a real socket: the reference's team-plan request turned into a session and a plan that gives
 * every step to an actor that can do it, with no actor doing two steps at once and no step before the steps it
 * takes from; a step no actor can do refused with capability-mismatch; the plan's assignments seen through the
 * task API (and moved by a re-plan); the MCP tool on the same service.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t, { type Test } from 'tap';
import { documentHash } from '../../../core/hash.js';
import { validate } from '../../../schemas/index.js';
import { packageRoot } from '../../config/paths.js';
import { startHub, type TestHub, testRecipesDir } from '../test-helpers.js';
import type { Task } from '../types.js';

const ref = (name: string) =>
  JSON.parse(readFileSync(join(packageRoot(), '../shared/reference/examples', name), 'utf8')) as Record<string, unknown>;
const device = (name: string) => JSON.parse(readFileSync(join(packageRoot(), 'examples/devices', name), 'utf8')) as Record<string, unknown>;

const request = ref('advice/team-plan.request.json') as {
  context: { humansAvailable: number; constraints: { serveAt: string } };
  query: { recipes: { recipeId: string; servings: number }[] };
};
const ARM = ref('capabilities/robot-arm.json');
const COOKER = device('demo-hob-robot.json');

interface PlannedTask {
  ref: string;
  op: string;
  start: string;
  end: string;
}
interface Plan {
  id: string;
  sessionId: string;
  startAt: string;
  serveAt: string;
  makespan: string;
  actors: { id: string; kind: string; ops?: string[] }[];
  assignments: { actorId: string; kind: string; tasks: PlannedTask[] }[];
  handoffs: { from: string; to: string; item: string; at: string }[];
  criticalPath: string[];
}

const seconds = (d: string): number => {
  const m = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?$/.exec(d);
  if (!m) throw new Error(`not a duration: ${d}`);
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
};

/** The recipe's steps and, for each, the steps whose outputs it takes (read from the document, not the planner). */
function recipeGraph(doc: Record<string, unknown>): Map<string, { op: string; after: string[] }> {
  const nodes = (doc.process as { nodes: { id: string; op: string; inputs?: string[]; into?: string; output?: string }[] }).nodes;
  const producer = new Map(nodes.filter((n) => n.output).map((n) => [n.output, n.id]));
  return new Map(
    nodes.map((n) => [
      n.id,
      { op: n.op, after: [...(n.inputs ?? []), ...(n.into ? [n.into] : [])].map((i) => producer.get(i)).filter((x): x is string => !!x) },
    ]),
  );
}

/** Check a plan against the recipe and the actors' own capabilities documents. */
function checkPlan(t: Test, plan: Plan, recipeId: string, docs: Record<string, unknown>[], people: number): void {
  const recipe = JSON.parse(readFileSync(join(packageRoot(), 'examples/recipes/shakshuka.svc.json'), 'utf8')) as Record<string, unknown>;
  const graph = recipeGraph(recipe);
  const ops = new Map(
    docs.map((d) => [(d.actor as { id: string }).id, new Set((d.capabilities as { ops: { op: string }[] }).ops.map((o) => o.op))]),
  );
  const slots = new Map<string, { actor: string; start: number; end: number; op: string }>();
  for (const a of plan.assignments) {
    const mine = a.tasks.map((x) => ({ ...x, s: seconds(x.start), e: seconds(x.end) })).sort((x, y) => x.s - y.s);
    for (const [i, x] of mine.entries()) {
      t.notOk(slots.has(x.ref), `${x.ref} is planned once`);
      slots.set(x.ref, { actor: a.actorId, start: x.s, end: x.e, op: x.op });
      const own = ops.get(a.actorId);
      if (a.actorId.startsWith('person:')) t.ok(Number(a.actorId.slice(7)) <= people, `${a.actorId} is one of the people at hand`);
      else t.ok(own?.has(x.op), `${a.actorId} can do ${x.op} (${x.ref}) by its capabilities document`);
      const prev = mine[i - 1];
      if (prev) t.ok(x.s >= prev.e, `${a.actorId} does ${x.ref} after ${prev.ref} ends: no two steps at once`);
    }
  }
  t.same([...slots.keys()].sort(), [...graph.keys()].map((n) => `${recipeId}#${n}`).sort(), 'every step of the recipe is assigned');
  for (const [node, g] of graph) {
    const slot = slots.get(`${recipeId}#${node}`);
    t.equal(slot?.op, g.op);
    for (const before of g.after) {
      const dep = slots.get(`${recipeId}#${before}`);
      t.ok(slot && dep && slot.start >= dep.end, `${node} starts after ${before} (whose output it takes) ends`);
    }
  }
  const end = Math.max(...[...slots.values()].map((s) => s.end));
  t.equal(seconds(plan.makespan), end, 'the makespan is when the last step ends');
  t.equal(Date.parse(plan.serveAt) - Date.parse(plan.startAt), end * 1000, 'the plan starts makespan before serving');
}

async function session(h: TestHub, recipeId: string, cook: string): Promise<string> {
  const r = await h.call('POST', '/svc/v1/sessions', {
    token: cook,
    body: { recipes: [{ recipeId, servings: 4 }], serveAt: request.context.constraints.serveAt, mode: 'assisted' },
  });
  t.equal(r.status, 201, `session for ${recipeId}`);
  return String(r.body.id);
}

t.test('the reference request: every step to a capable actor, none at once, in order, through the task API', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const cook = h.token(['read', 'cook'], 'agent');
  const recipeId = request.query.recipes[0]?.recipeId ?? '';
  const sessionId = await session(h, recipeId, cook);
  const body = { sessionId, actors: [ARM, COOKER], people: request.context.humansAvailable };
  const r = await h.call('POST', '/svc/v1/team-plans', { token: cook, body });
  t.equal(r.status, 201, String(r.body.detail ?? ''));
  const plan = r.body as unknown as Plan;
  t.same(validate.teamPlan(plan).issues, [], 'the plan matches the TeamPlan schema');
  t.equal(r.headers.get('location'), `/svc/v1/team-plans/${plan.id}`);
  checkPlan(t, plan, recipeId, [device('demo-fryer-robot.json'), ARM, COOKER], 1);
  t.same(
    plan.actors.map((a) => a.id),
    ['demo:fryer_robot', 'robot:arm-1', 'demo:hob_robot', 'person:1'],
    'the hub’s device, the two helpers and one person',
  );
  t.ok(plan.assignments.length >= 2, 'the work is shared');
  t.ok(plan.handoffs.length > 0, 'steps done by different actors hand their outputs over');
  t.ok(plan.criticalPath.length > 0 && plan.criticalPath.at(-1) === `${recipeId}#n13`, 'the critical path ends at serving');

  const ref = ref_('advice/team-plan.response.json');
  t.same(validate.teamPlanBody(ref).issues, [], 'the reference response’s teamPlan has the shape the schema describes');

  const again = await h.call('POST', '/svc/v1/team-plans', { token: cook, body });
  t.equal(again.status, 200, 'the same request again: the same plan');
  t.same(again.body, plan);
  const read = await h.call('GET', `/svc/v1/team-plans/${plan.id}`, { token: h.token(['read']) });
  t.same(read.body, plan, 'GET reads it back');

  const tasks = (await h.call('GET', `/svc/v1/tasks?session=${sessionId}`, { token: cook })).body.items as Task[];
  const steps = tasks.filter((x) => x.kind === 'team_step');
  t.equal(steps.length, 13, 'one hub task per planned step');
  for (const a of plan.assignments)
    for (const x of a.tasks) {
      const task = steps.find((s) => s.step?.ref === x.ref);
      t.same(
        task?.assignee,
        { id: a.actorId, kind: a.kind === 'human' ? 'human' : 'device' },
        `${x.ref}: the task is assigned to ${a.actorId}`,
      );
      t.equal(task?.step?.planId, plan.id);
    }
});

const ref_ = (name: string) => (ref(name) as { options: { teamPlan: unknown }[] }).options[0]?.teamPlan;

t.test('a re-plan moves steps: the tasks’ assignees change and task.updated fires; a done step is not planned again', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const cook = h.token(['read', 'cook'], 'human');
  const sessionId = await session(h, 'example-shakshuka', cook);
  const first = await h.call('POST', '/svc/v1/team-plans', { token: cook, body: { sessionId, people: 0 } });
  t.equal(first.status, 201);
  const solo = first.body as unknown as Plan;
  t.same(
    solo.assignments.map((a) => a.actorId),
    ['demo:fryer_robot'],
    'alone, the hub’s device does everything',
  );
  const list = async () =>
    ((await h.call('GET', `/svc/v1/tasks?session=${sessionId}`, { token: cook })).body.items as Task[]).filter(
      (x) => x.kind === 'team_step',
    );
  const before = await list();
  t.ok(before.every((x) => x.assignee.id === 'demo:fryer_robot'));

  const seen: Task[] = [];
  const off = h.app.ctx.bus.on('task.updated', (e) => seen.push(e.task as unknown as Task));
  t.teardown(off);
  const second = await h.call('POST', '/svc/v1/team-plans', { token: cook, body: { sessionId, actors: [ARM], people: 0 } });
  t.equal(second.status, 201);
  const after = await list();
  t.equal(after.length, before.length, 'the same tasks, not new ones');
  const moved = after.filter((x) => x.assignee.id === 'robot:arm-1');
  t.ok(moved.length > 0, 'some steps moved to the arm');
  t.ok(
    moved.every((x) => ['cw.op.cut', 'cw.op.crack', 'cw.op.transfer'].includes(x.step?.op ?? '')),
    'only steps the arm can do',
  );
  for (const x of moved)
    t.ok(
      seen.some((e) => e.id === x.id && e.assignee.id === 'robot:arm-1'),
      `task.updated fired for ${x.step?.ref}`,
    );

  const done = after.find((x) => x.step?.ref === 'example-shakshuka#n1');
  const answered = await h.call('POST', `/svc/v1/tasks/${done?.id}/respond`, { token: cook, body: { answer: 'yes' } });
  t.equal(answered.body.state, 'completed', 'a team step answered yes is done');
  const third = await h.call('POST', '/svc/v1/team-plans', { token: cook, body: { sessionId, people: 1 } });
  t.equal(third.status, 201);
  const refs = (third.body as unknown as Plan).assignments.flatMap((a) => a.tasks.map((x) => x.ref));
  t.notOk(refs.includes('example-shakshuka#n1'), 'the done step is not planned again');
  t.equal(refs.length, 12);
});

t.test('a step no actor can do: 422 capability-mismatch naming the step and what it needs', async (t) => {
  // A shakshuka whose tasting (n8) only a person may do.
  const dir = testRecipesDir();
  const doc = JSON.parse(readFileSync(join(dir, 'shakshuka.svc.json'), 'utf8')) as Record<string, unknown> & {
    process: { nodes: Record<string, unknown>[] };
  };
  const { hash: _h, ...rest } = doc;
  const byHand: Record<string, unknown> = {
    ...rest,
    id: 'test-shakshuka-tasted',
    process: {
      ...doc.process,
      nodes: doc.process.nodes.map((n) => (n.id === 'n8' ? { ...n, assignment: { allowed: ['human'] } } : n)),
    },
  };
  byHand.hash = documentHash(byHand);
  writeFileSync(join(dir, 'test-shakshuka-tasted.svc.json'), JSON.stringify(byHand));
  const h = await startHub({ recipes: dir });
  t.teardown(() => h.close());
  const cook = h.token(['read', 'cook'], 'agent');
  const sessionId = await session(h, 'test-shakshuka-tasted', cook);

  const r = await h.call('POST', '/svc/v1/team-plans', { token: cook, body: { sessionId, actors: [ARM], people: 0 } });
  t.equal(r.status, 422);
  t.match(r.body.type, /\/errors\/capability-mismatch$/);
  t.match(r.body.detail, /test-shakshuka-tasted#n8 needs human that can perform cw\.op\.season/);
  t.same(r.body.tasks, [{ ref: 'test-shakshuka-tasted#n8', op: 'cw.op.season', allowed: ['human'] }]);
  const tasks = (await h.call('GET', `/svc/v1/tasks?session=${sessionId}`, { token: cook })).body.items as Task[];
  t.equal(tasks.filter((x) => x.kind === 'team_step').length, 0, 'a refused plan assigns nothing');

  const withPerson = await h.call('POST', '/svc/v1/team-plans', { token: cook, body: { sessionId, actors: [ARM], people: 1 } });
  t.equal(withPerson.status, 201, 'with a person at hand it plans');
  const n8 = (withPerson.body as unknown as Plan).assignments.find((a) => a.tasks.some((x) => x.ref === 'test-shakshuka-tasted#n8'));
  t.equal(n8?.actorId, 'person:1', 'the person tastes');

  const subset = await h.call('POST', '/svc/v1/team-plans', {
    token: cook,
    body: { sessionId, tasks: ['n1', 'n2'], actors: [ARM], people: 0 },
  });
  t.equal(subset.status, 201, 'a subset without the tasting plans');
  t.same((subset.body as unknown as Plan).assignments.flatMap((a) => a.tasks.map((x) => x.ref)).sort(), [
    'test-shakshuka-tasted#n1',
    'test-shakshuka-tasted#n2',
  ]);

  const unknown = await h.call('POST', '/svc/v1/team-plans', { token: cook, body: { sessionId, tasks: ['n99'] } });
  t.equal(unknown.status, 422);
  t.match(unknown.body.type, /\/errors\/validation-failed$/);
  const badActor = await h.call('POST', '/svc/v1/team-plans', { token: cook, body: { sessionId, actors: [{ actor: { id: 'x' } }] } });
  t.equal(badActor.status, 422, 'an actor that is not a capabilities document');
  t.match(badActor.body.detail, /^actors\/0/);
  const noSession = await h.call('POST', '/svc/v1/team-plans', { token: cook, body: { sessionId: 'ses-nope' } });
  t.equal(noSession.status, 404);
});

t.test('MCP team_call_for_proposals: the same plan, the same refusals', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const connect = async (token: string) => {
    const client = new Client({ name: 'team-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${h.url}/svc/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    t.teardown(() => client.close());
    return client;
  };
  const cook = h.token(['read', 'cook'], 'agent');
  const sessionId = await session(h, 'example-shakshuka', cook);
  const agent = await connect(cook);
  const r = await agent.callTool({ name: 'team_call_for_proposals', arguments: { sessionId, actors: [ARM, COOKER], people: 1 } });
  t.notOk(r.isError);
  const plan = r.structuredContent as unknown as Plan & { kind: string };
  t.equal(plan.kind, 'TeamPlan');
  t.same(validate.teamPlan(plan).issues, []);
  checkPlan(t, plan, 'example-shakshuka', [device('demo-fryer-robot.json'), ARM, COOKER], 1);
  const rest = await h.call('POST', '/svc/v1/team-plans', { token: cook, body: { sessionId, actors: [ARM, COOKER], people: 1 } });
  t.same(rest.body, plan, 'REST answers the same plan for the same input');

  const reader = await connect(h.token(['read'], 'agent'));
  const denied = await reader.callTool({ name: 'team_call_for_proposals', arguments: { sessionId } });
  t.equal(denied.isError, true);
  t.equal((denied.structuredContent as { error: string }).error, 'forbidden');
  const unknownStep = await agent.callTool({
    name: 'team_call_for_proposals',
    arguments: { sessionId, actors: [ARM], people: 0, tasks: ['n1', 'n99'] },
  });
  t.equal((unknownStep.structuredContent as { error: string }).error, 'validation-failed');
});
