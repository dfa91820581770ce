/**
 * MQTT 5 behaviours the embedded broker adds to aedes through its hooks (broker.ts wires them), beside the small
 * edits scripts/patch-aedes.mjs carries (Receive Maximum toward the client, shared subscriptions allowed through,
 * refusal reason codes other than 0x87):
 * - shared subscriptions `$share/{group}/{filter}` (§4.8.2): one listener per group and filter, each message to
 *   one member, taken in turn;
 * - the client's Maximum Packet Size (§3.1.2.11.4): a message that would not fit is not sent to that client;
 * - Message Expiry Interval (§3.3.2.3.3): an expired message is not delivered, others go with the time left;
 * - Payload Format Indicator 1 with a payload that is not UTF-8: refused with 0x99 (§3.3.2.3.2).
 */
import { TextDecoder } from 'node:util';
import mqttPacket from 'mqtt-packet';

const SHARE = '$share/';

/** `$share/{group}/{filter}` → its parts; undefined for anything else or a malformed one ([MQTT-4.8.2-1], [MQTT-4.8.2-2]). */
export function parseShared(topic: string): { group: string; filter: string } | undefined {
  if (!topic.startsWith(SHARE)) return undefined;
  const rest = topic.slice(SHARE.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) return undefined;
  const group = rest.slice(0, slash);
  const filter = rest.slice(slash + 1);
  if (/[+#]/.test(group) || filter === '') return undefined;
  return { group, filter };
}

export const isSharedTopic = (topic: string): boolean => topic.startsWith(SHARE);

type Deliver = (packet: { topic: string }, cb: () => void) => void;

interface Group {
  filter: string;
  members: Deliver[];
  next: number;
  listener: Deliver;
}

interface Subscribable {
  subscribe(topic: string, func: Deliver, done?: (err?: Error) => void): void;
  unsubscribe(topic: string, func: Deliver, done?: (err?: Error) => void): void;
  sharedSubscriptions?: boolean;
}

/**
 * Offer shared subscriptions on `broker`: a subscription to `$share/g/f` joins group g on filter f instead of
 * listening on its literal topic. Bounded by what subscriptions already cost: one member entry per subscription,
 * one group per (group, filter) with at least one member. Returns how many groups exist (for tests).
 */
export function offerSharedSubscriptions(broker: Subscribable): () => number {
  const groups = new Map<string, Group>();
  const subscribe = broker.subscribe.bind(broker);
  const unsubscribe = broker.unsubscribe.bind(broker);
  broker.sharedSubscriptions = true;
  broker.subscribe = (topic, func, done) => {
    const shared = parseShared(topic);
    if (!shared) return subscribe(topic, func, done);
    let g = groups.get(topic);
    if (!g) {
      const group: Group = { filter: shared.filter, members: [], next: 0, listener: () => {} };
      const wildcardFirst = shared.filter.startsWith('+') || shared.filter.startsWith('#');
      group.listener = (packet, cb) => {
        // [MQTT-4.7.2-1] a filter starting with a wildcard does not match $ topics.
        if (group.members.length === 0 || (wildcardFirst && packet.topic.startsWith('$'))) return cb();
        const member = group.members[group.next % group.members.length] as Deliver;
        group.next = (group.next + 1) % group.members.length;
        member(packet, cb);
      };
      g = group;
      groups.set(topic, g);
      g.members.push(func);
      return subscribe(shared.filter, g.listener, done);
    }
    g.members.push(func);
    done?.();
  };
  broker.unsubscribe = (topic, func, done) => {
    const g = parseShared(topic) ? groups.get(topic) : undefined;
    if (!parseShared(topic)) return unsubscribe(topic, func, done);
    if (!g) return done?.();
    const i = g.members.indexOf(func);
    if (i !== -1) g.members.splice(i, 1);
    if (g.members.length > 0) return done?.();
    groups.delete(topic);
    unsubscribe(g.filter, g.listener, done);
  };
  return () => groups.size;
}

interface OutgoingPublish {
  topic: string;
  payload?: unknown;
  qos?: number;
  retain?: boolean;
  properties?: Record<string, unknown>;
  /** aedes: absolute expiry time (ms) of a message with a Message Expiry Interval. */
  messageExpiry?: number;
}

/** The bytes `packet` takes on the wire as an MQTT 5 PUBLISH to a client (with a packet identifier when QoS > 0). */
export function wireSize(packet: OutgoingPublish): number {
  const qos = packet.qos ?? 0;
  return mqttPacket.generate(
    {
      cmd: 'publish',
      topic: packet.topic,
      payload: (packet.payload as Buffer | string | undefined) ?? Buffer.alloc(0),
      qos: qos as 0 | 1 | 2,
      dup: false,
      retain: packet.retain ?? false,
      ...(qos > 0 ? { messageId: 65535 } : {}),
      ...(packet.properties ? { properties: stripUndefined(packet.properties) } : {}),
    } as mqttPacket.IPublishPacket,
    { protocolVersion: 5 },
  ).length;
}

function stripUndefined(o: Record<string, unknown>): Record<string, unknown> {
  const r: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) r[k] = v;
  return r;
}

/**
 * What to forward to a client: undefined when the message expired or would exceed the client's Maximum Packet
 * Size; otherwise the packet, with the Message Expiry Interval set to the time left (a copy: aedes shares the
 * properties object between subscribers).
 */
export function forwardable<P extends OutgoingPublish>(packet: P, maximumPacketSize: number | undefined, now: number): P | undefined {
  let out = packet;
  if (packet.messageExpiry !== undefined) {
    const left = packet.messageExpiry - now;
    if (left <= 0) return undefined;
    out = { ...packet, properties: { ...packet.properties, messageExpiryInterval: Math.ceil(left / 1000) } };
  }
  if (maximumPacketSize !== undefined && maximumPacketSize > 0 && wireSize(out) > maximumPacketSize) return undefined;
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A PUBLISH whose Payload Format Indicator says UTF-8 but whose payload is not (or holds U+0000). */
export function payloadFormatInvalid(packet: { payload?: unknown; properties?: { payloadFormatIndicator?: unknown } }): boolean {
  if (!packet.properties?.payloadFormatIndicator) return false;
  const p = packet.payload;
  const bytes = Buffer.isBuffer(p) ? p : typeof p === 'string' ? Buffer.from(p) : Buffer.alloc(0);
  try {
    return utf8.decode(bytes).includes(String.fromCharCode(0));
  } catch {
    return true;
  }
}

/** An Error aedes' (patched) authorizePublish answers with `reasonCode` in the PUBACK/PUBREC. */
export function reasonError(message: string, reasonCode: number): Error {
  return Object.assign(new Error(message), { reasonCode });
}
