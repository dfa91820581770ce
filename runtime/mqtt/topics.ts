/**
 * MQTT topics of a kitchen (semantics §9): `svc/{kitchenId}/{category}/{subject}`, with the QoS and retain
 * flag of each category, and the access rules of the embedded broker. Pure functions; the broker and the
 * external-broker client both use them, so the same topics leave Hearth either way.
 */
import { grantsPublish, grantsReceive, grantsSubscribe, type MqttGrants } from '../../platform/http/mqtt-grants.js';
import { ALARM_KINDS } from '../events/cloudevent.js';
import { canReadAll, scopeCategories } from '../events/filter.js';
import type { StoredEvent } from '../events/journal.js';

export type QoS = 0 | 1 | 2;

export const KITCHEN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Categories whose events go QoS 1 (at least once): lifecycle and coordination. */
const QOS1 = new Set(['task', 'lease', 'handoff', 'relief', 'ccp', 'session', 'execution', 'sync', 'order', 'notify', 'availability']);

/** Client-published command topics, beyond which a client may publish nothing (the hub publishes the rest). */
export const CLIENT_COMMANDS: ReadonlyArray<{ category: string; subject: string; scopes: 'any' | readonly string[]; what: string }> = [
  { category: 'command', subject: 'estop', scopes: 'any', what: 'e-stop request: the hub cuts all heat and latches a stop' },
];

/**
 * Home Assistant MQTT discovery (runtime/homeassistant): the hub publishes retained entity configs under this
 * prefix; a client with `read` (or `admin`) may subscribe to them and announce Home Assistant's status (the
 * `ha_status` command, after which the hub republishes its configs).
 */
export const HA_DISCOVERY_PREFIX = 'homeassistant';
export const HA_STATUS_TOPIC = `${HA_DISCOVERY_PREFIX}/status`;

/** Categories a token without `read`/`admin` may still subscribe to and receive. */
export const OPEN_CATEGORIES: ReadonlySet<string> = new Set(['safety', 'availability']);

/** May a token without `read`/`admin` read `category`: an open one, or one of its scopes' areas (a `relief` token: relief)? */
function mayReadCategory(category: string | undefined, scopes: readonly string[]): boolean {
  return category !== undefined && (OPEN_CATEGORIES.has(category) || scopeCategories(scopes).includes(category));
}

