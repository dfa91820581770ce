/**
 * Every Hearth node loaded in Node-RED (node-red-node-test-helper), talking to a real Hearth app on port 0: a
 * message in, the answer out. Flows ask; the supervisor decides: a refused recipe comes back refused, and the
 * API a flow can reach has no way to raise a limit.
 *
 * @own-process: Node-RED's test helper is one per process, and its afterEach hook sits on tap's root test.
 */
import { createRequire } from 'node:module';
import t from 'tap';
import { executeRequest, KOSHARI } from '../app/testing.js';
import { startDashboardApp } from '../dashboard/test-app.js';
import { testBusFeature } from '../homeassistant/test-bus.js';

const require = createRequire(import.meta.url);
// CommonJS modules without type declarations (Node-RED nodes and its test helper).
type NodeModule = (RED: unknown) => void;
interface RedNode {
  id: string;
  on(event: string, fn: (msg: Record<string, unknown>) => void): void;
  receive(msg: Record<string, unknown>): void;
}
interface Helper {
  init(path: string): void;
  startServer(done: () => void): void;
  stopServer(done: () => void): void;
  load(nodes: NodeModule[], flow: unknown[], credentials: Record<string, unknown>, done: () => void): void;
  unload(): Promise<void>;
  getNode(id: string): RedNode;
}
const helper = require('node-red-node-test-helper') as Helper;
const node = (name: string) => require(`../../flows/nodes/${name}.js`) as NodeModule;
const runs = require('../../flows/nodes/lib/runs.js') as {
  run(flowId: string, inputs: unknown, o?: { timeoutMs?: number }): Promise<unknown>;
  list(): string[];
};
const ALL = ['hearth-config', 'svc-execute', 'svc-status', 'svc-safety-in', 'svc-sensor', 'svc-estop', 'svc-flow'].map(node);

helper.init(require.resolve('node-red'));

const d = await startDashboardApp({ extra: () => [testBusFeature('k1')] });
await new Promise<void>((r) => helper.startServer(r));
t.teardown(async () => {
  await new Promise<void>((r) => helper.stopServer(r));
  await d.close();
});
t.afterEach(() => helper.unload());

const cook = d.token(['read', 'cook']);
const cfg = { id: 'cfg', type: 'hearth-config', url: d.url };
const koshari = d.app.ctx.recipes.get(KOSHARI);
if (!koshari) throw new Error('the test catalog has no koshari');

async function load(flow: unknown[], token: string | undefined = cook): Promise<void> {
  await new Promise<void>((r) => helper.load(ALL, [cfg, ...flow], token ? { cfg: { token } } : {}, r));
}

