/**
 * MQTT 5 request/response (runtime/mqtt/commands.ts) against the embedded broker of a whole hub, with MQTT.js:
 * the hub's tools answer on the requester's reply topic with its correlation data, refusals are problem documents
 * with the MQTT reason code, nobody else receives the answer, the token's scopes decide exactly as for the MCP
 * tools, and an emergency stop is never refused (the simulated fryer's physical power is 0 afterwards).
 * Third-party clients (mosquitto_rr, Paho) run the same operations in interop.test.ts.
 * @slow: a whole hub with its broker, and about 35 s of wall time on a loaded 2-core machine.
 */
import mqtt, { type IClientPublishOptions, type MqttClient } from 'mqtt';
import t, { type Test } from 'tap';
import { type FullHub, startFullHub } from '../../test-support/hub-app.js';
import { heatFryer as heatUp, fryerPower as power, until } from '../../test-support/mqtt-peers.js';
import { FRY_RECIPE } from '../hub/test-helpers.js';
import { SPEC_TOOL_SCOPES, TOKEN_SCOPES } from '../hub/testing/scope-table.js';
import type { HubMcpDeps } from '../mcp/tools.js';
import { MqttCommands } from './commands.js';
import type { CommandRequest, OutgoingMessage } from './transport.js';

interface Reply {
  topic: string;
  body: Record<string, unknown>;
  contentType: string | undefined;
  props: Record<string, string>;
}

/** A connected MQTT 5 client that asks on svc/{k}/command/{op} and collects its answers by correlation data. */
async function agent(t: Test, h: FullHub, token: string, clientId: string) {
  const client: MqttClient = await mqtt.connectAsync(
    h.mqttUrl,
    { protocolVersion: 5, clientId, username: clientId, password: token, reconnectPeriod: 0 },
    false,
  );
  t.teardown(() => client.endAsync(true));
  const k = h.events.hub?.kitchenId ?? '';
  const replies = new Map<string, Reply>();
  const waiting = new Map<string, (r: Reply) => void>();
  client.on('message', (topic, payload, packet) => {
    const corr = packet.properties?.correlationData?.toString() ?? '';
    const props = (packet.properties?.userProperties ?? {}) as Record<string, string>;
    const r: Reply = { topic, body: JSON.parse(payload.toString()), contentType: packet.properties?.contentType, props };
    replies.set(corr, r);
    waiting.get(corr)?.(r);
  });
  const granted = await client.subscribeAsync(`svc/${k}/reply/${clientId}/#`, { qos: 1 });
  t.equal(granted[0]?.qos, 1, `${clientId} may subscribe to its own reply topics`);
  let n = 0;
  return {
    client,
    k,
    /** Publish a request (QoS 1); resolves with the PUBACK error (if any) and the answer (within 30 s, or undefined). */
    async ask(op: string, args: unknown, o: { responseTopic?: string; raw?: string; qos?: 0 | 1 } = {}) {
      const corr = `${clientId}-${++n}`;
      const answered = new Promise<Reply | undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), 30_000);
        waiting.set(corr, (r) => {
          clearTimeout(timer);
          resolve(r);
        });
      });
      const opts: IClientPublishOptions = {
        qos: o.qos ?? 1,
        properties: { responseTopic: o.responseTopic ?? `svc/${k}/reply/${clientId}/answers`, correlationData: Buffer.from(corr) },
      };
      let pubackError: string | undefined;
      await client.publishAsync(`svc/${k}/command/${op}`, o.raw ?? JSON.stringify(args), opts).catch((err: Error) => {
        pubackError = err.message;
      });
      return { pubackError, answered };
    },
    replies,
  };
}