/** One topic level from an id: MQTT separators and wildcards become `_`, an empty value `_`. */
export function topicLevel(value: string): string {
  const s = value.replace(/[/+#]/g, '_').replaceAll(String.fromCharCode(0), '_').slice(0, 200);
  return s === '' ? '_' : s;
}

export function topicOf(kitchenId: string, category: string, subject: string): string {
  return `svc/${kitchenId}/${topicLevel(category)}/${topicLevel(subject)}`;
}

export function availabilityTopic(kitchenId: string): string {
  return `svc/${kitchenId}/availability/hub`;
}

export function commandTopic(kitchenId: string, subject: string): string {
  return `svc/${kitchenId}/command/${subject}`;
}

/** The category of the hub's answers to command requests (runtime/mqtt/commands.ts). */
export const REPLY_CATEGORY = 'reply';

/**
 * The reply topics of a client: `svc/{k}/reply/{clientId}` and below. Only that client may subscribe to them and
 * receive on them, whatever its scopes, so an answer reaches the one who asked. A client id that is not a valid
 * single topic level (empty, or with `/`, `+`, `#`) has no reply topics.
 */
export function replyTopicRoot(kitchenId: string, clientId: string): string | undefined {
  if (clientId === '' || clientId.length > 200 || /[/+#]/.test(clientId) || clientId.includes(String.fromCharCode(0))) return undefined;
  return `svc/${kitchenId}/${REPLY_CATEGORY}/${clientId}`;
}

/** Is `topic` (a topic name or a filter) under the reply topics of `clientId`? */
export function isOwnReplyTopic(kitchenId: string, topic: string, clientId: string | undefined): boolean {
  const root = clientId === undefined ? undefined : replyTopicRoot(kitchenId, clientId);
  return root !== undefined && (topic === root || topic.startsWith(`${root}/`));
}

/** A command request's topic `svc/{k}/command/{operation}` → the operation, or undefined. */
export function commandOf(kitchenId: string, topic: string): string | undefined {
  const parts = topic.split('/');
  return parts.length === 4 && parts[0] === 'svc' && parts[1] === kitchenId && parts[2] === 'command' && parts[3] ? parts[3] : undefined;
}

export interface Placement {
  topic: string;
  qos: QoS;
  retain: boolean;
}

/** Where and how an event goes on the bus. Safety alarms are retained (until cleared); telemetry is QoS 0. */
export function placementOf(kitchenId: string, ev: StoredEvent): Placement {
  const topic = topicOf(kitchenId, ev.category, ev.ce.subject ?? 'hub');
  if (ev.category === 'safety') return { topic, qos: 2, retain: ALARM_KINDS.has(ev.ce.type) };
  // An emergency notification stays on the bus (retained) until someone acknowledges it.
  if (ev.category === 'notify') return { topic, qos: 1, retain: isEmergencyNotice(ev) };
  return { topic, qos: QOS1.has(ev.category) ? 1 : 0, retain: false };
}

/** A `svc.notify.message` of urgency `emergency`. */
export function isEmergencyNotice(ev: StoredEvent): boolean {
  return ev.ce.type === 'svc.notify.message' && ev.ce.data.urgency === 'emergency';
}

/** A notification's topics: `svc/{k}/notify/{entry}` for every audience entry (the subject, the first, included). */
export function notifyTopics(kitchenId: string, ev: StoredEvent): string[] {
  const audience = Array.isArray(ev.ce.data.audience) ? (ev.ce.data.audience as unknown[]).map(String) : [];
  const topics = [ev.ce.subject ?? 'hub', ...audience].map((a) => topicOf(kitchenId, 'notify', a));
  return [...new Set(topics)];
}

export interface AclPrincipal {
  id: string;
  name: string;
  scopes: readonly string[];
  /** The MQTT client id of the connection (its reply topics are its own). */
  clientId?: string;
  /** Operator topic grants outside `svc/` (platform/http/mqtt-grants.ts). */
  mqtt?: MqttGrants;
}

export type PublishVerdict = { ok: true; command?: string } | { ok: false; reason: string; spoof: boolean };

/** May this client publish on `topic`? Only the listed commands; a safety topic is a spoof attempt. */
export function checkPublish(kitchenId: string, topic: string, who: AclPrincipal): PublishVerdict {
  const parts = topic.split('/');
  if (parts[0] === 'svc' && parts[2] === 'safety') return { ok: false, reason: 'only the hub publishes safety events', spoof: true };
  if (topic === HA_STATUS_TOPIC && canReadAll(who.scopes)) return { ok: true, command: 'ha_status' };
  if (parts.length === 4 && parts[0] === 'svc' && parts[1] === kitchenId) {
    const cmd = CLIENT_COMMANDS.find((c) => c.category === parts[2] && c.subject === parts[3]);
    if (cmd && (cmd.scopes === 'any' || cmd.scopes.some((s) => who.scopes.includes(s)))) return { ok: true, command: cmd.subject };
  }
  // An operator grant (never svc/…, homeassistant/… or $…: mqtt-grants.ts refuses those).
  if (grantsPublish(who.mqtt, topic)) return { ok: true };
  return { ok: false, reason: 'not authorized to publish on this topic', spoof: false };
}

/**
 * May this client subscribe with `filter`? `read`/`admin` anything of the kitchen; others safety, availability and
 * their scopes' categories (a `relief` token `svc/{k}/relief/#`).
 */
export function checkSubscribe(kitchenId: string, filter: string, who: AclPrincipal): boolean {
  if (filter.startsWith('$')) return false;
  if (grantsSubscribe(who.mqtt, filter)) return true;
  if (isOwnReplyTopic(kitchenId, filter, who.clientId)) return true;
  const parts = filter.split('/');
  // Another client's reply topics: refused (a wildcard over them subscribes, but delivers none: canReceive).
  if (parts[0] === 'svc' && parts[2] === REPLY_CATEGORY && parts[3] !== '+' && parts[3] !== '#' && parts[3] !== undefined) return false;
  if (canReadAll(who.scopes) && parts[0] === HA_DISCOVERY_PREFIX) return true;
  if (canReadAll(who.scopes)) {
    // Anything that only matches this kitchen's topics (or everything: the bus carries nothing else).
    return (
      parts[0] === '#' ||
      ((parts[0] === 'svc' || parts[0] === '+') && (parts.length === 1 || ['#', '+', kitchenId].includes(parts[1] ?? '')))
    );
  }
  return (
    parts.length >= 3 &&
    (parts[0] === 'svc' || parts[0] === '+') &&
    (parts[1] === kitchenId || parts[1] === '+') &&
    mayReadCategory(parts[2], who.scopes)
  );
}

/** May this client receive a message on `topic` (checked on every delivery, behind any wildcard)? */
export function canReceive(kitchenId: string, topic: string, who: AclPrincipal): boolean {
  const parts = topic.split('/');
  if (parts[0] === HA_DISCOVERY_PREFIX) return canReadAll(who.scopes);
  if (parts[0] !== 'svc') return grantsReceive(who.mqtt, topic);
  if (parts[1] !== kitchenId) return false;
  // Replies go to the client that asked, never to a reader of the whole kitchen.
  if (parts[2] === REPLY_CATEGORY) return isOwnReplyTopic(kitchenId, topic, who.clientId);
  // Requests are for the hub: only the e-stop (which others may want to see) reaches readers.
  if (parts[2] === 'command' && !CLIENT_COMMANDS.some((c) => c.subject === parts[3])) return false;
  return canReadAll(who.scopes) || mayReadCategory(parts[2], who.scopes);
}
