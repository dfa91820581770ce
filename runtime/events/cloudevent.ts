/**
 * Bus events as CloudEvents 1.0 (structured mode, `application/cloudevents+json`), semantics §9. Every transport
 * (MQTT, SSE, WebSocket, webhooks) sends the same JSON for one event: the id is minted once, when the event is
 * journalled, and never changes, so a consumer that sees it twice (at-least-once delivery) drops the copy.
 */
import type { BusEventName, BusEvents } from './bus.js';
import { safetyReason, safetySource } from './safety-origin.js';

export const CLOUDEVENTS_CONTENT_TYPE = 'application/cloudevents+json';

/** Every event type the hub emits; each has a JSON Schema at schemas/events/{type}.schema.json. */
export const EVENT_TYPES = [
  'svc.safety.limit_tripped',
  'svc.safety.estop',
  'svc.safety.reset',
  'svc.safety.cleared',
  'svc.safety.limit_raise_refused',
  'svc.safety.spoof_refused',
  'svc.execution.state',
  'svc.telemetry.reading',
  'svc.device.heater',
  'svc.device.heartbeat',
  'svc.device.online',
  'svc.device.offline',
  'svc.task.updated',
  'svc.session.updated',
  'svc.sync.started',
  'svc.sync.applied',
  'svc.sync.rejected',
  'svc.sync.failed',
  'svc.sync.recall',
  'svc.bridge.state',
  'svc.quote.requested',
  'svc.quote.received',
  'svc.order.created',
  'svc.order.approved',
  'svc.notify.message',
  'svc.notify.acknowledged',
  'svc.lease.granted',
  'svc.lease.renewed',
  'svc.lease.released',
  'svc.lease.expired',
  'svc.lease.revoked',
  'svc.handoff.proposed',
  'svc.handoff.accepted',
  'svc.handoff.completed',
  'svc.handoff.declined',
  'svc.handoff.expired',
  'svc.relief.need',
  'svc.relief.pledge',
  'svc.relief.allocation',
  'svc.relief.handover',
] as const;

/** The structured-mode JSON of one event. Extension attributes are lower-case, per CloudEvents 1.0. */
export interface SvcCloudEvent {
  specversion: '1.0';
  id: string;
  source: string;
  type: string;
  subject?: string;
  time: string;
  datacontenttype: 'application/json';
  /** The status seq of the resource the event is about (an execution's seq), else the hub's event sequence. */
  svcseq: number;
  /** Kitchen id. */
  svckitchen: string;
  /** `safety` for every svc.safety.* event, else `normal` (telemetry: `low`). */
  svcpriority: 'safety' | 'high' | 'normal' | 'low';
  /** The session the event belongs to, when it has one. */
  svcsession?: string;
  /** The device's simulated time of the event (RFC 3339), only when the device runs on a simulated clock. */
  simtime?: string;
  data: Record<string, unknown>;
}

/** What the mapping decides about a bus event, before it has an id and a sequence. */
export interface EventShape {
  type: string;
  /** Second segment of the type: safety, execution, task, session, telemetry, device, sync. */
  category: string;
  /** What the event is about: a zone, an execution id, a task id, a sensor; the last MQTT topic level. */
  subject: string;
  session?: string;
  /** The resource's own status seq, when it has one. */
  statusSeq?: number;
  priority: SvcCloudEvent['svcpriority'];
  /** When it happened by the device clock (simulated on a simulated rig). */
  time: string;
  data: Record<string, unknown>;
}

type SafetyPayload = BusEvents['safety'];

const SAFETY_TYPES: Record<SafetyPayload['kind'], string> = {
  trip: 'svc.safety.limit_tripped',
  estop: 'svc.safety.estop',
  reset: 'svc.safety.reset',
  cleared: 'svc.safety.cleared',
  limit_raise_refused: 'svc.safety.limit_raise_refused',
  spoof_refused: 'svc.safety.spoof_refused',
};

const SAFETY_LEVELS: Record<SafetyPayload['kind'], 'warning' | 'alarm' | 'emergency'> = {
  trip: 'alarm',
  estop: 'emergency',
  reset: 'warning',
  cleared: 'warning',
  limit_raise_refused: 'warning',
  spoof_refused: 'warning',
};

/** Safety kinds that latch an alarm: retained on MQTT until a reset or cleared event. */
export const ALARM_KINDS: ReadonlySet<string> = new Set(['svc.safety.limit_tripped', 'svc.safety.estop']);
/** Safety kinds that end every alarm. */
export const CLEARING_KINDS: ReadonlySet<string> = new Set(['svc.safety.reset', 'svc.safety.cleared']);

