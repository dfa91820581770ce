/**
 * Every event type the hub emits has a JSON Schema in schemas/events/, and every emitted event validates
 * against it and against the CloudEvents 1.0 spec (the `cloudevents` SDK, strict). The events are produced by
 * the real mapping (EventHub.publish of a bus payload of every kind; the MQTT availability message), and the
 * test fails when a bus event maps to a type without a schema or a listed type is never produced.
 * Also: `time` is wall-clock, the simulated device time rides in `simtime`, safety events carry reason and source.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { CloudEvent } from 'cloudevents';
import t from 'tap';
import { availabilityMessage } from '../mqtt/bridge.js';
import type { BusEventName, BusEvents } from './bus.js';
import { EVENT_TYPES, type SvcCloudEvent } from './cloudevent.js';
import { EventHub } from './hub.js';
import { makeKitchen, tripEvent } from './testing.js';

type AddFormats = (ajv: Ajv2020) => Ajv2020;
const formatsExport = addFormatsModule as unknown as AddFormats & { default?: AddFormats };
const addFormats: AddFormats = typeof formatsExport.default === 'function' ? formatsExport.default : formatsExport;

const DIR = fileURLToPath(new URL('../../schemas/events/', import.meta.url));
const SIM = '2026-06-01T16:00:00.000Z';
const WALL = Date.UTC(2026, 10, 25, 9, 0, 0);

/** At least one payload of every bus event (and of every safety and sync kind). */
const SAMPLES: { [K in BusEventName]: BusEvents[K][] } = {
  safety: [
    tripEvent(SIM),
    { ...tripEvent(SIM, 'all'), kind: 'estop', reason: 'smoke in the kitchen', source: 'human Amal' },
    { ...tripEvent(SIM), kind: 'reset', action: 'none', by: 'human Amal' },
    { kind: 'cleared', action: 'none', message: 'the sensor reads again', at: SIM },
    { kind: 'limit_raise_refused', action: 'none', message: 'refused', by: 'agent x', at: SIM },
    {
      kind: 'spoof_refused',
      action: 'none',
      message: 'refused',
      at: SIM,
      origin: { clientId: 'c1', principal: 'tok_1', topic: 'svc/k1/safety/x' },
    },
  ],
  'execution.state': [{ executionId: 'ex1', state: 'running', seq: 7, at: SIM, sessionId: 's1' }],
  telemetry: [
    { sensor: 'oil', svcSensor: 'oil_temp', tempC: 181.5, at: SIM },
    { sensor: 'oil', svcSensor: 'oil_temp', tempC: null, fault: 'open', at: SIM },
  ],
  heater: [{ heater: 'h1', power: 0.4, at: SIM }],
  'task.updated': [{ taskId: 't1', sessionId: 's1', state: 'input_required', at: SIM, task: { id: 't1' } }],
  'session.updated': [{ sessionId: 's1', state: 'planned', at: SIM, session: { id: 's1' } }],
  sync: (['started', 'applied', 'rejected', 'failed', 'recall'] as const).map((kind) => ({ kind, message: kind, at: SIM })),
  'device.heartbeat': [{ state: 'idle', at: SIM }],
  'bridge.state': [{ state: 'connected', url: 'mqtts://fleet.example', queued: 0, dropped: 0, at: SIM }],
  market: [
    { kind: 'quote.requested', at: SIM, requestId: 'qr-1', routedTo: ['did:web:greengrocer.example'], items: 2 },
    {
      kind: 'quote.received',
      at: SIM,
      requestId: 'qr-1',
      quoteId: 'qt-1',
      provider: 'did:web:greengrocer.example',
      total: { amount: 17.5, currency: 'USD' },
    },
    ...(['order.created', 'order.approved'] as const).map((kind) => ({
      kind,
      at: SIM,
      requestId: 'qr-1',
      quoteId: 'qt-1',
      orderId: 'ord-1',
      provider: 'did:web:greengrocer.example',
      total: { amount: 17.5, currency: 'USD' },
      state: kind === 'order.created' ? 'awaiting_approval' : 'approved',
    })),
  ],
  notify: (['message', 'acknowledged'] as const).map((kind) => ({
    kind,
    at: SIM,
    sessionId: 's1',
    notification: {
      svc: '0.2.0',
      kind: 'Notification',
      id: 'ntf-1',
      audience: ['role:household', 'human:amal'],
      urgency: 'emergency',
      message: { en: 'Smoke near the stove', ar: 'دخان قرب الموقد' },
      actions: [{ id: 'seen', label: { en: 'Seen' } }],
      relatesTo: 's1',
      from: { kind: 'agent', id: 'tok_1' },
      at: SIM,
      ...(kind === 'acknowledged' ? { acknowledged: { by: { kind: 'human', id: 'tok_2' }, at: SIM, actionId: 'seen' } } : {}),
    },
  })),
  lease: (['granted', 'renewed', 'released', 'expired', 'revoked'] as const).map((kind) => ({
    kind,
    at: SIM,
    lease: {
      id: 'lease-1',
      resource: 'demo:hob/pan',
      holder: 's1',
      sessionId: 's1',
      state: kind === 'renewed' ? 'granted' : kind,
      until: SIM,
    },
  })),
  handoff: (['proposed', 'accepted', 'completed', 'declined', 'expired'] as const).map((kind) => ({
    kind,
    at: SIM,
    handoff: { id: 'hof-1', state: kind, taskId: 't1', sessionId: 's1' },
  })),
  relief: [
    { kind: 'need', at: SIM, id: 'need-1', status: 'open', record: { id: 'need-1', people: 650 } },
    { kind: 'pledge', at: SIM, id: 'pl-1', status: 'allocated', record: { id: 'pl-1', kind: 'robot_capacity' } },
    { kind: 'allocation', at: SIM, id: 'alloc-1', status: 'allocated', needId: 'need-1', record: { id: 'alloc-1' } },
    {
      kind: 'handover',
      at: SIM,
      id: 'alloc-1',
      status: 'in_transit',
      needId: 'need-1',
      pledgeId: 'pl-1',
      step: 'delivered',
      record: { pledge: 'pl-1' },
    },
  ],
};

