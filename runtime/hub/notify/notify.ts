/**
 * Notifications that arrive (spec §4.7 `notify`): a notification is stored, then goes on the event bus as the
 * CloudEvent `svc.notify.message`, which the hub's transports carry like every other event: the event stream
 * (SSE, WebSocket), the local MQTT bus (`svc/{k}/notify/{audience}`, one message per audience entry), signed
 * webhooks, and the dashboard (a toast or banner for the household). Audience and urgency follow the
 * reference's NotifyData: audience entries `role:household` (also `everyone`, `cook`, `admin`), `human:{id}`
 * (a person) and `device:{id}` (a device); urgency `info`, `action_needed`, `time_critical`, `emergency`
 * (the older `low`, `normal`, `high`, `critical` are accepted as the same four). An `emergency` stays retained
 * on the MQTT bus until someone acknowledges it. Each sender (token) has a budget of notifications (a token
 * bucket on the hub's clock); past it, 429 `rate-limited` with Retry-After. Safety events never pass through
 * here: they are neither counted nor held back by notifications.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { Principal } from '../../../platform/http/auth.js';
import { ProblemError } from '../../../platform/http/problems.js';
import type { EventBus } from '../../events/bus.js';
import { actorOf } from '../sessions/index.js';
import { type Actor, SVC_VERSION } from '../types.js';

export const URGENCIES = ['info', 'action_needed', 'time_critical', 'emergency'] as const;
export type Urgency = (typeof URGENCIES)[number];

/** The hub's earlier urgency words, accepted as the reference's four. */
export const URGENCY_ALIASES: Readonly<Record<string, Urgency>> = {
  low: 'info',
  normal: 'action_needed',
  high: 'time_critical',
  critical: 'emergency',
};

/** Bare role words accepted as `role:{word}`. */
const ROLE_WORDS = ['household', 'everyone', 'cook', 'admin'] as const;
const AUDIENCE_ENTRY = '^(?:household|everyone|cook|admin|(?:role|human|device):[A-Za-z0-9][A-Za-z0-9._-]{0,63})$';
const AUDIENCE = { type: 'string', pattern: AUDIENCE_ENTRY, maxLength: 80 } as const;
const LANG_MAP = {
  type: 'object',
  minProperties: 1,
  maxProperties: 30,
  additionalProperties: { type: 'string', minLength: 1, maxLength: 1000 },
  propertyNames: { pattern: '^[a-zA-Z]{2,3}(-[A-Za-z0-9]{2,8})*$' },
} as const;

/** The body of `POST /svc/v1/notify` and the arguments of the MCP tool `notify` (the reference's NotifyData). */
export const notifySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['audience', 'urgency', 'message'],
  properties: {
    audience: { anyOf: [AUDIENCE, { type: 'array', minItems: 1, maxItems: 20, uniqueItems: true, items: AUDIENCE }] },
    urgency: { enum: [...URGENCIES, ...Object.keys(URGENCY_ALIASES)] },
    message: LANG_MAP,
    actions: {
      type: 'array',
      maxItems: 5,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'label'],
        properties: { id: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,39}$' }, label: LANG_MAP },
      },
    },
    channels: { type: 'array', maxItems: 10, items: { type: 'string', minLength: 1, maxLength: 40 } },
    expiresAt: { type: 'string', format: 'date-time', maxLength: 40 },
    relatesTo: { type: 'string', minLength: 1, maxLength: 200 },
  },
} as const;

export interface NotifyInput {
  audience: string | string[];
  urgency: string;
  message: Record<string, string>;
  actions?: { id: string; label: Record<string, string> }[];
  channels?: string[];
  expiresAt?: string;
  relatesTo?: string;
}

export interface Notification {
  svc: string;
  kind: 'Notification';
  id: string;
  audience: string[];
  urgency: Urgency;
  message: Record<string, string>;
  actions?: { id: string; label: Record<string, string> }[];
  channels?: string[];
  expiresAt?: string;
  relatesTo?: string;
  from: Actor;
  at: string;
  acknowledged?: { by: Actor; at: string; actionId?: string };
}

/** What `notify` answers: 202 with the notification's id and where it went. */
export interface NotifyReceipt {
  id: string;
  state: 'delivered';
  at: string;
  audience: string[];
  urgency: Urgency;
  /** The event that carried it (`svc.notify.message`). */
  event: string;
}

export interface NotifyLimits {
  /** Notifications a token may send at once (default 10). */
  burst: number;
  /** Notifications a token regains per minute (default 10). */
  perMinute: number;
}

export const DEFAULT_NOTIFY_LIMITS: NotifyLimits = { burst: 10, perMinute: 10 };

export interface NotifyDeps {
  db: Database;
  bus: EventBus;
  /** The hub's clock (injectable; the rate limit runs on it). */
  now: () => number;
  /** Is `id` a session of this hub? (a notification that relates to one carries it as `svcsession`). */
  isSession?: (id: string) => boolean;
  limits?: Partial<NotifyLimits>;
}

/** `household` → `role:household`; other entries as given. */
export function normalizeAudience(a: string | string[]): string[] {
  const list = Array.isArray(a) ? a : [a];
  const out: string[] = [];
  for (const entry of list) {
    const norm = (ROLE_WORDS as readonly string[]).includes(entry) ? `role:${entry}` : entry;
    if (!out.includes(norm)) out.push(norm);
  }
  return out;
}

