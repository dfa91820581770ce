import { CloudEvent } from 'cloudevents';
import t from 'tap';
import { EventBus } from './bus.js';
import { ALARM_KINDS, buildCloudEvent, shapeOf } from './cloudevent.js';
import { matches, parseSession, parseTypes, scopeTypePrefixes } from './filter.js';
import { EventHub } from './hub.js';
import { DEFAULT_RETENTION, EventJournal } from './journal.js';
import { makeKitchen, openStore, tripEvent } from './testing.js';

const at = '2026-11-20T12:00:00.000Z';

t.test('bus events map to svc.<category>.<name> types with subjects and data', async (t) => {
  const cases: [ReturnType<typeof shapeOf>, string, string, string][] = [
    [shapeOf('safety', tripEvent(at)), 'svc.safety.limit_tripped', 'safety', 'oil-max'],
    [shapeOf('safety', { kind: 'estop', action: 'heat_off_all', message: 'x', at }), 'svc.safety.estop', 'safety', 'kitchen'],
    [
      shapeOf('safety', { kind: 'limit_raise_refused', action: 'none', message: 'x', at }),
      'svc.safety.limit_raise_refused',
      'safety',
      'kitchen',
    ],
    [shapeOf('execution.state', { executionId: 'ex1', state: 'running', seq: 7, at }), 'svc.execution.state', 'execution', 'ex1'],
    [shapeOf('telemetry', { sensor: 'oil', svcSensor: 'oil_temp', tempC: 181.5, at }), 'svc.telemetry.reading', 'telemetry', 'oil'],
    [shapeOf('heater', { heater: 'h1', power: 0.4, at }), 'svc.device.heater', 'device', 'h1'],
    [shapeOf('task.updated', { taskId: 't1', sessionId: 's1', state: 'done', at, task: { seq: 3 } }), 'svc.task.updated', 'task', 't1'],
    [shapeOf('session.updated', { sessionId: 's1', state: 'confirmed', at, session: {} }), 'svc.session.updated', 'session', 's1'],
    [shapeOf('sync', { kind: 'recall', message: 'r', at }), 'svc.sync.recall', 'sync', 'index'],
    [shapeOf('device.heartbeat', { state: 'idle', at }), 'svc.device.heartbeat', 'device', 'hub'],
    // A reset is kitchen-wide like the stop it clears, whatever the trip's own subject (an e-stop's is "all").
    [shapeOf('safety', { ...tripEvent(at), kind: 'reset', action: 'none' }), 'svc.safety.reset', 'safety', 'kitchen'],
    [shapeOf('safety', { ...tripEvent(at, 'all'), kind: 'reset', action: 'none' }), 'svc.safety.reset', 'safety', 'kitchen'],
  ];
  for (const [shape, type, category, subject] of cases) {
    t.equal(shape.type, type);
    t.equal(shape.category, category, `${type} category`);
    t.equal(shape.subject, subject, `${type} subject`);
    t.equal(shape.time, at);
  }
  const trip = cases[0]![0];
  t.match(trip.data, { kind: 'trip', level: 'alarm', action: 'heat_off_all', reason: 'over_limit', zone: 'oil-max' });
  t.equal(cases[1]![0].data.level, 'emergency');
  t.same(cases[4]![0].data.readings, [{ sensor: 'oil_temp', value: 181.5, unit: 'degC' }]);
  t.equal(cases[3]![0].statusSeq, 7);
  t.equal(cases[6]![0].statusSeq, 3);
  t.equal(cases[6]![0].session, 's1');
  t.ok(ALARM_KINDS.has('svc.safety.estop') && !ALARM_KINDS.has('svc.safety.limit_raise_refused'));
});

t.test('a built event is a valid CloudEvent 1.0 with the svc extensions', async (t) => {
  const ce = buildCloudEvent(shapeOf('execution.state', { executionId: 'ex1', state: 'running', seq: 7, at, sessionId: 's9' }), {
    id: 'e-1',
    seq: 42,
    kitchenId: 'k1',
    source: 'svc://k1/hub',
  });
  const parsed = new CloudEvent({ ...ce }, true);
  t.equal(parsed.specversion, '1.0');
  t.equal(parsed.svcseq, 7, 'svcseq is the execution status seq');
  t.equal(parsed.svcsession, 's9');
  const other = buildCloudEvent(shapeOf('heater', { heater: 'h', power: 0, at }), { id: 'e-2', seq: 42, kitchenId: 'k1', source: 's' });
  t.equal(other.svcseq, 42, 'without a status seq, the hub sequence');
  t.notOk('svcsession' in other);
});