function optional<T extends Record<string, unknown>>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

function safetyShape(p: SafetyPayload): EventShape {
  const type = SAFETY_TYPES[p.kind] ?? `svc.safety.${p.kind}`;
  // An e-stop, and the reset or clearing of any stop, concern the whole kitchen (the stop latched kitchen-wide).
  const zone = p.kind === 'estop' || p.kind === 'reset' || p.kind === 'cleared' || !p.trip ? 'kitchen' : p.trip.subject;
  return {
    type,
    category: 'safety',
    subject: zone,
    ...(p.sessionId ? { session: p.sessionId } : {}),
    priority: 'safety',
    time: p.at,
    data: optional({
      kind: p.kind,
      level: SAFETY_LEVELS[p.kind] ?? 'warning',
      action: p.action,
      zone,
      message: p.message,
      reason: safetyReason(p),
      source: safetySource(p),
      by: p.by,
      trip: p.trip,
      executionId: p.executionId,
      sessionId: p.sessionId,
      origin: p.origin,
    }),
  };
}

/** svcpriority of a notification by its urgency: never `safety` (that is the safety events' alone). */
const NOTIFY_PRIORITY: Record<string, SvcCloudEvent['svcpriority']> = {
  info: 'low',
  action_needed: 'normal',
  time_critical: 'high',
  emergency: 'high',
};

/**
 * `svc.notify.message` (data: the Notification) or `svc.notify.acknowledged` (data: id, audience, urgency, who
 * acknowledged). The subject is the first audience entry (the MQTT topic level; the bridge repeats the message on
 * the topic of every other entry).
 */
function notifyShape(p: BusEvents['notify']): EventShape {
  const n = p.notification;
  const audience = Array.isArray(n.audience) ? (n.audience as string[]) : [];
  const urgency = String(n.urgency);
  const data: Record<string, unknown> =
    p.kind === 'message'
      ? { ...n }
      : optional({ id: n.id, audience, urgency, relatesTo: n.relatesTo, acknowledged: n.acknowledged as Record<string, unknown> });
  return {
    type: `svc.notify.${p.kind}`,
    category: 'notify',
    subject: audience[0] ?? 'role:household',
    ...(p.sessionId ? { session: p.sessionId } : {}),
    priority: NOTIFY_PRIORITY[urgency] ?? 'normal',
    time: p.at,
    data,
  };
}

