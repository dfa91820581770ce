/**
 * The embedded Node-RED (`hearth start --flows`) on the hub's HTTP server: the editor and admin API behind admin
 * tokens, a flow deployed through the admin API and run with runFlow (the hub's run_flow), a refused recipe
 * refused inside a flow, flow HTTP endpoints behind admin tokens, and WebSocket upgrades routed to the right
 * server.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t from 'tap';
import WebSocket from 'ws';
import { repoRoot } from '../../test-support/cli.js';
import { KOSHARI } from '../app/testing.js';
import { startDashboardApp } from '../dashboard/test-app.js';
import { testBusFeature } from '../homeassistant/test-bus.js';
import { flowsFeature } from './feature.js';
import { EXCLUDED_NODE_TYPES } from './node-red.js';

/** Wait on a condition; the bound only limits how long a broken run hangs (generous for a loaded machine). */
async function until(done: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const flows = flowsFeature();
const d = await startDashboardApp({
  extra: () => [testBusFeature('k1'), flows],
  hub: { runFlow: (id, inputs) => flows.runFlow(id, inputs) },
});
t.teardown(() => d.close());
const admin = d.token(['read', 'cook', 'admin']);
const cook = d.token(['read', 'cook']);
const koshari = d.app.ctx.recipes.get(KOSHARI);

const api = (path: string, init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
  fetch(`${d.url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });

t.test('the editor loads; its admin API needs a token with admin', async (t) => {
  const page = await api('/flows/');
  t.equal(page.status, 200);
  t.match(await page.text(), /Hearth flows/);
  t.equal((await api('/flows/flows')).status, 401, 'no token');
  t.equal((await api('/flows/flows', { token: cook })).status, 401, 'a cook token is not enough');
  const ok = await api('/flows/flows', { token: admin });
  t.equal(ok.status, 200);
  const refused = await fetch(`${d.url}/flows/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: 'node-red-editor',
      grant_type: 'password',
      scope: '*',
      username: 'cook',
      password: cook,
    }).toString(),
  });
  t.not(refused.status, 200, 'no editor login with a cook token (a successful login is in the hearth start --flows test)');
});

t.test('a deployed flow runs on request; a refused recipe stays refused inside a flow', async (t) => {
  await api('/sim/v1/presence', { method: 'POST', body: { present: false } });
  const flow = [
    { id: 'tab', type: 'tab', label: 'test' },
    { id: 'cfg', type: 'hearth-config', url: d.url, credentials: { token: cook } },
    { id: 'in1', z: 'tab', type: 'svc-flow-in', flowId: 'safety-check', wires: [['st']] },
    { id: 'st', z: 'tab', type: 'svc-status', hearth: 'cfg', wires: [['out1']] },
    { id: 'out1', z: 'tab', type: 'svc-flow-out' },
    { id: 'in2', z: 'tab', type: 'svc-flow-in', flowId: 'cook', wires: [['ex']] },
    { id: 'ex', z: 'tab', type: 'svc-execute', hearth: 'cfg', wires: [['out2']] },
    { id: 'out2', z: 'tab', type: 'svc-flow-out' },
    { id: 'web', z: 'tab', type: 'http in', url: '/hello', method: 'get', wires: [['resp']] },
    { id: 'resp', z: 'tab', type: 'http response', statusCode: '200', wires: [] },
  ];
  const deployed = await api('/flows/flows', { method: 'POST', token: admin, body: flow, headers: { 'node-red-deployment-type': 'full' } });
  t.ok([200, 204].includes(deployed.status), `deployed: ${deployed.status} ${await deployed.clone().text()}`);
  await until(() => flows.flowIds().includes('cook'), 'the deployed flow to start');
  t.same(flows.flowIds(), ['cook', 'safety-check']);
  t.match(await flows.runFlow('safety-check', {}), { latched: d.app.ctx.supervisor.status().latched, heaters: {} });
  const answer = await flows.runFlow('cook', { recipe: KOSHARI, recipeHash: koshari?.hash });
  t.match(answer, { state: 'refused', refusal: { reason: 'needs_human_present' } });
  t.equal(d.app.ctx.executor.activeId, undefined, 'nothing cooks');

  const noToken = await api('/flows/api/hello');
  t.equal(noToken.status, 401, 'flow endpoints need a token');
  t.match(noToken.headers.get('content-type'), /application\/problem\+json/);
  t.match(await noToken.json(), { type: /\/errors\/unauthorized$/, status: 401, detail: /admin scope/ });
  t.equal((await api('/flows/api/hello', { token: cook })).status, 403, 'with admin');
  t.equal((await api('/flows/api/hello', { token: 'hth_not-a-token' })).status, 401, 'an unknown token');
  t.equal((await api('/flows/api/hello', { token: admin })).status, 200);
});

