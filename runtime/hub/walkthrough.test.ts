// @slow: the hub walkthrough end to end (npm run test:fast skips this file; npm test runs it)
/**
 * The walkthrough of docs/hub.md over real HTTP and the real CLI: a person pairs an agent with
 * `hearth pair approve`, the agent creates a session over MCP and prepares its confirmation, a person
 * confirms and starts it (presence set through the simulator's surface), and the session completes on the
 * simulated fryer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t from 'tap';
import { runCli } from '../../test-support/cli.js';
import { FRY_RECIPE, startHub } from './test-helpers.js';

t.test('pair an agent, plan over MCP, a person confirms and starts, the fryer cooks', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-walkthrough-'));
  const h = await startHub({ dataDir });
  t.teardown(async () => {
    await h.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const http = async (method: string, path: string, token?: string, body?: unknown) =>
    h.call(method, path, { ...(token ? { token } : {}), ...(body !== undefined ? { body } : {}) });

  // 1. The person's own token, made on the hub.
  const made = await runCli([
    'token',
    'create',
    '--scopes',
    'read,cook,admin',
    '--name',
    'Amal',
    '--kind',
    'human',
    '--data-dir',
    dataDir,
    '--json',
  ]);
  t.equal(made.code, 0, made.stderr);
  const person = JSON.parse(made.stdout).token as string;

  // 2. The agent asks to pair; the person approves its code; the agent polls its token.
  const pair = await http('POST', '/svc/v1/pair', undefined, { name: 'dinner agent', kind: 'agent', scopes: ['read', 'cook'] });
  t.equal(pair.status, 201);
  const approve = await runCli(['pair', 'approve', pair.body.user_code as string, '--data-dir', dataDir]);
  t.equal(approve.code, 0, approve.stderr);
  const polled = await http('POST', '/svc/v1/pair/token', undefined, { pollSecret: pair.body.poll_secret });
  t.equal(polled.status, 200);
  const agent = polled.body.access_token as string;

  // 3. The agent reads the hub's agent card.
  t.equal((await http('GET', '/.well-known/agent-card.json')).status, 401, 'the hub card needs a paired token');
  const card = await http('GET', '/.well-known/agent-card.json', agent);
  t.equal(card.status, 200);
  // A2A 1.0: the spec's `url` {hub_url}/a2a is the card's one interface (runtime/a2a/cards.test.ts checks the rest).
  t.same(card.body.capabilities, { streaming: true, pushNotifications: true, extendedAgentCard: false });
  t.same(card.body.defaultInputModes, ['text/plain', 'application/json']);
  t.same(card.body.defaultOutputModes, ['application/json', 'text/plain']);
  t.same(
    (card.body.skills as { id: string }[]).map((s) => s.id),
    ['plan_meal', 'cook_recipe', 'restock_kitchen', 'advise', 'team_plan', 'relief_allocate'],
  );
  t.same(card.body.securityRequirements, [{ schemes: { paired: {} } }]);
  t.same(card.body.supportedInterfaces, [{ url: `${h.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);

  // 4. Over MCP the agent finds a recipe, creates a session and prepares its confirmation.
  const mcp = new Client({ name: 'dinner agent', version: '1.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${h.url}/svc/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent}` } } }),
  );
  t.teardown(() => mcp.close());
  const found = await mcp.callTool({ name: 'search_recipes', arguments: { query: 'fried onions' } });
  const recipeId = (found.structuredContent as { items: { id: string }[] }).items[0]?.id;
  t.equal(recipeId, FRY_RECIPE);
  const created = await mcp.callTool({
    name: 'create_session',
    arguments: { recipes: [{ recipeId, servings: 4 }], serveAt: '2026-06-01T19:00:00+02:00', mode: 'assisted' },
  });
  const session = created.structuredContent as { id: string; confirmation: { requiredRules: string[] } };
  const prepared = await mcp.callTool({
    name: 'confirm_session',
    arguments: { id: session.id, acknowledgedRules: session.confirmation.requiredRules },
  });
  t.equal((prepared.structuredContent as { state: string }).state, 'awaiting_confirmation');
  const agentStart = await mcp.callTool({ name: 'start_session', arguments: { id: session.id } });
  t.equal(agentStart.isError, true, 'it cannot start before a person confirms');

  // 5. A person sees the task, confirms, walks up to the fryer and starts.
  const tasks = await http('GET', `/svc/v1/tasks?session=${session.id}`, person);
  t.equal((tasks.body.items as { state: string }[])[0]?.state, 'input_required');
  const confirm = await http('POST', `/svc/v1/sessions/${session.id}/confirm`, person, {
    acknowledgedRules: session.confirmation.requiredRules,
  });
  t.equal(confirm.status, 200);
  t.equal(confirm.body.state, 'planned');
  const away = await http('POST', `/svc/v1/sessions/${session.id}/start`, person);
  t.equal(away.status, 409);
  t.match(away.body.type, /presence-required$/);
  t.equal((await http('POST', '/sim/v1/presence', undefined, { present: true })).status, 200);
  const started = await http('POST', `/svc/v1/sessions/${session.id}/start`, person);
  t.equal(started.status, 202);
  t.equal(started.body.state, 'running');

  // 6. Simulated time passes (the sim surface moves the manual clock) until the session completes.
  let state = 'running';
  for (let i = 0; i < 120 && state === 'running'; i++) {
    await http('POST', '/sim/v1/clock', undefined, { advanceMs: 60_000 });
    state = (await http('GET', `/svc/v1/sessions/${session.id}`, agent)).body.state as string;
  }
  t.equal(state, 'completed');
  const done = await mcp.readResource({ uri: `svc://session/${session.id}` });
  const doc = JSON.parse((done.contents[0] as { text: string }).text) as {
    recipes: { executionId: string; execution: { outcome: string } }[];
  };
  t.equal(doc.recipes[0]?.execution.outcome, 'served');
  const log = await http('GET', `/v1/executions/${doc.recipes[0]?.executionId}/log`, person);
  t.equal(log.body.outcome, 'served', 'the executor’s own log says served');
  t.equal((log.body.steps as { op: string }[])[0]?.op, 'cw.op.deep_fry');
});
