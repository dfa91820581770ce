// @slow: starts a hub as a process (npm run test:fast skips this file; npm test runs it)
/**
 * The walkthrough of docs/hub.md with "Watch it happen": a spawned `hearth start` (port 0, manual simulated
 * time), a subscriber attached on MQTT 5, Server-Sent Events and a webhook before anything happens, then the
 * whole flow (a person pairs an agent with `hearth pair approve`, the agent creates the session over MCP and
 * prepares its confirmation, a person confirms and starts it, it completes on the simulated fryer, a person
 * presses the e-stop and resets it). Every task, session and safety event must reach all three subscribers as
 * the same CloudEvent, and every webhook delivery must carry a signature the receiver can verify itself.
 */
import type { ChildProcess } from 'node:child_process';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Webhook } from 'standardwebhooks';
import t from 'tap';
import { runCli, spawnCli, tolerantRigFile } from '../../test-support/cli.js';
import { mqttSubscriber, type SeenEvent, sseSubscriber, waitFor, webhookReceiver } from '../../test-support/subscribers.js';
import { FRY_RECIPE, testRecipesDir } from './test-helpers.js';

const WATCHED = /^svc\.(task|session|safety)\./;

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function token(dataDir: string, scopes: string, name: string, kind: 'human' | 'agent'): Promise<string> {
  const made = await runCli(['token', 'create', '--scopes', scopes, '--name', name, '--kind', kind, '--data-dir', dataDir, '--json']);
  if (made.code !== 0) throw new Error(`hearth token create failed: ${made.stderr}`);
  return JSON.parse(made.stdout).token as string;
}

/** Ids in `want` that `seen` lacks, each labelled with its type (and state) so a failure says which event. */
function missingFrom(want: SeenEvent[], seen: SeenEvent[]): string[] {
  const have = new Set(seen.map((e) => e.id));
  return want.filter((e) => !have.has(e.id)).map((e) => `${e.id} (${e.type}${e.data?.state ? ` ${e.data.state}` : ''})`);
}

