// @slow: the whole hub with its MQTT broker cooks koshari for two simulated hours, about 25 s of CPU (npm run test:fast skips this file; npm test runs it)
/**
 * The agent flow of spec §4.7 end to end over MCP (issue 16): the whole hub in this process (events with the
 * embedded MQTT broker, webhooks, hub, dashboard) on the simulated rig with a manual clock, and an agent that
 * speaks only MCP through the official SDK client (streamable HTTP, bearer token; scopes read, cook, notify):
 * `ask` free text → an AdviceResponse → `advise` with the intent it found → one option → `apply_advice` (under
 * the mandate its person signed) → a planned session → `confirm_session` only prepares the confirmation (the
 * agent can neither start the session nor answer the person's task) → a person confirms over REST with their
 * own token → `start_session` (refused until a person is sensed at the appliance, as for anyone) → the session
 * cooks on the simulated rig (`pause_session` holds it, the person resumes it) → `notify` → the notification
 * arrives on a real MQTT 5 subscriber on `svc/{k}/notify/...` and on Server-Sent Events. Every AdviceResponse,
 * session, task and event is checked against its schema. A second test aborts a session with `abort_session`.
 */
import { readFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import t, { type Test } from 'tap';
import { generateKeyFile, publicRecord } from '../../core/keys.js';
import { signDocument } from '../../core/signature.js';
import { validate } from '../../schemas/index.js';
import { type FullHub, startFullHub } from '../../test-support/hub-app.js';
import { mqttSubscriber, sseSubscriber, waitFor } from '../../test-support/subscribers.js';

type Json = Record<string, unknown>;
type AddFormats = (ajv: Ajv2020) => Ajv2020;
const formatsExport = addFormatsModule as unknown as AddFormats & { default?: AddFormats };
const addFormats: AddFormats = typeof formatsExport.default === 'function' ? formatsExport.default : formatsExport;

/** The CloudEvent schemas of schemas/events/ for the two event types this flow watches. */
function eventValidators(): Record<'svc.notify.message' | 'svc.session.updated', ValidateFunction> {
  const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
  const load = (name: string) =>
    JSON.parse(readFileSync(new URL(`../../schemas/events/${name}.schema.json`, import.meta.url), 'utf8')) as Json;
  ajv.addSchema(load('cloudevent'));
  return { 'svc.notify.message': ajv.compile(load('svc.notify.message')), 'svc.session.updated': ajv.compile(load('svc.session.updated')) };
}

const errorsOf = (fn: ValidateFunction) => (fn.errors ? ` ${JSON.stringify(fn.errors.slice(0, 3))}` : '');

function checkSchema(t: Test, name: 'adviceResponse' | 'session' | 'task', body: unknown, what: string): void {
  const v = validate[name](body);
  t.ok(v.valid, `${what}: a valid ${name}${v.valid ? '' : ` ${JSON.stringify(v.issues.slice(0, 3))}`}`);
}

async function connect(t: Test, h: FullHub, token: string): Promise<Client> {
  const client = new Client({ name: 'dinner-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${h.url}/svc/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  t.teardown(() => client.close());
  return client;
}

/** A tool call that must succeed: its structured content (the test fails with the tool's error otherwise). */
async function use(t: Test, c: Client, name: string, args: Json): Promise<Json> {
  const r = await c.callTool({ name, arguments: args });
  const body = (r.structuredContent ?? {}) as Json;
  if (r.isError) t.fail(`${name} answered a tool error: ${JSON.stringify(body)}`);
  return body;
}

/** The person registers their key over REST (an admin token of a person) and signs a plan_meals mandate for the agent. */
async function mandateFor(t: Test, h: FullHub, personAdmin: string, agentName: string): Promise<Json> {
  const key = generateKeyFile({ kid: 'amal-1', actor: 'amal', validFrom: '2026-01-01T00:00:00Z' });
  const reg = await h.call('POST', '/svc/v1/principal-keys', { token: personAdmin, body: publicRecord(key) });
  t.equal(reg.status, 201, `the person's key is registered${reg.status === 201 ? '' : ` ${JSON.stringify(reg.body)}`}`);
  const doc = { kind: 'AgentMandate', principal: 'amal', agent: agentName, scopes: ['plan_meals'], expires: '2099-01-01T00:00:00Z' };
  return signDocument(doc, key, { kind: 'AgentMandate', signedAt: '2026-05-30T00:00:00Z' }) as Json;
}

/** A pantry for koshari (lentils, rice and the rest) without chickpeas and the spices. */
const PANTRY = [
  ['Lentils', 'lentils_brown', 1000, 'g'],
  ['Rice', 'rice_short', 2000, 'g'],
  ['Vermicelli', 'vermicelli_wheat', 500, 'g'],
  ['Vegetable oil', 'vegetable_oil', 2000, 'ml'],
  ['Macaroni', 'pasta_short', 1000, 'g'],
  ['Onions', 'onion_yellow', 2000, 'g'],
  ['Flour', 'wheat_flour', 1000, 'g'],
  ['Tomato passata', 'tomato_passata', 1500, 'g'],
  ['Garlic', 'garlic', 100, 'g'],
  ['White vinegar', 'vinegar_white', 500, 'ml'],
].map(([name, id, quantity, unit]) => ({ name, id, quantity, unit }));

t.test('ask → advise → apply_advice → confirm by a person → start → cook → notify, over MCP', async (t) => {
  const h = await startFullHub();
  t.teardown(() => h.close());
  const kitchen = h.events.hub?.kitchenId ?? '';
  t.ok(kitchen, 'the hub has a kitchen id');
  const person = h.newToken(['read', 'cook', 'admin', 'inventory'], 'human', 'Amal');
  const agentToken = h.newToken(['read', 'cook', 'notify'], 'agent', 'dinner-agent');
  const events = eventValidators();

  // Subscribers in place first, as a phone or a speaker on the kitchen's network would be.
  const mqtt = await mqttSubscriber(h.mqttUrl, 'amal', person.token, `svc/${kitchen}/notify/#`);
  t.teardown(() => mqtt.close());
  const sse = await sseSubscriber(`${h.url}/svc/v1/events?types=svc.notify.,svc.session.`, person.token);
  t.teardown(() => sse.close());

  const agent = await connect(t, h, agentToken.token);
  const tools = (await agent.listTools()).tools.map((x) => x.name);
  for (const name of [
    'ask',
    'advise',
    'apply_advice',
    'confirm_session',
    'start_session',
    'pause_session',
    'get_session',
    'list_tasks',
    'notify',
  ])
    t.ok(tools.includes(name), `${name} is listed`);

  // 0. The person keeps the pantry on the hub (REST, their own token); the chickpeas are out.
  const stocked = await h.call('PATCH', '/svc/v1/inventory', { token: person.token, body: { upsert: PANTRY } });
  t.equal(stocked.status, 200, 'the pantry is stocked');

  // 1. ask: free text → an AdviceResponse with the intent and query it read from the text.
  const asked = await use(t, agent, 'ask', { text: 'What can I cook with lentils and rice for 4?', lang: 'en' });
  checkSchema(t, 'adviceResponse', asked, 'ask');
  const interpreted = asked.interpreted as { intent: string; query: Json };
  t.equal(interpreted.intent, 'cook_from', 'the text asks what to cook');
  t.equal(interpreted.query.servings, 4, 'for 4');
  t.equal(asked.status, 'answered');

  // 2. advise with the intent (and query) ask found: the hub's own context goes in.
  const advised = await use(t, agent, 'advise', { intent: interpreted.intent, query: interpreted.query, context: { lang: 'en' } });
  checkSchema(t, 'adviceResponse', advised, 'advise');
  t.equal(advised.status, 'answered');
  t.equal((advised.context as { source: string }).source, 'hub', 'answered with the hub’s context');
  const options = advised.options as { id: string; kind: string; recipeIds?: string[]; servings?: number }[];
  const option = options.find((o) => o.recipeIds?.includes('example-koshari'));
  t.ok(option, `lentils and rice: koshari is an option (${options.map((o) => o.recipeIds?.join('+')).join(', ')})`);
  if (!option) return;
  t.match(option, { kind: 'recipe', coverage: { missing: ['cw.ing.chickpeas_cooked'] } }, 'the chickpeas are missing, and it says so');
  t.ok(
    (option as { coverage?: { have: string[] } }).coverage?.have.includes('cw.ing.lentils_brown'),
    'the lentils come from the hub’s inventory',
  );

  // 3. apply_advice: an agent applies only under its person's mandate; then a planned session.
  const unsigned = await agent.callTool({ name: 'apply_advice', arguments: { responseId: advised.responseId, optionId: option.id } });
  t.equal(unsigned.isError, true, 'no mandate: refused');
  t.match(unsigned.structuredContent, { error: 'policy-deny' });
  const mandate = await mandateFor(t, h, person.token, 'dinner-agent');
  const applied = await use(t, agent, 'apply_advice', {
    responseId: advised.responseId,
    optionId: option.id,
    serveAt: '2026-06-01T19:00:00Z',
    mandate,
  });
  checkSchema(t, 'session', applied, 'apply_advice');
  t.notOk(validate.session({ ...applied, state: 'cooking' }).valid, 'the session schema knows the nine states only');
  t.notOk(validate.session({ ...applied, recipes: [] }).valid, 'and a session cooks at least one recipe');
  t.equal(applied.state, 'planned', 'apply_advice makes a planned session');
  t.same(
    (applied.recipes as { recipeId: string }[]).map((r) => r.recipeId),
    ['example-koshari'],
  );
  t.match(applied.advice, { responseId: advised.responseId, optionId: option.id, intent: 'cook_from' });
  t.match(applied.mandate, { principal: 'amal' }, 'the session records whose mandate it was made under');
  t.same(applied.createdBy, { id: agentToken.id, kind: 'agent' });
  const id = String(applied.id);
  const rules = (applied.confirmation as { requiredRules: string[] }).requiredRules;

  // 4. confirm_session only prepares: the session waits for a person, with a task for one.
  const prepared = await use(t, agent, 'confirm_session', { id, acknowledgedRules: rules });
  checkSchema(t, 'session', prepared, 'confirm_session');
  t.equal(prepared.state, 'awaiting_confirmation', 'an agent only prepares the confirmation');
  const task = prepared.task as { id: string; state: string; kind: string };
  checkSchema(t, 'task', task, 'the confirmation task');
  t.match(task, { kind: 'confirm_session', state: 'input_required' });
  const early = await agent.callTool({ name: 'start_session', arguments: { id } });
  t.equal(early.isError, true, 'the agent cannot start an unconfirmed session');
  t.match(early.structuredContent, { error: 'conflict' });
  const again = await use(t, agent, 'confirm_session', { id, acknowledgedRules: rules });
  t.equal(again.state, 'awaiting_confirmation', 'confirming twice as an agent completes nothing either');
  const agentAnswer = await h.call('POST', `/svc/v1/tasks/${task.id}/respond`, { token: agentToken.token, body: { answer: 'yes' } });
  t.equal(agentAnswer.status, 403, 'the agent cannot answer the person’s task over REST either');
  t.match(agentAnswer.body.type, /not-human-approver$/);
  const agentConfirm = await h.call('POST', `/svc/v1/sessions/${id}/confirm`, {
    token: agentToken.token,
    body: { acknowledgedRules: rules },
  });
  t.equal(agentConfirm.status, 202, 'nor by the REST confirm route: it stays prepared');
  t.equal(((await use(t, agent, 'get_session', { id })) as Json).state, 'awaiting_confirmation');

  // 5. A person sees the task on their paired interface (REST with their own token) and confirms.
  const open = await h.call('GET', `/svc/v1/tasks?session=${id}`, { token: person.token });
  const items = open.body.items as Json[];
  t.same(
    items.map((x) => x.id),
    [task.id],
  );
  for (const item of items) checkSchema(t, 'task', item, 'GET /svc/v1/tasks');
  const answered = await h.call('POST', `/svc/v1/tasks/${task.id}/respond`, { token: person.token, body: { answer: 'yes' } });
  t.equal(answered.status, 200, 'the person answers yes');
  t.equal(answered.body.state, 'completed');
  const confirmed = await use(t, agent, 'get_session', { id });
  checkSchema(t, 'session', confirmed, 'get_session after the person confirmed');
  t.equal(confirmed.state, 'planned');
  t.match(confirmed.confirmation, { confirmedBy: { id: person.id, kind: 'human' }, preparedBy: { id: agentToken.id, kind: 'agent' } });
  const listed = await use(t, agent, 'list_tasks', { id });
  t.match(listed.items, [{ id: task.id, state: 'completed' }]);

  // 6. start_session: heat needs a person at the appliance; sensed on the rig, then the agent's start goes.
  const away = await agent.callTool({ name: 'start_session', arguments: { id } });
  t.equal(away.isError, true, 'nobody at the stove: refused');
  t.match(away.structuredContent, { error: 'presence-required' });
  t.equal((await h.call('POST', '/sim/v1/presence', { body: { present: true } })).status, 200, 'the person walks up to the stove');
  const started = await use(t, agent, 'start_session', { id });
  checkSchema(t, 'session', started, 'start_session');
  t.equal(started.state, 'running');
  t.same(started.startedBy, { id: agentToken.id, kind: 'agent' });

  // 7. It cooks on the simulated rig as the manual clock moves; the agent pauses, the person resumes.
  await h.clock.advanceAsync(60_000);
  const paused = await use(t, agent, 'pause_session', { id });
  checkSchema(t, 'session', paused, 'pause_session');
  t.equal(paused.state, 'paused');
  const resumed = await h.call('POST', `/svc/v1/sessions/${id}/resume`, { token: person.token });
  t.equal(resumed.status, 202, 'the person resumes it');
  t.equal(resumed.body.state, 'running');
  const state = () => h.hub.sessions.get(id).state;
  t.ok(await h.runUntil(() => state() !== 'running', 6 * 3600_000, 60_000), `the session left running (${state()})`);
  const done = await use(t, agent, 'get_session', { id });
  checkSchema(t, 'session', done, 'get_session when done');
  t.equal(done.state, 'completed');
  t.match(done.recipes, [{ recipeId: 'example-koshari', execution: { state: 'completed', outcome: 'served' } }]);
  const resource = await agent.readResource({ uri: `svc://session/${id}` });
  t.equal(JSON.parse((resource.contents[0] as { text: string }).text).state, 'completed', 'the session resource agrees');

  // 8. notify: the household hears that dinner is ready, on MQTT and on the event stream.
  const receipt = await use(t, agent, 'notify', {
    audience: ['household', `human:${person.id}`],
    urgency: 'action_needed',
    message: { en: 'Koshari for 4 is ready', ar: 'الكشري جاهز' },
    relatesTo: id,
  });
  t.match(receipt, { state: 'delivered', audience: ['role:household', `human:${person.id}`], event: 'svc.notify.message' });
  await waitFor('the notification on MQTT (one message per audience entry) and SSE', () => [
    ...(mqtt.got.some((m) => m.topic === `svc/${kitchen}/notify/role:household`) ? [] : ['mqtt role:household']),
    ...(mqtt.got.some((m) => m.topic === `svc/${kitchen}/notify/human:${person.id}`) ? [] : [`mqtt human:${person.id}`]),
    ...(sse.got.some((e) => e.ce.type === 'svc.notify.message') ? [] : ['sse']),
  ]);
  for (const m of mqtt.got) {
    t.equal(m.ce.type, 'svc.notify.message', m.topic);
    t.ok(events['svc.notify.message'](m.ce), `${m.topic}: a valid svc.notify.message${errorsOf(events['svc.notify.message'])}`);
    t.match(m.ce.data, { id: receipt.id, urgency: 'action_needed', message: { en: 'Koshari for 4 is ready' }, relatesTo: id });
    t.match(m.ce.data?.from, { id: agentToken.id, kind: 'agent' });
    t.equal(m.ce.svcsession, id, 'the event names the session it is about');
  }
  const viaSse = sse.got.find((e) => e.ce.type === 'svc.notify.message');
  t.equal(viaSse?.ce.id, mqtt.got[0]?.ce.id, 'the same CloudEvent on SSE and MQTT');

  // Every session change went out as an event whose session is a valid Session.
  const states = sse.got.filter((e) => e.ce.type === 'svc.session.updated' && e.ce.data?.sessionId === id);
  for (const e of states) {
    t.ok(events['svc.session.updated'](e.ce), `a valid svc.session.updated${errorsOf(events['svc.session.updated'])}`);
    checkSchema(t, 'session', e.ce.data?.session, `svc.session.updated ${String(e.ce.data?.state)}`);
  }
  const seen = states.map((e) => e.ce.data?.state);
  for (const s of ['planned', 'awaiting_confirmation', 'running', 'paused', 'completed']) t.ok(seen.includes(s), `an event for ${s}`);
});

t.test('abort_session over MCP: the running session stops and the heat is cut', async (t) => {
  const h = await startFullHub();
  t.teardown(() => h.close());
  const person = h.newToken(['read', 'cook'], 'human', 'Amal');
  const agent = await connect(t, h, h.token(['read', 'cook'], 'agent', 'dinner-agent'));
  const reader = await connect(t, h, h.token(['read'], 'agent', 'reader'));
  const created = await use(t, agent, 'create_session', {
    recipes: [{ recipeId: 'example-koshari', servings: 4 }],
    serveAt: '2026-06-01T19:00:00Z',
    mode: 'assisted',
  });
  checkSchema(t, 'session', created, 'create_session');
  const id = String(created.id);
  const rules = (created.confirmation as { requiredRules: string[] }).requiredRules;
  t.equal(
    (await h.call('POST', `/svc/v1/sessions/${id}/confirm`, { token: person.token, body: { acknowledgedRules: rules } })).status,
    200,
  );
  await h.presence(true);
  t.equal((await h.call('POST', `/svc/v1/sessions/${id}/start`, { token: person.token })).status, 202);
  await h.clock.advanceAsync(5 * 60_000);
  const sim = h.app.ctx.rig.sim;
  if (!sim) throw new Error('not the simulated rig');
  const heating = () => Object.values(sim.snapshot().heaters).some((duty) => duty > 0);
  t.ok(heating(), 'koshari is on the heat');
  const refused = await reader.callTool({ name: 'abort_session', arguments: { id } });
  t.match(refused, { isError: true, structuredContent: { error: 'forbidden', requiredScope: 'cook' } }, 'read cannot abort');
  t.equal(h.hub.sessions.get(id).state, 'running');
  const aborted = await use(t, agent, 'abort_session', { id, reason: 'plans changed' });
  checkSchema(t, 'session', aborted, 'abort_session');
  t.equal(aborted.state, 'aborted');
  t.match(aborted.abort, { reason: 'plans changed', by: { kind: 'agent' } });
  await h.clock.advanceAsync(2000);
  t.notOk(heating(), 'no heater is on after the abort');
  t.equal(h.hub.sessions.get(id).state, 'aborted', 'and it stays aborted as time passes');
});