t.test('create a session, read its tasks, refused for a missing scope: answers on the reply topic', async (t) => {
  const h = await startFullHub();
  t.teardown(() => h.close());
  const cook = await agent(t, h, h.token(['read', 'cook'], 'agent'), 'kitchen-agent');
  const reader = await agent(t, h, h.token(['read'], 'agent'), 'reader-agent');
  const k = cook.k;

  const create = await cook.ask('create_session', {
    recipes: [{ recipeId: FRY_RECIPE, servings: 2 }],
    serveAt: '2026-06-01T19:00:00Z',
    mode: 'assisted',
  });
  t.equal(create.pubackError, undefined, 'PUBACK success');
  const created = await create.answered;
  t.equal(created?.topic, `svc/${k}/reply/kitchen-agent/answers`, 'the answer comes on the response topic');
  t.equal(created?.contentType, 'application/json');
  t.equal(created?.props.status, '200');
  const session = created?.body as { id: string; state: string };
  t.equal(session.state, 'planned');
  const rest = await h.call('GET', `/svc/v1/sessions/${session.id}`, { token: h.token(['read']) });
  t.equal(rest.body.id, session.id, 'the same session the REST API shows');

  const tasks = await (await reader.ask('list_tasks', { id: session.id })).answered;
  t.ok(Array.isArray(tasks?.body.items), 'list_tasks answers the session’s tasks');
  const got = await (await reader.ask('get_session', { id: session.id })).answered;
  t.same(got?.body, (await h.call('GET', `/svc/v1/sessions/${session.id}`, { token: h.token(['read']) })).body);

  const denied = await reader.ask('create_session', {
    recipes: [{ recipeId: FRY_RECIPE }],
    serveAt: '2026-06-01T19:00:00Z',
    mode: 'assisted',
  });
  t.match(denied.pubackError, /Not authorized|0x87|135/i, 'PUBACK 0x87 for a missing scope');
  const problem = await denied.answered;
  t.equal(problem?.contentType, 'application/problem+json');
  t.match(problem?.body, {
    type: `${h.url}/errors/forbidden`,
    status: 403,
    detail: 'the tool create_session needs the scope cook',
    requiredScope: 'cook',
  });
  t.same({ code: problem?.props['reason-code'], status: problem?.props.status }, { code: '0x87', status: '403' });
  t.equal(h.hub.sessions.sessions.list().length, 1, 'no session was created by the refused request');

  const badJson = await (await cook.ask('get_session', null, { raw: '{not json' })).answered;
  t.match(badJson?.body, { status: 400, type: /\/errors\/invalid-json$/ });
  t.equal(badJson?.props['reason-code'], '0x99', 'payload format invalid');
  const badArgs = await (await cook.ask('get_session', { id: 42 })).answered;
  t.match(badArgs?.body, { status: 422, detail: /arguments of get_session/ });
  const missing = await (await cook.ask('get_session', { id: 'no-such-session' })).answered;
  t.match(missing?.body, { status: 404 });
  t.equal(missing?.props['reason-code'], undefined, 'no MQTT reason code fits a 404');
  const unknown = await cook.ask('make_coffee', {});
  t.match(unknown.pubackError, /Not authorized|0x87|135/i, 'an unknown operation is refused');
  t.match((await unknown.answered)?.body, { status: 404, detail: /no operation "make_coffee"/ });

  const qos0 = await (await cook.ask('get_mode', {}, { qos: 0 })).answered;
  t.ok(qos0?.body.mode, 'a QoS 0 request is answered too');
});

t.test('an answer reaches only the client that asked; requests are not forwarded to readers', async (t) => {
  const h = await startFullHub();
  t.teardown(() => h.close());
  const asker = await agent(t, h, h.token(['read', 'cook'], 'agent'), 'asker');
  const snoop = await agent(t, h, h.token(['read', 'admin'], 'agent'), 'snoop');
  const k = asker.k;
  const seen: string[] = [];
  snoop.client.on('message', (topic) => seen.push(topic));
  await snoop.client.subscribeAsync(`svc/${k}/#`, { qos: 1 });
  await t.rejects(
    snoop.client.subscribeAsync(`svc/${k}/reply/asker/#`, { qos: 1 }),
    /Not authorized/,
    'SUBACK 0x87 for another client’s reply topics',
  );

  t.ok((await (await asker.ask('get_mode', {})).answered)?.body.mode, 'the asker got its answer');
  // The snoop's own round trip: whatever the broker sent it before, it has by now.
  t.ok((await (await snoop.ask('get_mode', {})).answered)?.body.mode);
  t.same(
    seen.filter((s) => s.includes('/reply/asker') || s.includes('/command/')),
    [],
    'a reader of the whole kitchen sees neither the request nor the answer',
  );

  const before = h.hub.sessions.sessions.list().length;
  const hijack = await asker.ask(
    'create_session',
    { recipes: [{ recipeId: FRY_RECIPE }], serveAt: '2026-06-01T19:00:00Z', mode: 'assisted' },
    { responseTopic: `svc/${k}/reply/snoop/x` },
  );
  t.match(hijack.pubackError, /Not authorized|0x87|135/i, 'a response topic of another client refuses the request');
  t.equal(h.hub.sessions.sessions.list().length, before, 'and nothing was done');
});