t.test('watch it happen: MQTT, SSE and a webhook see every task, session and safety event of the walkthrough', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-walkthrough-events-'));
  const recipes = testRecipesDir();
  t.teardown(() => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(recipes, { recursive: true, force: true });
  });

  // The hub, on free ports; the embedded broker's URL is logged at start ("mqtt bus ready").
  const { child, match } = await spawnCli(
    // A minute of stall tolerance: a loaded machine must not latch a safety stop mid-cook (tolerantRigFile).
    [
      'start',
      '--http-port',
      '0',
      '--data-dir',
      dataDir,
      '--rig',
      tolerantRigFile(dataDir),
      '--recipes',
      recipes,
      '--sim-speed',
      'manual',
      // The test's webhook receiver listens on 127.0.0.1, as the walkthrough's does (docs/hub.md step 0).
      '--webhooks-allow',
      '127.0.0.1',
      '--log-level',
      'info',
    ],
    /"(mqtt:\/\/127\.0\.0\.1:\d+)"[\s\S]*hearth ready (http:\/\/\S+)|hearth ready (http:\/\/\S+)[\s\S]*"(mqtt:\/\/127\.0\.0\.1:\d+)"/,
    { timeoutMs: 60_000 },
  );
  t.teardown(() => stop(child));
  const mqttUrl = (match[1] ?? match[4]) as string;
  const H = (match[2] ?? match[3]) as string;
  const http = async (method: string, path: string, bearer?: string, body?: unknown) => {
    const headers: Record<string, string> = {};
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method === 'POST') headers['idempotency-key'] = `walkthrough-${randomUUID()}`;
    const res = await fetch(`${H}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const text = await res.text();
    return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
  };

  // 1. A person's token, and the subscriber's ("me": read to watch everything, notify to subscribe a webhook).
  const person = await token(dataDir, 'read,cook,admin', 'Amal', 'human');
  const me = await token(dataDir, 'read,notify', 'me', 'human');

  // 2-3. The agent pairs; the person approves its code with the CLI; the agent polls its token.
  const pair = await http('POST', '/svc/v1/pair', undefined, { name: 'dinner agent', kind: 'agent', scopes: ['read', 'cook'] });
  t.equal(pair.status, 201);
  const approve = await runCli(['pair', 'approve', pair.body.user_code as string, '--data-dir', dataDir]);
  t.equal(approve.code, 0, approve.stderr);
  const polled = await http('POST', '/svc/v1/pair/token', undefined, { pollSecret: pair.body.poll_secret });
  t.equal(polled.status, 200);
  const agent = polled.body.access_token as string;

  // 4. Watch it happen: a subscriber on all three transports before the agent creates the session.
  const mqtt = await mqttSubscriber(mqttUrl, 'me', me, 'svc/kitchen/#');
  t.teardown(() => mqtt.close());
  t.same(
    mqtt.granted.map((g) => g.qos),
    [2],
    'the subscription is granted at QoS 2',
  );
  const sse = await sseSubscriber(`${H}/svc/v1/events?types=svc.task.,svc.session.,svc.safety.`, me);
  t.teardown(() => sse.close());
  const receiver = await webhookReceiver();
  t.teardown(() => receiver.close());
  const secret = `walkthrough-${randomUUID()}`;
  const sub = await http('POST', '/svc/v1/subscriptions', me, {
    url: receiver.url,
    types: ['svc.task.', 'svc.session.', 'svc.safety.'],
    secret,
  });
  t.equal(sub.status, 201, JSON.stringify(sub.body));
  const webhookSecret = sub.body.webhookSecret as string;

  // 5. Over MCP the agent finds the recipe, creates a session and prepares its confirmation.
  const mcp = new Client({ name: 'dinner agent', version: '1.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${H}/svc/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent}` } } }),
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
  t.match(session.id, /\S/, 'the session was created');
  const prepared = await mcp.callTool({
    name: 'confirm_session',
    arguments: { id: session.id, acknowledgedRules: session.confirmation.requiredRules },
  });
  t.equal((prepared.structuredContent as { state: string }).state, 'awaiting_confirmation');

  // 6. The person confirms, walks up to the fryer and starts.
  const confirm = await http('POST', `/svc/v1/sessions/${session.id}/confirm`, person, {
    acknowledgedRules: session.confirmation.requiredRules,
  });
  t.equal(confirm.status, 200);
  t.equal((await http('POST', '/sim/v1/presence', undefined, { present: true })).status, 200);
  const started = await http('POST', `/svc/v1/sessions/${session.id}/start`, person);
  t.equal(started.status, 202, JSON.stringify(started.body));

  // 7. Simulated time passes until the session completes.
  let state = 'running';
  for (let i = 0; i < 120 && state === 'running'; i++) {
    await http('POST', '/sim/v1/clock', undefined, { advanceMs: 60_000 });
    state = (await http('GET', `/svc/v1/sessions/${session.id}`, agent)).body.state as string;
  }
  t.equal(state, 'completed');

  // 8. A person presses the e-stop, then resets it.
  const estop = await http('POST', '/svc/v1/safety/estop', person, { reason: 'smoke' });
  t.equal(estop.status, 202, JSON.stringify(estop.body));
  t.equal(estop.body.latched, true);
  const reset = await http('POST', '/svc/v1/safety/reset', person, {});
  t.equal(reset.status, 200, JSON.stringify(reset.body));
  t.equal(reset.body.latched, false);

  // What the subscribers saw. SSE first: the whole story, in order.
  await waitFor('SSE never showed the e-stop and its reset', () =>
    ['svc.safety.estop', 'svc.safety.reset'].filter((type) => !sse.got.some((e) => e.ce.type === type)),
  );
  const story = sse.got.map((e) => e.ce);
  t.ok(
    story.every((e) => WATCHED.test(e.type)),
    'SSE sends only the types asked for',
  );
  const sessionStates = story.filter((e) => e.type === 'svc.session.updated' && e.subject === session.id).map((e) => e.data?.state);
  for (const s of ['planned', 'awaiting_confirmation', 'running', 'completed']) t.ok(sessionStates.includes(s), `SSE saw the session ${s}`);
  const taskStates = story.filter((e) => e.type === 'svc.task.updated').map((e) => e.data?.state);
  t.same(taskStates, ['input_required', 'completed'], 'SSE saw the confirmation task opened by the agent and closed by the person');

  // The same events, with the same ids, on MQTT and at the webhook; and nothing watched that SSE missed.
  const watchedOnMqtt = () => mqtt.got.filter((m) => WATCHED.test(m.ce.type)).map((m) => m.ce);
  await waitFor('MQTT is missing events SSE saw', () => missingFrom(story, watchedOnMqtt()));
  await waitFor('the webhook is missing events SSE saw', () =>
    missingFrom(
      story,
      receiver.got.map((w) => w.ce),
    ),
  );
  t.same(missingFrom(watchedOnMqtt(), story), [], 'SSE saw every task, session and safety event MQTT saw');
  t.same(
    missingFrom(
      receiver.got.map((w) => w.ce),
      story,
    ),
    [],
    'SSE saw every event the webhook got',
  );
  const byId = new Map(story.map((e) => [e.id, e]));
  for (const m of mqtt.got.filter((x) => WATCHED.test(x.ce.type))) {
    t.same(m.ce, byId.get(m.ce.id), `MQTT carries the same CloudEvent as SSE (${m.ce.type} ${m.ce.id})`);
    const [, category] = m.ce.type.split('.');
    t.equal(m.topic, `svc/kitchen/${category}/${m.ce.subject}`, `topic of ${m.ce.type}`);
    t.equal(m.qos, category === 'safety' ? 2 : 1, `QoS of ${m.ce.type}`);
    t.equal(m.contentType, 'application/cloudevents+json');
  }
  // The e-stop and its reset on all three (any other safety event, say a watchdog trip on a loaded machine, is
  // held to the same rule above: on every transport); the reset also empties the retained alarm on MQTT.
  const stopAndReset = (list: SeenEvent[]) =>
    list
      .filter((e) => e.type === 'svc.safety.estop' || e.type === 'svc.safety.reset')
      .map((e) => `${e.type} ${e.subject} ${e.svcpriority}`)
      .sort();
  // Two e-stop events for the one stop: heat is cut before the body is read, then the body's reason follows.
  const want = ['svc.safety.estop kitchen safety', 'svc.safety.estop kitchen safety', 'svc.safety.reset kitchen safety'];
  t.same(stopAndReset(story), want, 'SSE: the e-stop and its reset');
  t.ok(
    story.some((e) => e.type === 'svc.safety.estop' && e.data?.reason === 'smoke' && / via REST$/.test(String(e.data?.source))),
    'the body’s reason and who stopped reach the subscribers',
  );
  t.same(stopAndReset(watchedOnMqtt()), want, 'MQTT: the e-stop and its reset');
  t.same(stopAndReset(receiver.got.map((w) => w.ce)), want, 'the webhook: the e-stop and its reset');
  await waitFor('MQTT never cleared the retained e-stop', () =>
    mqtt.cleared.includes('svc/kitchen/safety/kitchen') ? [] : ['an empty retained message on svc/kitchen/safety/kitchen'],
  );

  // Every webhook delivery verifies: X-Svc-Signature recomputed here, and the Standard Webhooks signature.
  const wh = new Webhook(webhookSecret);
  for (const d of receiver.got) {
    const mac = Buffer.from(`sha256=${createHmac('sha256', secret).update(d.rawBody).digest('hex')}`);
    const sent = Buffer.from(String(d.headers['x-svc-signature']));
    t.ok(mac.length === sent.length && timingSafeEqual(mac, sent), `X-Svc-Signature verifies (${d.ce.type} ${d.ce.id})`);
    t.equal(d.headers['webhook-id'], d.ce.id, 'webhook-id is the CloudEvent id');
    t.doesNotThrow(() => wh.verify(d.rawBody, d.headers as Record<string, string>), 'the Standard Webhooks signature verifies');
    t.match(d.headers['content-type'], /^application\/cloudevents\+json/);
    t.same(d.ce, byId.get(d.ce.id), `the webhook carries the same CloudEvent as SSE (${d.ce.type})`);
  }
});
