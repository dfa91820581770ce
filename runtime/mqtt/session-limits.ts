/**
 * What a kept MQTT session may hold while its client is away. aedes keeps the QoS 1/2 messages of a client that
 * connected with clean start off (MQTT 3.1.1 `clean: false`, or MQTT 5 with a Session Expiry Interval) until it
 * comes back, in memory and without a bound: a panel that subscribed to `svc/{k}/#` and was unplugged would
 * grow the hub's heap by every execution, task and session event until a small board runs out of memory.
 *
 * Bounds, as mosquitto has them (`max_queued_messages`, `persistent_client_expiration`):
 * - `maxQueued` messages per absent client; beyond it new messages for that client are dropped (not the oldest:
 *   what was queued first is kept, as mosquitto does), counted, and logged once per client. Retained state (a
 *   safety alarm, availability) still reaches the client when it subscribes again.
 * - `maxExpirySeconds`: an MQTT 5 Session Expiry Interval above it (0xFFFFFFFF "never" included) is clamped.
 * - `maxPending`: at most this many absent sessions are kept at once; a newer one ends with its connection.
 *   (MQTT 3.1.1 sessions with `clean: false` have no expiry in aedes; `maxQueued` bounds them.)
 * `maxQueued` also bounds what waits for a connected client's Receive Maximum window (scripts/patch-aedes.mjs,
 * `outgoingHeldLimit`), and a shared subscription costs one group member per subscription (mqtt5.ts).
 */
import { createRequire } from 'node:module';

// aedes-persistence is CommonJS whose declarations claim an ES default export; require() gives the factory plainly.
const memoryPersistence = createRequire(import.meta.url)('aedes-persistence') as (() => object) & {
  /** aedes' packet copy (aedes-packet), exported by aedes-persistence. */
  Packet: new (
    original: unknown,
  ) => object;
};
const { Packet } = memoryPersistence;

export interface SessionLimits {
  maxQueued: number;
  maxExpirySeconds: number;
  maxPending: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = { maxQueued: 1000, maxExpirySeconds: 7 * 86400, maxPending: 256 };

interface Sub {
  clientId: string;
}

/** The part of aedes' persistence this wrapper touches (the packages' own types do not declare `outgoingStream`'s shape). */
interface OutgoingQueues {
  outgoingEnqueueCombi(subs: Sub[], packet: unknown): Promise<void> | undefined;
  outgoingStream(client: { id: string }): AsyncIterable<unknown>;
  /** The broker, once aedes has set the persistence up. */
  broker?: { clients: Record<string, unknown> };
}

/**
 * aedes' in-memory persistence with a cap on each absent client's queue. aedes queues every QoS 1/2 message for
 * each kept session through `outgoingEnqueueCombi`, connected or not, and a connected client's delivery then
 * expects its message in the queue: only a client that is not connected has messages dropped.
 * The count per client is an estimate that only grows; while it is under the cap a message is queued at once,
 * in the caller's turn (aedes reuses its packet objects once the call returns). Past the cap the real queue is
 * counted (the client may have come back and acknowledged), in order with that client's later messages, so a
 * client that drains its queue costs one recount per `maxQueued` messages.
 */
export function boundedPersistence(maxQueued: number, onDrop: (clientId: string, dropped: number) => void) {
  const persistence = memoryPersistence();
  const queues = persistence as unknown as OutgoingQueues;
  const enqueue = queues.outgoingEnqueueCombi.bind(persistence);
  const estimate = new Map<string, number>();
  const dropped = new Map<string, number>();
  /** Clients whose queue is being recounted: their messages wait their turn behind it. */
  const recounting = new Map<string, Promise<void>>();
  const connected = (clientId: string) => queues.broker?.clients[clientId] !== undefined;

  const recount = async (clientId: string, packet: object): Promise<void> => {
    let actual = 0;
    for await (const _ of queues.outgoingStream({ id: clientId })) actual++;
    if (actual < maxQueued || connected(clientId)) {
      estimate.set(clientId, actual + 1);
      dropped.delete(clientId);
      await enqueue([{ clientId }], packet);
      return;
    }
    estimate.set(clientId, actual);
    const d = (dropped.get(clientId) ?? 0) + 1;
    dropped.set(clientId, d);
    onDrop(clientId, d);
  };

  queues.outgoingEnqueueCombi = (subs: Sub[], packet: unknown): Promise<void> => {
    const now: Sub[] = [];
    const later: Promise<void>[] = [];
    let copy: object | undefined;
    for (const s of subs) {
      const id = s.clientId;
      const n = (estimate.get(id) ?? 0) + 1;
      const behind = recounting.get(id);
      if (!behind && (n <= maxQueued || connected(id))) {
        estimate.set(id, n);
        now.push(s);
        continue;
      }
      copy ??= new Packet(packet);
      const pkt = copy;
      const next = (behind ?? Promise.resolve()).then(() => recount(id, pkt));
      const mine = next.finally(() => {
        if (recounting.get(id) === mine) recounting.delete(id);
      });
      recounting.set(id, mine);
      later.push(mine);
    }
    const first = (now.length > 0 ? enqueue(now, packet) : undefined) ?? Promise.resolve();
    return later.length === 0 ? first : Promise.all([first, ...later]).then(() => undefined);
  };
  return persistence;
}
