/**
 * The one typed internal event bus. Producers (executor, supervisor, hub, sync) emit here; the hub's
 * transports (MQTT, SSE, WebSocket, webhooks) subscribe and turn each event into a CloudEvent.
 * Listeners run synchronously in emit order; a throwing listener is isolated and reported, never propagated
 * into the producer (a safety cut must not fail because a subscriber did).
 */
import type { SafetyTrip } from '../supervisor/types.js';

export interface BusEvents {
  /** A safety event: a trip, an e-stop, a reset, a refused attempt to raise a limit. */
  safety: {
    kind: 'trip' | 'estop' | 'reset' | 'limit_raise_refused' | 'cleared' | 'spoof_refused';
    trip?: SafetyTrip;
    action: 'none' | 'pause_all' | 'heat_off_all' | 'abort_session' | 'evacuate';
    message: string;
    at: string;
    executionId?: string;
    sessionId?: string;
    /** Who reset a safety stop (kind `reset`), or asked for the refused limit change (`limit_raise_refused`). */
    by?: string;
    /** Why, as the stopper gave it (an e-stop's reason); the CloudEvent falls back on the trip's reason code. */
    reason?: string;
    /** Who or what stopped (`human Amal`, `agent dinner agent`, `button`, `mqtt client c1`); see cloudevent.ts. */
    source?: string;
    /** Who caused it, when it came from outside (e.g. the MQTT client whose spoofed safety publish was refused). */
    origin?: { clientId: string; principal?: string; topic?: string };
  };
  /**
   * An execution changed state (or its status seq advanced). `reason` says why it stopped when something other
   * than a person's stop or a safety trip stopped it (`recall:<recall id>` for a recall).
   */
  'execution.state': { executionId: string; state: string; seq: number; outcome?: string; at: string; sessionId?: string; reason?: string };
  /** A sensor sample (telemetry). */
  telemetry: { sensor: string; svcSensor: string; tempC: number | null; fault?: string; at: string };
  /** Heater output changed. */
  heater: { heater: string; power: number; at: string };
  /** A hub task changed. */
  'task.updated': { taskId: string; sessionId?: string; state: string; at: string; task: Record<string, unknown> };
  /** A hub session changed. */
  'session.updated': { sessionId: string; state: string; at: string; session: Record<string, unknown> };
  /** Sync with an index: progress, success, a rejected document. */
  sync: { kind: 'started' | 'applied' | 'rejected' | 'failed' | 'recall'; message: string; at: string; detail?: Record<string, unknown> };
  /** Device availability / heartbeat. */
  'device.heartbeat': { at: string; state: string };
  /** The market (runtime/hub/market/market.ts): a quote request routed, a quote received, an order made from a quote or approved. */
  market: {
    kind: 'quote.requested' | 'quote.received' | 'order.created' | 'order.approved';
    at: string;
    requestId: string;
    routedTo?: string[];
    items?: number;
    quoteId?: string;
    orderId?: string;
    provider?: string;
    total?: { amount: number; currency: string };
    state?: string;
  };
  /**
   * A notification for people or devices (runtime/hub/notify/notify.ts): sent (`message`) or acknowledged. `notification`
   * is the stored Notification (id, audience, urgency, message, …); `sessionId` when it relates to a session.
   */
  notify: { kind: 'message' | 'acknowledged'; at: string; sessionId?: string; notification: Record<string, unknown> };
  /** A lease was granted, renewed, released, expired or revoked (runtime/hub/coordination/leases.ts). */
  lease: { kind: 'granted' | 'renewed' | 'released' | 'expired' | 'revoked'; lease: Record<string, unknown>; at: string };
  /** A handoff was proposed, accepted, completed, declined or expired (runtime/hub/coordination/handoffs.ts). */
  handoff: { kind: 'proposed' | 'accepted' | 'completed' | 'declined' | 'expired'; handoff: Record<string, unknown>; at: string };
  /**
   * Relief on a coordinator hub (runtime/hub/relief/relief.ts): a need, a pledge or an allocation was posted or changed
   * (`status` is its status, an allocation's state), or one side of an assignment's handover was acknowledged
   * (`id` the allocation, `pledgeId`, `step`; `record` the handover).
   */
  relief: {
    kind: 'need' | 'pledge' | 'allocation' | 'handover';
    at: string;
    id: string;
    status: string;
    needId?: string;
    pledgeId?: string;
    step?: 'delivered' | 'received';
    record: Record<string, unknown>;
  };
  /** The fleet bridge (runtime/mqtt/fleet-bridge.ts) changed state. */
  'bridge.state': { state: string; url: string; queued: number; dropped: number; at: string; message?: string };
}

export type BusEventName = keyof BusEvents;
type Listener<K extends BusEventName> = (payload: BusEvents[K], name: K) => void;

export class EventBus {
  private readonly listeners = new Map<BusEventName, Set<Listener<BusEventName>>>();
  private readonly any = new Set<(name: BusEventName, payload: BusEvents[BusEventName]) => void>();

  constructor(private readonly onListenerError: (err: unknown, name: BusEventName) => void = () => {}) {}

  on<K extends BusEventName>(name: K, fn: Listener<K>): () => void {
    let set = this.listeners.get(name);
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
    }
    set.add(fn as unknown as Listener<BusEventName>);
    return () => set.delete(fn as unknown as Listener<BusEventName>);
  }

  /** How many listeners `name` has (besides the `onAny` ones): tests wait on it to know a subscriber is in place. */
  listenerCount(name: BusEventName): number {
    return this.listeners.get(name)?.size ?? 0;
  }

  /** Subscribe to every event (transports use this). */
  onAny(fn: (name: BusEventName, payload: BusEvents[BusEventName]) => void): () => void {
    this.any.add(fn);
    return () => this.any.delete(fn);
  }

  emit<K extends BusEventName>(name: K, payload: BusEvents[K]): void {
    for (const fn of this.listeners.get(name) ?? []) {
      try {
        fn(payload, name);
      } catch (err) {
        this.onListenerError(err, name);
      }
    }
    for (const fn of this.any) {
      try {
        fn(name, payload);
      } catch (err) {
        this.onListenerError(err, name);
      }
    }
  }
}