/** Map one bus event to its CloudEvent type, subject and data. Pure. */
export function shapeOf<K extends BusEventName>(name: K, payload: BusEvents[K]): EventShape {
  switch (name) {
    case 'safety':
      return safetyShape(payload as SafetyPayload);
    case 'execution.state': {
      const p = payload as BusEvents['execution.state'];
      return {
        type: 'svc.execution.state',
        category: 'execution',
        subject: p.executionId,
        ...(p.sessionId ? { session: p.sessionId } : {}),
        statusSeq: p.seq,
        priority: 'high',
        time: p.at,
        data: optional({
          executionId: p.executionId,
          state: p.state,
          seq: p.seq,
          outcome: p.outcome,
          sessionId: p.sessionId,
          reason: p.reason,
        }),
      };
    }
    case 'telemetry': {
      const p = payload as BusEvents['telemetry'];
      return {
        type: 'svc.telemetry.reading',
        category: 'telemetry',
        subject: p.sensor,
        priority: 'low',
        time: p.at,
        data: optional({
          readings: [{ sensor: p.svcSensor, value: p.tempC, unit: 'degC' }],
          sensor: p.sensor,
          fault: p.fault,
        }),
      };
    }
    case 'heater': {
      const p = payload as BusEvents['heater'];
      return {
        type: 'svc.device.heater',
        category: 'device',
        subject: p.heater,
        priority: 'normal',
        time: p.at,
        data: { heater: p.heater, power: p.power },
      };
    }
    case 'task.updated': {
      const p = payload as BusEvents['task.updated'];
      return {
        type: 'svc.task.updated',
        category: 'task',
        subject: p.taskId,
        ...(p.sessionId ? { session: p.sessionId } : {}),
        ...(typeof p.task.seq === 'number' ? { statusSeq: p.task.seq } : {}),
        priority: 'normal',
        time: p.at,
        data: optional({ taskId: p.taskId, state: p.state, sessionId: p.sessionId, task: p.task }),
      };
    }
    case 'session.updated': {
      const p = payload as BusEvents['session.updated'];
      return {
        type: 'svc.session.updated',
        category: 'session',
        subject: p.sessionId,
        session: p.sessionId,
        ...(typeof p.session.seq === 'number' ? { statusSeq: p.session.seq } : {}),
        priority: 'normal',
        time: p.at,
        data: { sessionId: p.sessionId, state: p.state, session: p.session },
      };
    }
    case 'sync': {
      const p = payload as BusEvents['sync'];
      return {
        type: `svc.sync.${p.kind}`,
        category: 'sync',
        subject: 'index',
        priority: p.kind === 'recall' ? 'high' : 'normal',
        time: p.at,
        data: optional({ kind: p.kind, message: p.message, detail: p.detail }),
      };
    }
    case 'market': {
      const p = payload as BusEvents['market'];
      return {
        type: `svc.${p.kind}`,
        category: p.kind.split('.')[0] ?? 'market',
        subject: p.orderId ?? p.quoteId ?? p.requestId,
        priority: 'normal',
        time: p.at,
        data: optional({
          requestId: p.requestId,
          routedTo: p.routedTo,
          items: p.items,
          quoteId: p.quoteId,
          orderId: p.orderId,
          provider: p.provider,
          total: p.total,
          state: p.state,
        }),
      };
    }
    case 'notify':
      return notifyShape(payload as BusEvents['notify']);
    case 'lease': {
      const p = payload as BusEvents['lease'];
      const l = p.lease;
      const session = typeof l.sessionId === 'string' ? l.sessionId : undefined;
      return {
        type: `svc.lease.${p.kind}`,
        category: 'lease',
        subject: String(l.id),
        ...(session ? { session } : {}),
        priority: p.kind === 'revoked' ? 'high' : 'normal',
        time: p.at,
        data: optional({
          leaseId: l.id,
          resource: l.resource,
          holder: l.holder,
          state: l.state,
          until: l.until,
          sessionId: session,
          lease: l,
        }),
      };
    }
    case 'handoff': {
      const p = payload as BusEvents['handoff'];
      const h = p.handoff;
      const session = typeof h.sessionId === 'string' ? h.sessionId : undefined;
      return {
        type: `svc.handoff.${p.kind}`,
        category: 'handoff',
        subject: String(h.id),
        ...(session ? { session } : {}),
        priority: 'normal',
        time: p.at,
        data: optional({ handoffId: h.id, state: h.state, taskId: h.taskId, sessionId: session, handoff: h }),
      };
    }
    case 'relief': {
      const p = payload as BusEvents['relief'];
      return {
        type: `svc.relief.${p.kind}`,
        category: 'relief',
        subject: p.id,
        priority: 'normal',
        time: p.at,
        data: optional({
          id: p.id,
          status: p.status,
          needId: p.needId,
          pledgeId: p.pledgeId,
          step: p.step,
          [p.kind]: p.record,
        }),
      };
    }
    case 'device.heartbeat': {
      const p = payload as BusEvents['device.heartbeat'];
      return { type: 'svc.device.heartbeat', category: 'device', subject: 'hub', priority: 'low', time: p.at, data: { state: p.state } };
    }
    default: {
      const n = String(name);
      const cat = n.split('.')[0] ?? n;
      const p = payload as unknown as Record<string, unknown>;
      return {
        type: `svc.${n.includes('.') ? n : `${n}.event`}`,
        category: cat,
        subject: 'hub',
        priority: 'normal',
        time: typeof p.at === 'string' ? p.at : new Date().toISOString(),
        data: { ...p },
      };
    }
  }
}

/**
 * Assemble the structured CloudEvent for a shape once it has an id and a hub sequence. `time` is always the
 * wall clock (`meta.wallTime`, default now); on a simulated clock the device's time of the event goes in the
 * `simtime` extension (`meta.simulated`).
 */
export function buildCloudEvent(
  shape: EventShape,
  meta: { id: string; seq: number; kitchenId: string; source: string; wallTime?: number; simulated?: boolean },
): SvcCloudEvent {
  const ce: SvcCloudEvent = {
    specversion: '1.0',
    id: meta.id,
    source: meta.source,
    type: shape.type,
    subject: shape.subject,
    time: new Date(meta.wallTime ?? Date.now()).toISOString(),
    datacontenttype: 'application/json',
    svcseq: shape.statusSeq ?? meta.seq,
    svckitchen: meta.kitchenId,
    svcpriority: shape.priority,
    data: shape.data,
  };
  if (shape.session) ce.svcsession = shape.session;
  if (meta.simulated) ce.simtime = shape.time;
  return ce;
}

/** The default CloudEvents `source` of a hub: `svc://{kitchenId}/hub`. */
export function defaultSource(kitchenId: string): string {
  return `svc://${encodeURIComponent(kitchenId)}/hub`;
}