function emitted(simulated: boolean): SvcCloudEvent[] {
  const k = makeKitchen();
  const hub = new EventHub({ bus: k.bus, journal: k.journal, kitchenId: 'k1', wallNow: () => WALL, simulated });
  const out: SvcCloudEvent[] = [];
  for (const name of Object.keys(SAMPLES) as BusEventName[])
    for (const payload of SAMPLES[name] as BusEvents[BusEventName][]) out.push(hub.publish(name, payload).ce);
  // The bridge builds availability itself, from the wall clock (there is no device time to carry).
  const wall = new Date(WALL).toISOString();
  for (const online of [true, false]) out.push(JSON.parse(availabilityMessage(hub, online, wall).payload as string) as SvcCloudEvent);
  k.db.close();
  return out;
}

t.test('every emitted event type has a schema and validates against it and the CloudEvents spec', async (t) => {
  const ajv = addFormats(new Ajv2020({ allErrors: true, strict: true }));
  for (const f of readdirSync(DIR)) ajv.addSchema(JSON.parse(readFileSync(join(DIR, f), 'utf8')) as object);
  const files = readdirSync(DIR).filter((f) => f.startsWith('svc.'));
  t.same(files.map((f) => f.replace(/\.schema\.json$/, '')).sort(), [...EVENT_TYPES].sort(), 'one schema per listed type');

  const events = emitted(true);
  const seen = new Set(events.map((e) => e.type));
  t.same(
    [...EVENT_TYPES].filter((ty) => !seen.has(ty)),
    [],
    'every listed type is produced by the mapping',
  );
  for (const ce of events) {
    t.ok((EVENT_TYPES as readonly string[]).includes(ce.type), `${ce.type} is a listed type`);
    const check = ajv.getSchema(`https://schemas.hearth.dev/svc/0.2/events/${ce.type}.schema.json`);
    if (!check) {
      t.fail(`no schema for ${ce.type}`);
      continue;
    }
    t.ok(check(ce), `${ce.type} validates against its schema: ${JSON.stringify(check.errors ?? [])}`);
    t.doesNotThrow(() => new CloudEvent(ce as unknown as Record<string, unknown>, true), `${ce.type} is a valid CloudEvent`);
  }
  // A schema that would pass anything proves nothing: a broken event must fail.
  const broken = { ...events[1], data: { ...(events[1]?.data ?? {}), source: undefined } };
  const estop = ajv.getSchema('https://schemas.hearth.dev/svc/0.2/events/svc.safety.estop.schema.json');
  t.equal(estop?.(JSON.parse(JSON.stringify(broken))), false, 'an e-stop without its source fails its schema');
});

t.test('time is wall-clock RFC 3339; simulated time, when any, is the simtime extension', async (t) => {
  for (const ce of emitted(true)) {
    t.equal(ce.time, new Date(WALL).toISOString(), `${ce.type} time is the wall clock`);
    if (!ce.type.startsWith('svc.device.o')) t.equal(ce.simtime, SIM, `${ce.type} carries the simulated time`);
  }
  for (const ce of emitted(false)) t.notOk('simtime' in ce, `${ce.type}: no simtime on a real clock`);
});

t.test('safety events say why and who or what', async (t) => {
  const by = Object.fromEntries(
    emitted(false)
      .filter((e) => e.type.startsWith('svc.safety.'))
      .map((e) => [e.type, e.data]),
  );
  t.match(by['svc.safety.estop'], { reason: 'smoke in the kitchen', source: 'human Amal' });
  t.match(by['svc.safety.limit_tripped'], { reason: 'over_limit', source: 'supervisor' });
  t.match(by['svc.safety.reset'], { reason: 'over_limit', source: 'human Amal' });
  t.match(by['svc.safety.limit_raise_refused'], { source: 'agent x' });
  t.match(by['svc.safety.spoof_refused'], { source: 'mqtt client c1' });
});
