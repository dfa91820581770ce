/**
 * An e-stop as a standard MQTT 5 subscriber sees it, on the whole hub (simulated rig, manual clock): an agent's
 * `emergency_stop` over MCP with a reason; a client that subscribes afterwards gets the retained alarm with the
 * MQTT 5 content type `application/cloudevents+json`, the reason and who stopped (`source`), `time` from the
 * wall clock and the simulated time in `simtime`. The retained availability topic carries the content type too.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t from 'tap';
import { startFullHub } from '../../test-support/hub-app.js';
import { mqttSubscriber, waitFor } from '../../test-support/subscribers.js';

t.test('a late MQTT 5 subscriber gets the retained e-stop with its reason, source, content type and both clocks', async (t) => {
  const h = await startFullHub();
  t.teardown(() => h.close());
  const agent = h.newToken(['read'], 'agent', 'dinner agent');
  const mcp = new Client({ name: 'estop test', version: '1.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${h.url}/svc/v1/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${agent.token}` } },
    }),
  );
  t.teardown(() => mcp.close());
  const stopped = await mcp.callTool({ name: 'emergency_stop', arguments: { reason: 'smoke in the kitchen' } });
  t.notOk(stopped.isError);

  const kitchen = h.events.hub?.kitchenId ?? '';
  const watcher = h.newToken(['read'], 'human', 'watcher');
  const late = await mqttSubscriber(h.mqttUrl, 'watcher', watcher.token, `svc/${kitchen}/#`);
  t.teardown(() => late.close());
  await waitFor(
    'the retained e-stop and availability',
    () => ['svc.safety.estop', 'svc.device.online'].filter((type) => !late.got.some((m) => m.ce.type === type)),
    30_000,
  );

  const estop = late.got.find((m) => m.ce.type === 'svc.safety.estop');
  t.equal(estop?.retain, true, 'delivered as retained');
  t.equal(estop?.contentType, 'application/cloudevents+json', 'the retained alarm keeps its MQTT 5 content type');
  const ce = estop?.ce as unknown as { time: string; simtime?: string; data: Record<string, unknown> };
  t.match(ce.data, { reason: 'smoke in the kitchen', source: 'agent dinner agent', action: 'heat_off_all' });
  t.equal(
    ce.simtime,
    new Date(h.clock.now()).toISOString().slice(0, 10) === ce.simtime?.slice(0, 10) ? ce.simtime : 'simulated date',
    'simtime is the simulated clock',
  );
  t.equal(ce.simtime?.slice(0, 10), '2026-06-01', 'the simulated day');
  t.not(ce.time.slice(0, 10), '2026-06-01', 'time is not the simulated clock');
  t.ok(Math.abs(Date.parse(ce.time) - Date.now()) < 24 * 3600_000, 'time is the wall clock (same day as this machine)');

  const online = late.got.find((m) => m.ce.type === 'svc.device.online');
  t.equal(online?.retain, true);
  t.equal(online?.contentType, 'application/cloudevents+json', 'retained availability carries the content type');
});