export function normalizeUrgency(u: string): Urgency {
  if ((URGENCIES as readonly string[]).includes(u)) return u as Urgency;
  const alias = URGENCY_ALIASES[u];
  if (!alias) throw new ProblemError('validation-failed', `urgency: ${JSON.stringify(u)} is not one of ${URGENCIES.join(', ')}`);
  return alias;
}

/** Does the household's shared screen show it? Any role (household, everyone, cook, admin); not a device's own. */
export function forHousehold(audience: readonly string[]): boolean {
  return audience.some((a) => a.startsWith('role:'));
}

export class NotifyService {
  private readonly buckets = new Map<string, { credit: number; at: number }>();
  private readonly limits: NotifyLimits;

  constructor(private readonly d: NotifyDeps) {
    this.limits = { ...DEFAULT_NOTIFY_LIMITS, ...d.limits };
  }

  private iso(): string {
    return new Date(this.d.now()).toISOString();
  }

  /**
   * Take one notification from `sender`'s budget, or refuse with 429 and the seconds until one is back. The budget
   * is kept in milliseconds of the hub's clock (one notification costs 60 000 / perMinute ms), so it is exact.
   */
  private take(sender: string): void {
    const now = this.d.now();
    const cost = 60_000 / this.limits.perMinute;
    const cap = this.limits.burst * cost;
    const b = this.buckets.get(sender) ?? { credit: cap, at: now };
    b.credit = Math.min(cap, b.credit + Math.max(0, now - b.at));
    b.at = now;
    this.buckets.set(sender, b);
    if (b.credit >= cost) {
      b.credit -= cost;
      return;
    }
    const retryAfter = Math.max(1, Math.ceil((cost - b.credit) / 1000));
    throw new ProblemError(
      'rate-limited',
      `a token may send ${this.limits.burst} notifications at once and ${this.limits.perMinute} a minute; try again in ${retryAfter} s`,
      { retryAfter },
      { 'Retry-After': String(retryAfter) },
    );
  }

  send(input: NotifyInput, by: Principal): NotifyReceipt {
    const urgency = normalizeUrgency(input.urgency);
    const audience = normalizeAudience(input.audience);
    if (input.expiresAt !== undefined && Date.parse(input.expiresAt) <= this.d.now())
      throw new ProblemError('validation-failed', `expiresAt ${input.expiresAt} has already passed`);
    this.take(by.id);
    const at = this.iso();
    const n: Notification = {
      svc: SVC_VERSION,
      kind: 'Notification',
      id: `ntf-${randomUUID()}`,
      audience,
      urgency,
      message: input.message,
      ...(input.actions ? { actions: input.actions } : {}),
      ...(input.channels ? { channels: input.channels } : {}),
      ...(input.expiresAt ? { expiresAt: input.expiresAt } : {}),
      ...(input.relatesTo ? { relatesTo: input.relatesTo } : {}),
      from: actorOf(by),
      at,
    };
    this.d.db.prepare('INSERT INTO hub_notifications (id, doc, created_at) VALUES (?, ?, ?)').run(n.id, JSON.stringify(n), this.d.now());
    this.emit('message', n, at);
    return { id: n.id, state: 'delivered', at, audience, urgency, event: 'svc.notify.message' };
  }

  get(id: string): Notification {
    const row = this.d.db.prepare('SELECT doc FROM hub_notifications WHERE id = ?').get(id) as { doc: string } | undefined;
    if (!row) throw new ProblemError('not-found', `no notification ${id} on this hub`);
    return JSON.parse(row.doc) as Notification;
  }

  /** The latest notifications, newest first (optionally only those addressed to `audience`). */
  list(limit = 50, audience?: string): Notification[] {
    const want = audience === undefined ? undefined : normalizeAudience(audience)[0];
    const rows = this.d.db
      .prepare('SELECT doc FROM hub_notifications ORDER BY created_at DESC, rowid DESC LIMIT ?')
      .all(want ? 1000 : limit) as {
      doc: string;
    }[];
    const all = rows.map((r) => JSON.parse(r.doc) as Notification);
    return (want === undefined ? all : all.filter((n) => n.audience.includes(want))).slice(0, limit);
  }

  /** Someone saw it (and maybe chose one of its actions): `svc.notify.acknowledged`; an emergency leaves the MQTT bus. */
  acknowledge(id: string, by: Principal, actionId?: string): Notification {
    const n = this.get(id);
    if (n.acknowledged) return n;
    if (actionId !== undefined && !(n.actions ?? []).some((a) => a.id === actionId))
      throw new ProblemError('validation-failed', `actionId ${JSON.stringify(actionId)} is not an action of ${id}`);
    const at = this.iso();
    n.acknowledged = { by: actorOf(by), at, ...(actionId ? { actionId } : {}) };
    this.d.db.prepare('UPDATE hub_notifications SET doc = ? WHERE id = ?').run(JSON.stringify(n), id);
    this.emit('acknowledged', n, at);
    return n;
  }

  private emit(kind: 'message' | 'acknowledged', n: Notification, at: string): void {
    const session = n.relatesTo !== undefined && this.d.isSession?.(n.relatesTo) ? n.relatesTo : undefined;
    this.d.bus.emit('notify', {
      kind,
      at,
      ...(session ? { sessionId: session } : {}),
      notification: n as unknown as Record<string, unknown>,
    });
  }
}
