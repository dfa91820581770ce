/**
 * The stopper's reason and who stopped reach every subscriber, whichever door the e-stop came through: REST
 * (`POST /svc/v1/safety/estop {reason}`, whose body is read only after heat is cut: the reason follows in a second
 * estop event for the same trip), GraphQL `emergencyStop(reason)`, MCP `emergency_stop`, the MQTT `estop` topic
 * and the MQTT command topic `emergency_stop`. Each e-stop with reason "oil smoking" must reach a real MQTT 5
 * subscriber and an SSE client as an `svc.safety.estop` CloudEvent with that reason and a source naming the token
 * and the transport, valid against schemas/events and the `cloudevents` SDK. On the whole hub (simulated rig,
 * manual clock). The REST body is sent in two halves over a raw socket: heat is off and the first event is out
 * before the second half is even sent.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { CloudEvent } from 'cloudevents';
import mqtt from 'mqtt';
import t from 'tap';
import { startFullHub } from '../../test-support/hub-app.js';
import { mqttSubscriber, type SeenEvent, sseSubscriber, waitFor } from '../../test-support/subscribers.js';
import { gql } from '../graphql/test-helpers.js';

type AddFormats = (ajv: Ajv2020) => Ajv2020;
const formatsExport = addFormatsModule as unknown as AddFormats & { default?: AddFormats };
const addFormats: AddFormats = typeof formatsExport.default === 'function' ? formatsExport.default : formatsExport;
const DIR = fileURLToPath(new URL('../../schemas/events/', import.meta.url));
const REASON = 'oil smoking';

t.test('an e-stop over each transport carries the reason and who stopped to MQTT and SSE subscribers', async (t) => {
  const ajv = addFormats(new Ajv2020({ allErrors: true, strict: true }));
  for (const f of readdirSync(DIR)) ajv.addSchema(JSON.parse(readFileSync(join(DIR, f), 'utf8')) as object);
  const estopSchema = ajv.getSchema('https://schemas.hearth.dev/svc/0.2/events/svc.safety.estop.schema.json');
  if (!estopSchema) throw new Error('no e-stop schema');

  const h = await startFullHub();
  t.teardown(() => h.close());
  const kitchen = h.events.hub?.kitchenId ?? '';
  const admin = h.newToken(['admin', 'read'], 'human', 'Amal admin');
  const watcher = h.newToken(['read'], 'human', 'watcher');
  const sub = await mqttSubscriber(h.mqttUrl, 'watcher', watcher.token, `svc/${kitchen}/safety/#`);
  t.teardown(() => sub.close());
  const sse = await sseSubscriber(`${h.url}/svc/v1/events?types=svc.safety.`, watcher.token);
  t.teardown(() => sse.close());

  const heatersOff = () => [...h.app.ctx.rig.heaters.values()].every((x) => x.power === 0);
  const reset = async () => {
    const r = await h.call('POST', '/svc/v1/safety/reset', { token: admin.token, body: {} });
    t.equal(r.body.latched, false, 'reset for the next door');
  };
  /** Where both subscribers are now: `arrived` looks only at what comes after. */
  const mark = () => ({ mqtt: sub.got.length, sse: sse.got.length });
  /** The e-stop with this source and the reason, seen on both MQTT and SSE since `from`: checked and returned. */
  const arrived = async (source: string, from: ReturnType<typeof mark>): Promise<SeenEvent> => {
    const match = (ce: SeenEvent) => ce.type === 'svc.safety.estop' && ce.data?.reason === REASON && ce.data?.source === source;
    await waitFor(`the e-stop by ${source} with its reason`, () => [
      ...(sub.got.slice(from.mqtt).some((m) => match(m.ce)) ? [] : ['MQTT']),
      ...(sse.got.slice(from.sse).some((m) => match(m.ce)) ? [] : ['SSE']),
    ]);
    const onMqtt = sub.got.slice(from.mqtt).find((m) => match(m.ce));
    const ce = onMqtt?.ce as SeenEvent;
    t.equal(onMqtt?.contentType, 'application/cloudevents+json', `${source}: MQTT 5 content type`);
    t.ok(
      sse.got.some((m) => m.ce.id === ce.id),
      `${source}: the same event (same id) on SSE`,
    );
    t.ok(estopSchema(ce), `${source}: valid against its schema ${JSON.stringify(estopSchema.errors ?? [])}`);
    t.doesNotThrow(() => new CloudEvent(ce as unknown as Record<string, unknown>, true), `${source}: a valid CloudEvent`);
    t.match(ce.data, { kind: 'estop', action: 'heat_off_all', reason: REASON, source }, source);
    t.match(String(ce.data?.message), REASON, `${source}: the message says why`);
    t.ok(heatersOff(), `${source}: every heater is off`);
    return ce;
  };

  // REST, the body in two halves: the stop (and its first event) happen before the second half leaves.
  const amal = h.newToken(['read'], 'human', 'Amal');
  const body = JSON.stringify({ reason: REASON });
  const atRest = mark();
  const before = atRest.mqtt;
  const socket = connect(Number(new URL(h.url).port), '127.0.0.1');
  t.teardown(() => socket.destroy());
  let answer = '';
  socket.on('data', (d: Buffer) => {
    answer += d.toString();
  });
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(
    `POST /svc/v1/safety/estop HTTP/1.1\r\nHost: 127.0.0.1:${new URL(h.url).port}\r\nAuthorization: Bearer ${amal.token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, 5)}`,
  );
  await waitFor('the stop before the body', () => (h.app.ctx.supervisor.status().latched && heatersOff() ? [] : ['latched, heat off']));
  await waitFor('the first e-stop event on MQTT', () =>
    sub.got.slice(before).some((m) => m.ce.type === 'svc.safety.estop') ? [] : ['event'],
  );
  const first = sub.got.slice(before).find((m) => m.ce.type === 'svc.safety.estop')?.ce;
  t.match(first?.data, { source: 'human Amal via REST', reason: 'emergency stop' }, 'the first event: who, before the reason is known');
  t.equal(answer, '', 'no answer yet: the body is still arriving');
  socket.end(body.slice(5));
  await waitFor('the REST answer', () => (answer.includes('"accepted":true') ? [] : ['202']));
  t.match(answer, /^HTTP\/1\.1 202/);
  const rest = await arrived('human Amal via REST', atRest);
  const tripOf = (ce: SeenEvent | undefined) => (ce?.data?.trip ?? {}) as { id?: string; statedReason?: string };
  t.equal(tripOf(rest).id, tripOf(first).id, 'the reason follows on the same trip');
  t.equal(tripOf(rest).statedReason, REASON);
  t.equal(h.app.ctx.supervisor.status().trip?.source, 'human Amal via REST');
  await reset();

  // GraphQL.
  const agent = h.newToken(['notify'], 'agent', 'stove agent');
  const atGraphql = mark();
  const g = await gql(h, `mutation { emergencyStop(reason: "${REASON}") { accepted reason } }`, { token: agent.token });
  t.match(g.data?.emergencyStop, { accepted: true, reason: REASON });
  await arrived('agent stove agent via GraphQL', atGraphql);
  await reset();

  // MCP.
  const mcp = new Client({ name: 'estop reason test', version: '1.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${h.url}/svc/v1/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${agent.token}` } },
    }),
  );
  t.teardown(() => mcp.close());
  const atMcp = mark();
  t.notOk((await mcp.callTool({ name: 'emergency_stop', arguments: { reason: REASON } })).isError);
  await arrived('agent stove agent via MCP', atMcp);
  await reset();

  // MQTT: the estop topic ({"reason"} and plain text), then the command topic emergency_stop (request/response).
  const panel = h.newToken(['notify'], 'human', 'wall panel');
  const client = await mqtt.connectAsync(h.mqttUrl, {
    protocolVersion: 5,
    username: 'wall panel',
    password: panel.token,
    clientId: `panel-${process.pid}`,
    reconnectPeriod: 0,
  });
  t.teardown(() => client.endAsync(true));
  const atTopic = mark();
  await client.publishAsync(`svc/${kitchen}/command/estop`, JSON.stringify({ reason: REASON }), { qos: 1 });
  const topic = await arrived('human wall panel via MQTT', atTopic);
  t.equal(h.app.ctx.supervisor.status().trip?.statedReason, REASON, 'the latched trip keeps the reason');
  // Again while latched, as plain text: announced again (the stop is cut again), with its reason.
  const again = await (async () => {
    const from = mark();
    await client.publishAsync(`svc/${kitchen}/command/estop`, REASON, { qos: 1 });
    return arrived('human wall panel via MQTT', from);
  })();
  t.not(again.id, topic.id, 'a new event');
  await reset();

  const replyTopic = `svc/${kitchen}/reply/panel-${process.pid}`;
  await client.subscribeAsync(replyTopic, { qos: 1 });
  const replies: string[] = [];
  client.on('message', (tp, payload) => {
    if (tp === replyTopic) replies.push(payload.toString());
  });
  const atCommand = mark();
  await client.publishAsync(`svc/${kitchen}/command/emergency_stop`, JSON.stringify({ reason: REASON }), {
    qos: 1,
    properties: { responseTopic: replyTopic, correlationData: Buffer.from('stop-1') },
  });
  await arrived('human wall panel via MQTT', atCommand);
  await waitFor('the emergency_stop answer', () => (replies.length > 0 ? [] : ['reply']));
  t.match(JSON.parse(replies[0] ?? '{}'), { accepted: true, action: 'heat_off_all' });
});