/** The next message a node sends (through a helper node wired to it); the bound is generous for a loaded machine. */
function nextFrom(id: string, pred: (m: Record<string, unknown>) => boolean = () => true, ms = 60_000): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no message from ${id}`)), ms);
    helper.getNode(id).on('input', (m) => {
      if (!pred(m)) return;
      clearTimeout(timer);
      resolve(m);
    });
  });
}

const post = (path: string, body: unknown) =>
  fetch(`${d.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

t.test('svc-execute: a recipe that needs a person is refused, and the flow gets the refusal', async (t) => {
  await post('/sim/v1/presence', { present: false });
  await load([
    { id: 'x', type: 'svc-execute', hearth: 'cfg', recipe: KOSHARI, recipeHash: koshari.hash, wires: [['out']] },
    { id: 'out', type: 'helper' },
  ]);
  const got = nextFrom('out');
  helper.getNode('x').receive({ payload: {} });
  const m = await got;
  t.match(m.payload, { state: 'refused', refusal: { reason: 'needs_human_present' } });
  t.equal(d.app.ctx.executor.activeId, undefined, 'nothing runs');
});

t.test('svc-execute starts a recipe with a person present; svc-status reads it and the safety state', async (t) => {
  await post('/sim/v1/presence', { present: true });
  await load([
    { id: 'x', type: 'svc-execute', hearth: 'cfg', wires: [['st']] },
    { id: 'st', type: 'svc-status', hearth: 'cfg', wires: [['out']] },
    { id: 'safe', type: 'svc-status', hearth: 'cfg', wires: [['out2']] },
    { id: 'out', type: 'helper' },
    { id: 'out2', type: 'helper' },
  ]);
  const got = nextFrom('out');
  helper.getNode('x').receive({ payload: { recipe: KOSHARI, recipeHash: koshari.hash } });
  const m = await got;
  t.equal(m.executionId, d.app.ctx.executor.activeId, 'the running execution');
  t.match(m.payload, { kind: 'ExecutionStatus', state: /preparing|running|waiting|paused/ });
  const safety = nextFrom('out2');
  helper.getNode('safe').receive({});
  t.match((await safety).payload, { latched: d.app.ctx.supervisor.status().latched, heaters: {} });
  d.app.ctx.executor.stopAll('test over');
});

t.test('svc-execute: a bad hash is an error the flow can catch; nothing starts', async (t) => {
  await load([
    { id: 'x', type: 'svc-execute', hearth: 'cfg', recipe: KOSHARI, recipeHash: 'sha256:0000', wires: [['out']] },
    { id: 'out', type: 'helper' },
  ]);
  const got = nextFrom('out');
  helper.getNode('x').receive({});
  const m = await got;
  t.ok((m.statusCode as number) >= 400, `answered ${m.statusCode}`);
  t.equal(d.app.ctx.executor.activeId, undefined);
});

t.test('svc-sensor sends readings; svc-estop cuts heat; svc-safety-in reports it', async (t) => {
  await load([
    { id: 'temp', type: 'svc-sensor', hearth: 'cfg', sensor: 'oil', interval: 0, wires: [['readings']] },
    { id: 'safety', type: 'svc-safety-in', hearth: 'cfg', wires: [['alarms']] },
    { id: 'stop', type: 'svc-estop', hearth: 'cfg', reason: 'smoke', wires: [['stopped']] },
    { id: 'readings', type: 'helper' },
    { id: 'alarms', type: 'helper' },
    { id: 'stopped', type: 'helper' },
  ]);
  // The feed connects in real time: hold the oil at 155 °C and sample until a reading arrives.
  let arrived = false;
  const reading = nextFrom('readings', (m) => typeof m.payload === 'number' && Math.abs((m.payload as number) - 155) < 3);
  reading.then(
    () => (arrived = true),
    () => (arrived = true),
  );
  while (!arrived) {
    await post('/sim/v1/temperature', { sensor: 'oil', tempC: 155 });
    await d.clock.advanceAsync(500);
    await new Promise((r) => setTimeout(r, 50));
  }
  t.match(await reading, { topic: 'oil' });

  const alarm = nextFrom('alarms');
  const stopped = nextFrom('stopped');
  helper.getNode('stop').receive({ payload: {} });
  t.match((await stopped).payload, { accepted: true, action: 'heat_off_all' });
  t.equal(d.app.ctx.supervisor.status().latched, true, 'the supervisor latched the stop');
  t.ok([...d.app.ctx.rig.heaters.values()].every((h) => h.power === 0));
  t.match(await alarm, { topic: /^svc\.safety\./, payload: { message: /emergency stop/ } });
  t.ok(d.app.ctx.supervisor.reset('test'), 'a person resets');
});

t.test('svc-estop without a token uses the local e-stop', async (t) => {
  await load(
    [
      { id: 'stop', type: 'svc-estop', hearth: 'cfg', wires: [['stopped']] },
      { id: 'stopped', type: 'helper' },
    ],
    undefined,
  );
  const stopped = nextFrom('stopped');
  helper.getNode('stop').receive({ payload: { reason: 'button on the wall' } });
  t.match((await stopped).payload, { accepted: true });
  t.equal(d.app.ctx.supervisor.status().latched, true);
  t.ok(d.app.ctx.supervisor.reset('test'));
});

t.test('svc-flow-in/out: a run injects inputs and resolves with the answer', async (t) => {
  await load([
    { id: 'in', type: 'svc-flow-in', flowId: 'echo', wires: [['outn', 'seen']] },
    { id: 'outn', type: 'svc-flow-out' },
    { id: 'seen', type: 'helper' },
  ]);
  t.ok(runs.list().includes('echo'), 'registered under its flow id');
  const seen = nextFrom('seen');
  t.same(await runs.run('echo', { n: 21 }), { n: 21 }, 'the answer is what svc-flow-out received');
  t.match(await seen, { topic: 'echo', payload: { n: 21 }, _hearthRun: /\S/ });
  await t.rejects(runs.run('nope', {}), { code: 'unknown_flow' });
  await helper.unload();
  t.notOk(runs.list().includes('echo'), 'gone once the flow stops');
});

t.test('a flow cannot change the limits: the API it reaches has no way to', async (t) => {
  const before = JSON.stringify(d.app.ctx.device.limitsInForce);
  const raised = structuredClone(d.app.ctx.device.limitsInForce) as unknown as Record<string, unknown>;
  const admin = d.token(['read', 'cook', 'admin']);
  for (const token of [cook, admin]) {
    for (const method of ['PUT', 'POST', 'PATCH']) {
      const r = await fetch(`${d.url}/v1/safety-limits`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(raised),
      });
      t.ok(r.status >= 400 && r.status < 500, `${method} /v1/safety-limits answered ${r.status}`);
    }
  }
  t.equal(JSON.stringify(d.app.ctx.device.limitsInForce), before, 'the limits in force are unchanged');
  // And what a flow can ask for is checked against them: svc-execute's request is the public ExecuteRequest.
  t.match(executeRequest(d.app, KOSHARI, 'k'), { kind: 'ExecuteRequest' });
});