t.test('filters: prefixes, session, scopes; bad input is a clear error', async (t) => {
  const k = makeKitchen();
  const task = k.hub.publish('task.updated', { taskId: 't', sessionId: 's1', state: 'x', at, task: {} }).ce;
  const safety = k.hub.publish('safety', tripEvent(at)).ce;
  t.ok(matches(task, { types: ['svc.task.'], readAll: true }));
  t.notOk(matches(task, { types: ['svc.safety.'], readAll: true }));
  t.notOk(matches(task, { types: [], readAll: false }), 'without read only safety');
  t.ok(matches(safety, { types: [], readAll: false }));
  t.notOk(matches(task, { types: [], session: 's2', readAll: true }));
  t.ok(matches(safety, { types: [], session: 's2', readAll: true }), 'kitchen-wide safety passes a session filter');
  const relief = k.hub.publish('relief', { kind: 'need', at, id: 'need-1', status: 'open', record: {} }).ce;
  t.ok(matches(relief, { types: [], readAll: false, alsoTypes: scopeTypePrefixes(['relief']) }), 'a relief token reads relief');
  t.notOk(matches(task, { types: [], readAll: false, alsoTypes: scopeTypePrefixes(['relief']) }), 'and not tasks');
  t.notOk(matches(relief, { types: [], readAll: false, alsoTypes: scopeTypePrefixes(['cook']) }), 'a cook token does not read relief');
  t.same(parseTypes(' svc.task., svc.safety.estop ,'), ['svc.task.', 'svc.safety.estop']);
  t.throws(() => parseTypes('task.'), /not a type prefix/);
  t.throws(() => parseTypes(Array(40).fill('svc.').join(',')), /at most 32/);
  t.throws(() => parseSession('a\nb'), /session/);
  k.db.close();
});

t.test('journal: positions never repeat; pruning by age and row cap; a broken journal does not stop events', async (t) => {
  let clock = 1_000_000;
  const db = openStore();
  const journal = new EventJournal(db, () => clock, { ...DEFAULT_RETENTION, maxRows: 5 });
  const bus = new EventBus();
  const hub = new EventHub({ bus, journal, kitchenId: 'k1' });
  const seen: number[] = [];
  hub.addSink((ev) => seen.push(ev.pos));
  hub.start();
  bus.emit('telemetry', { sensor: 'a', svcSensor: 'a', tempC: 1, at });
  bus.emit('task.updated', { taskId: 't', state: 'x', at, task: {} });
  t.same(seen, [1, 2]);
  clock += DEFAULT_RETENTION.shortMs + 1;
  t.equal(journal.prune(), 1, 'telemetry goes after the short window');
  t.same(
    journal.readAfter(0).map((e) => e.pos),
    [2],
  );
  for (let i = 0; i < 8; i++) bus.emit('task.updated', { taskId: `t${i}`, state: 'x', at, task: {} });
  journal.prune();
  t.same(
    journal.readAfter(0).map((e) => e.pos),
    [6, 7, 8, 9, 10],
    'the row cap keeps the newest',
  );
  clock += DEFAULT_RETENTION.longMs + 1;
  journal.prune();
  t.equal(journal.oldest(), undefined);
  bus.emit('heater', { heater: 'h', power: 0, at });
  t.equal(seen.at(-1), 11, 'positions continue after everything was pruned');
  // Position 11 (heater output) was still queued: after a crash its position is skipped, never reused.
  t.ok(new EventJournal(db).nextPos() > 11, 'and after a restart');

  const errors: unknown[] = [];
  const failing = new EventHub({ bus: new EventBus(), journal, kitchenId: 'k1', onError: (_err, where) => errors.push(where) });
  const live: string[] = [];
  failing.addSink(() => {
    throw new Error('sink down');
  });
  failing.addSink((ev) => live.push(ev.ce.type));
  db.close();
  failing.publish('safety', tripEvent(at));
  t.same(live, ['svc.safety.limit_tripped'], 'the safety event still reaches the other sinks');
  t.same(errors, ['journal', 'sink']);
});