t.test('the hub MCP tool run_flow runs a deployed flow (scope cook)', async (t) => {
  const connect = async (token: string) => {
    const client = new Client({ name: 'flows-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${d.url}/svc/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    t.teardown(() => client.close());
    return client;
  };
  const agent = await connect(d.token(['read', 'cook'], 'agent'));
  t.ok(
    (await agent.listTools()).tools.some((x) => x.name === 'run_flow'),
    'listed',
  );
  const ran = await agent.callTool({ name: 'run_flow', arguments: { flowId: 'safety-check', inputs: {} } });
  t.notOk(ran.isError);
  t.match(ran.structuredContent, { flowId: 'safety-check', result: { latched: d.app.ctx.supervisor.status().latched, heaters: {} } });
  const refused = await agent.callTool({
    name: 'run_flow',
    arguments: { flowId: 'cook', inputs: { recipe: KOSHARI, recipeHash: koshari?.hash } },
  });
  t.match(refused.structuredContent, { result: { state: 'refused' } }, 'the refusal comes back through the tool');
  const missing = await agent.callTool({ name: 'run_flow', arguments: { flowId: 'no-such-flow' } });
  t.match(missing, { isError: true, structuredContent: { error: 'not-found' } });
  const reader = await connect(d.token(['read'], 'agent'));
  const forbidden = await reader.callTool({ name: 'run_flow', arguments: { flowId: 'safety-check' } });
  t.match(forbidden, { isError: true, structuredContent: { error: 'forbidden', requiredScope: 'cook' } });
});

t.test('the example flows: told once the oil is at temperature; smoke stops everything', async (t) => {
  type FlowNode = { id: string; type: string; url?: string; credentials?: Record<string, string> };
  const read = (name: string) => JSON.parse(readFileSync(join(repoRoot, 'flows/examples', name), 'utf8')) as FlowNode[];
  const nodes = [...read('oil-ready.json'), ...read('smoke-estop.json').filter((n) => n.type !== 'hearth-config')];
  for (const n of nodes) if (n.type === 'hearth-config') Object.assign(n, { url: d.url, credentials: { token: cook } });
  const deployed = await api('/flows/flows', {
    method: 'POST',
    token: admin,
    body: nodes,
    headers: { 'node-red-deployment-type': 'full' },
  });
  t.ok([200, 204].includes(deployed.status), `imported: ${deployed.status}`);
  await until(() => flows.flowIds().includes('smoke'), 'the imported flows to start');
  t.same(flows.flowIds(), ['oil-ready', 'smoke']);

  t.match(await flows.runFlow('oil-ready', {}), { ready: false, targetC: 170 });
  // The sensor node follows the hub's feed (connecting takes real time) and passes on one reading per real
  // second: hold the oil at 176 °C and sample until the flow has seen it, bounded only by a generous deadline.
  let answer: { ready?: boolean; tempC?: number } = {};
  const deadline = Date.now() + 60_000;
  while (!answer.ready && Date.now() < deadline) {
    await api('/sim/v1/temperature', { method: 'POST', body: { sensor: 'oil', tempC: 176 } });
    await d.clock.advanceAsync(500);
    await new Promise((r) => setTimeout(r, 250));
    answer = (await flows.runFlow('oil-ready', {})) as typeof answer;
  }
  t.equal(answer.ready, true, 'the flow saw the oil reach 170 °C');
  t.ok(Math.abs((answer.tempC ?? 0) - 176) < 3, `at ${answer.tempC} °C`);

  if (d.app.ctx.supervisor.status().latched) d.app.ctx.supervisor.reset('test'); // a stall on a loaded machine may have tripped it
  t.equal(d.app.ctx.supervisor.status().latched, false);
  t.match(await flows.runFlow('smoke', true), { accepted: true, action: 'heat_off_all' });
  t.equal(d.app.ctx.supervisor.status().latched, true, 'smoke: the stop is latched');
  t.ok(
    [...d.app.ctx.rig.heaters.values()].every((h) => h.power === 0),
    'all heat off',
  );
  t.ok(d.app.ctx.supervisor.reset('test'), 'a person resets');
});

t.test('WebSocket upgrades: the editor comms go to Node-RED, the hub feed to the hub', async (t) => {
  const ws = new WebSocket(`${d.url.replace('http', 'ws')}/flows/comms`);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  t.pass('the editor comms socket opens');
  ws.close();
  const feed = new WebSocket(`${d.url.replace('http', 'ws')}/svc/v1/events/ws`, { headers: { authorization: `Bearer ${cook}` } });
  await new Promise<void>((resolve, reject) => {
    feed.once('open', () => resolve());
    feed.once('error', reject);
  });
  t.pass('the hub event feed still upgrades');
  feed.close();
});

t.test('Node-RED loads none of the OS-touching nodes: exec, file, watch, tcp, udp', async (t) => {
  const res = await api('/flows/nodes', { token: admin, headers: { accept: 'application/json' } });
  t.equal(res.status, 200);
  const sets = (await res.json()) as { types: string[] }[];
  const types = new Set(sets.flatMap((s) => s.types));
  t.ok(types.has('function') && types.has('svc-execute'), 'the ordinary and Hearth nodes are there');
  for (const type of EXCLUDED_NODE_TYPES) t.notOk(types.has(type), `no ${type} node`);
});
