/**
 * Operator topic grants (issue 29 item 2) on the embedded broker, with real mqtt.js MQTT 5 clients over TCP: a
 * token created with `mqtt: {publish, subscribe}` (what `hearth token create --mqtt-publish/--mqtt-subscribe` stores)
 * or granted in the config file reaches its device topics; nothing granted reaches svc/…; refusals are logged once
 * per client and topic.
 */
import t from 'tap';
import { filterCovers, filterMatches, grantProblem, parseGrantList } from '../../platform/http/mqtt-grants.js';
import { eventsOptionsOf } from '../events/options.js';
import { until } from '../events/testing.js';
import { collect, pubCode, startBroker, subCode } from './test-broker.js';

t.test('grant rules: nothing reaches svc/, $, homeassistant/ or starts with a wildcard', async (t) => {
  for (const bad of ['svc/k1/#', 'svc', '+/k1/safety/x', '#', '$share/g/devices/#', '$SYS/#', 'homeassistant/#', 'a/#/b', 'a/b+', ''])
    t.ok(grantProblem(bad), `refused: ${JSON.stringify(bad)}`);
  for (const ok of ['devices/plug-1/#', 'devices/+/state', 'zigbee2mqtt/kitchen-plug', 'a']) t.equal(grantProblem(ok), undefined, ok);
  t.throws(() => parseGrantList('devices/#,svc/k1/command/estop', '--mqtt-publish'), {
    message: '--mqtt-publish "svc/k1/command/estop" refused: svc/… is governed by the token\'s scopes, not by grants',
  });
  t.same(parseGrantList(' devices/a/# , devices/a/#,', '--mqtt-publish'), ['devices/a/#']);
  t.ok(filterMatches('devices/+/state', 'devices/p1/state'));
  t.notOk(filterMatches('devices/+/state', 'devices/p1/x/state'));
  t.ok(filterMatches('devices/p1/#', 'devices/p1'));
  t.ok(filterCovers('devices/#', 'devices/+/state'));
  t.ok(filterCovers('devices/+/state', 'devices/p1/state'));
  t.notOk(filterCovers('devices/+/state', 'devices/#'), 'a wider filter than the grant is not covered');
  t.notOk(filterCovers('devices/p1/#', 'devices/+/state'));
});

t.test('a granted device publishes and subscribes on its own topics; others without a grant see nothing', async (t) => {
  const b = await startBroker(t);
  const plug = b.token(['notify'], { publish: ['devices/plug-1/#'], subscribe: ['devices/plug-1/set'] }, 'plug-1');
  const panel = b.token(['read'], { subscribe: ['devices/#'] }, 'panel');
  const reader = b.token(['read'], undefined, 'reader');
  const p = await b.connect(plug);
  const ui = await b.connect(panel);
  const other = await b.connect(reader);
  const uiGot = collect(ui);
  const otherGot = collect(other);
  const plugGot = collect(p);
  t.equal(await subCode(ui, 'devices/+/power'), 1, 'the panel may subscribe inside its grant');
  t.equal(await subCode(other, 'devices/+/power'), 0x87, 'a token without the grant: SUBACK 0x87');
  await other.subscribeAsync('#', { qos: 1 }); // a reader's whole-bus subscription still gets no device topics
  t.equal(await subCode(p, 'devices/plug-1/set'), 1);
  t.equal(await subCode(p, 'devices/plug-2/set'), 0x87, 'another device’s topic is not granted');
  t.equal(await pubCode(p, 'devices/plug-1/power', '42.5'), 0, 'PUBACK success inside the grant');
  await until(() => uiGot.length === 1, 10_000, 'the panel gets the reading');
  t.equal(uiGot[0]?.topic, 'devices/plug-1/power');
  t.equal(uiGot[0]?.payload.toString(), '42.5');
  t.equal(otherGot.length, 0, 'the plain reader received nothing outside svc/');
  // The panel cannot publish (it has no publish grant); the plug cannot reach outside its tree.
  t.equal(await pubCode(ui, 'devices/plug-1/set', 'off'), 0x87);
  t.equal(await pubCode(p, 'devices/plug-2/power', '1'), 0x87);
  t.equal(plugGot.length, 0);
});

t.test('nothing granted publishes on svc/: a safety spoof is still refused and reported', async (t) => {
  const spoofs: string[] = [];
  const b = await startBroker(t, { onSpoof: (r) => spoofs.push(r.topic) });
  const plug = b.token(['notify'], { publish: ['devices/plug-1/#'] });
  const watcher = await b.connect(b.token(['read']));
  const seen = collect(watcher);
  await watcher.subscribeAsync('svc/k1/#', { qos: 1 });
  const p = await b.connect(plug);
  for (const topic of ['svc/k1/safety/oil-max', 'svc/k1/state/x', 'svc/k1/command/start', 'svc/other/safety/x']) {
    t.equal(await pubCode(p, topic, 'x'), 0x87, `refused: ${topic}`);
  }
  t.same(spoofs, ['svc/k1/safety/oil-max']);
  t.equal(seen.length, 0, 'no subscriber saw any of them');
});

t.test('refusals are logged once per client and topic, not per message', async (t) => {
  const b = await startBroker(t);
  const p = await b.connect(b.token(['notify'], { publish: ['devices/plug-1/#'] }));
  for (let i = 0; i < 5; i++) t.equal(await pubCode(p, 'devices/plug-9/power', String(i)), 0x87);
  t.equal(await pubCode(p, 'devices/plug-8/power', 'x'), 0x87);
  for (let i = 0; i < 3; i++) t.equal(await subCode(p, 'devices/plug-9/#'), 0x87);
  const lines = (msg: string, topic: string) => b.logged.filter((l) => l.msg === msg && l.topic === topic).length;
  t.equal(lines('mqtt publish refused', 'devices/plug-9/power'), 1, 'five refused publishes, one line');
  t.equal(lines('mqtt publish refused', 'devices/plug-8/power'), 1, 'another topic has its own line');
  t.equal(lines('mqtt subscription refused', 'devices/plug-9/#'), 1);
});

t.test('grants from the config file, by token name, add to the token’s own', async (t) => {
  const b = await startBroker(t, { grants: { 'plug-2': { publish: ['devices/plug-2/#'], subscribe: [] } } });
  const p = await b.connect(b.token(['notify'], undefined, 'plug-2'));
  t.equal(await pubCode(p, 'devices/plug-2/power', '1'), 0);
  const q = await b.connect(b.token(['notify'], undefined, 'plug-3'));
  t.equal(await pubCode(q, 'devices/plug-2/power', '1'), 0x87, 'another name gets nothing');
});

t.test('mqttGrants in the config file: read with its checks, a grant on svc/ stops start-up with one line', async (t) => {
  t.same(eventsOptionsOf({ mqttGrants: { 'plug-1': { publish: ['devices/plug-1/#'] } } }, {}).mqttGrants, {
    'plug-1': { publish: ['devices/plug-1/#'], subscribe: [] },
  });
  t.throws(() => eventsOptionsOf({ mqttGrants: { panel: { subscribe: ['svc/kitchen/#'] } } }, {}), {
    message: 'mqttGrants.panel.subscribe "svc/kitchen/#" refused: svc/… is governed by the token\'s scopes, not by grants',
  });
});
