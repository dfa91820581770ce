import t from 'tap';
import { makeKitchen, tripEvent } from '../events/testing.js';
import { canReceive, checkPublish, checkSubscribe, placementOf, topicLevel, topicOf } from './topics.js';

const reader = { id: 'a', name: 'ui', scopes: ['read'] };
const cook = { id: 'b', name: 'bot', scopes: ['cook'] };

t.test('topics and placement per category', async (t) => {
  t.equal(topicOf('k1', 'task', 'a/b+c#d'), 'svc/k1/task/a_b_c_d', 'separators and wildcards never reach a topic');
  t.equal(topicLevel(''), '_');
  const k = makeKitchen();
  const at = new Date().toISOString();
  t.same(placementOf('k1', k.hub.publish('safety', tripEvent(at))), { topic: 'svc/k1/safety/oil-max', qos: 2, retain: true });
  t.same(placementOf('k1', k.hub.publish('safety', { kind: 'reset', action: 'none', message: 'r', at })), {
    topic: 'svc/k1/safety/kitchen',
    qos: 2,
    retain: false,
  });
  t.same(placementOf('k1', k.hub.publish('task.updated', { taskId: 't', state: 'x', at, task: {} })), {
    topic: 'svc/k1/task/t',
    qos: 1,
    retain: false,
  });
  t.same(placementOf('k1', k.hub.publish('execution.state', { executionId: 'e', state: 'x', seq: 1, at })), {
    topic: 'svc/k1/execution/e',
    qos: 1,
    retain: false,
  });
  t.same(placementOf('k1', k.hub.publish('telemetry', { sensor: 's', svcSensor: 's', tempC: 1, at })), {
    topic: 'svc/k1/telemetry/s',
    qos: 0,
    retain: false,
  });
  k.db.close();
});

t.test('publish rules: only listed commands; safety topics are spoofs, in any kitchen', async (t) => {
  t.same(checkPublish('k1', 'svc/k1/command/estop', cook), { ok: true, command: 'estop' });
  t.same(checkPublish('k1', 'svc/k1/command/estop', { id: 'x', name: 'x', scopes: ['emergency_stop'] }), { ok: true, command: 'estop' });
  t.match(checkPublish('k1', 'svc/k1/safety/kitchen', { ...reader, scopes: ['admin'] }), { ok: false, spoof: true });
  t.match(checkPublish('k1', 'svc/other/safety/x', cook), { ok: false, spoof: true });
  t.match(checkPublish('k1', 'svc/k1/task/t1', cook), { ok: false, spoof: false });
  t.match(checkPublish('k1', 'svc/k2/command/estop', cook), { ok: false }, 'another kitchen’s command topic');
  t.match(checkPublish('k1', 'anything', cook), { ok: false });
});

t.test('subscribe and receive rules follow scopes', async (t) => {
  for (const f of ['svc/k1/#', 'svc/#', '#', 'svc/+/task/+', 'svc/k1/telemetry/oil']) t.ok(checkSubscribe('k1', f, reader), `read: ${f}`);
  t.notOk(checkSubscribe('k1', '$SYS/#', reader));
  t.notOk(checkSubscribe('k1', 'svc/k2/#', reader), 'another kitchen');
  for (const f of ['svc/k1/safety/#', 'svc/+/safety/+', 'svc/k1/availability/hub']) t.ok(checkSubscribe('k1', f, cook), `cook: ${f}`);
  for (const f of ['svc/k1/#', '#', 'svc/k1/+/x', 'svc/k1/task/#']) t.notOk(checkSubscribe('k1', f, cook), `cook refused: ${f}`);
  t.ok(canReceive('k1', 'svc/k1/task/t', reader));
  t.notOk(canReceive('k1', 'svc/k1/task/t', cook));
  t.ok(canReceive('k1', 'svc/k1/safety/kitchen', cook));
  t.notOk(canReceive('k1', 'svc/k2/safety/kitchen', cook));
  // A relief token reads its own area (relief), as well as safety and availability; nothing else.
  const relief = { ...cook, scopes: ['relief'] };
  for (const f of ['svc/k1/relief/#', 'svc/+/relief/need-1', 'svc/k1/safety/#']) t.ok(checkSubscribe('k1', f, relief), `relief: ${f}`);
  for (const f of ['svc/k1/#', 'svc/k1/task/#', 'svc/k2/relief/#']) t.notOk(checkSubscribe('k1', f, relief), `relief refused: ${f}`);
  t.notOk(checkSubscribe('k1', 'svc/k1/relief/#', cook), 'cook does not read relief');
  t.ok(canReceive('k1', 'svc/k1/relief/need-1', relief));
  t.notOk(canReceive('k1', 'svc/k1/relief/need-1', cook));
  t.notOk(canReceive('k1', 'svc/k1/task/t', relief));
});