t.test('emergency_stop over MQTT is never refused: any token, any payload, any response topic', async (t) => {
  const h = await startFullHub();
  t.teardown(() => h.close());
  const admin = h.token(['read', 'cook', 'admin']);
  const button = await agent(t, h, h.token(['notify'], 'agent', 'wall-button'), 'wall-button');
  const k = button.k;

  await heatUp(t, h, admin);
  const blind = await button.ask('emergency_stop', null, { raw: '\u0000not json at all', responseTopic: `svc/${k}/reply/someone-else` });
  t.equal(blind.pubackError, undefined, 'PUBACK success although the payload and the response topic are wrong');
  t.equal(power(h), 0, 'the fryer’s physical power is 0');
  t.equal(h.app.ctx.supervisor.status().latched, true);

  await heatUp(t, h, admin);
  const asked = await button.ask('emergency_stop', { reason: 'smoke', extra: 1 });
  t.equal(power(h), 0, 'heat is off');
  const answer = await asked.answered;
  t.match(answer?.body, { accepted: true, action: 'heat_off_all', latched: true, warnings: [/unexpected arguments ignored: extra/] });
  t.match(h.app.ctx.supervisor.status().trip?.message, /emergency stop by agent wall-button via MQTT: smoke/);

  await heatUp(t, h, admin);
  await button.ask('emergency_stop', {}, { qos: 0, responseTopic: 'svc/elsewhere/reply/x' });
  t.ok(await until(() => power(h) === 0), 'a QoS 0 stop with a foreign response topic still cuts heat');
});

t.test('every tool’s scope over MQTT is the spec’s, as over MCP and HTTP', async (t) => {
  const h = await startFullHub();
  t.teardown(() => h.close());
  let i = 0;
  for (const scope of TOKEN_SCOPES) {
    if (scope === null) continue; // no token: no MQTT login at all (broker.test.ts)
    const a = await agent(t, h, h.token([scope], 'agent'), `matrix-${++i}`);
    for (const [tool, need] of Object.entries(SPEC_TOOL_SCOPES)) {
      const r = await a.ask(tool, {});
      const answer = await r.answered;
      const allowed = need === null || need === scope;
      if (allowed) t.not(answer?.props.status, '403', `${scope} may call ${tool}`);
      else {
        t.equal(answer?.props.status, '403', `${scope} may not call ${tool}`);
        t.match(r.pubackError, /Not authorized|0x87|135/i);
      }
    }
    await a.client.endAsync();
  }
});

t.test('one token has at most 4 requests being answered; an emergency stop is never held back', async (t) => {
  const sent: OutgoingMessage[] = [];
  let stops = 0;
  const deps = {
    runFlow: () => new Promise(() => {}), // a flow that never answers
    safety: {
      supervisor: {
        cutAll: () => {
          stops++;
          return { reason: 'estop' };
        },
        status: () => ({ latched: true, heaters: {} }),
      },
      bus: { emit: () => {} },
      now: () => 0,
      stopAll: () => {},
    },
  } as unknown as HubMcpDeps; // only what run_flow and emergency_stop touch
  const commands = new MqttCommands({
    kitchenId: 'k',
    transport: { publish: async (m) => void sent.push(m) },
    deps: () => deps,
    problemBase: () => 'http://hub.test',
  });
  const req = (operation: string, n: number): CommandRequest => ({
    operation,
    clientId: 'c',
    principal: { id: 'tok', name: 'agent', kind: 'agent', scopes: ['cook'] },
    payload: Buffer.from(operation === 'run_flow' ? '{"flowId":"slow"}' : '{}'),
    responseTopic: 'svc/k/reply/c',
    correlationData: Buffer.from(String(n)),
  });
  for (let n = 0; n < 5; n++) t.same(commands.handle(req('run_flow', n)), { ok: true });
  t.same(commands.handle(req('emergency_stop', 9)), { ok: true });
  t.equal(stops, 1, 'the stop ran although four requests are in flight');
  await new Promise((r) => setImmediate(r));
  const answers = sent.map((m) => ({
    corr: m.correlationData?.toString(),
    status: m.userProperties?.status,
    code: m.userProperties?.['reason-code'],
  }));
  t.same(
    answers.sort((a, b) => String(a.corr).localeCompare(String(b.corr))),
    [
      { corr: '4', status: '429', code: '0x97' },
      { corr: '9', status: '200', code: undefined },
    ],
    'the fifth is rate-limited (quota exceeded), the stop answered',
  );
});
