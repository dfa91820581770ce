/**
 * What the dashboard shows, kept from the event bus: the latest reading of every sensor and a downsampled
 * history (one point per sensor per second of device time, the last `windowMs`), heater power, the safety state
 * with any latched trip and its hint, the current execution and step, recent sessions with their open tasks, and
 * the household's notifications (runtime/hub/notify/notify.ts) until someone acknowledges them.
 * `snapshot()` is the page's first paint; `subscribe()` streams the changes.
 */
import type { AppContext } from '../app/context.js';
import type { ExecutionStatus } from '../executor/types.js';
import { forHousehold } from '../hub/notify/index.js';
import { type CookingView, cookingView, type SensorLimit, sensorLimits } from './cooking.js';

export interface SessionsSource {
  sessions: { list(limit?: number): Array<{ id: string; state: string; recipes: unknown[]; serveAt: string; current?: number }> };
  tasks: {
    list(sessionId?: string, limit?: number): Array<{ id: string; sessionId: string; kind: string; state: string; message: unknown }>;
  };
}

export type DashboardMessage =
  | { type: 'telemetry'; sensor: string; tempC: number | null; fault?: string; at: string }
  | { type: 'heater'; heater: string; power: number; at: string }
  | { type: 'safety'; safety: SafetyView }
  | { type: 'execution'; execution: ExecutionStatus | null; cooking: CookingView | null; limits: Record<string, SensorLimit> }
  | { type: 'sessions'; sessions: unknown[]; tasks: unknown[] }
  | { type: 'notices'; notices: NoticeView[] };

/** A notification for the household on the screen (runtime/hub/notify/notify.ts), until acknowledged or expired. */
export interface NoticeView {
  id: string;
  urgency: string;
  message: Record<string, string>;
  at: string;
  from: string;
  relatesTo?: string;
  expiresAt?: string;
}

/** How many notices the screen holds (the oldest goes first). */
const MAX_NOTICES = 5;

export interface SafetyView {
  latched: boolean;
  trip?: { reason: string; subject: string; message: string; hint: string; at: string };
}

interface Point {
  t: number;
  v: number | null;
}

const FINAL_TASK = new Set(['completed', 'failed', 'canceled', 'rejected']);

export class DashboardModel {
  private readonly history = new Map<string, Point[]>();
  private readonly latest = new Map<string, { tempC: number | null; fault?: string; at: string }>();
  private readonly listeners = new Set<(m: DashboardMessage) => void>();
  private readonly offs: Array<() => void> = [];
  private lastExecution: string | undefined;
  private notices: NoticeView[] = [];

  constructor(
    private readonly ctx: AppContext,
    private readonly o: { windowMs?: number; hub?: () => SessionsSource | undefined } = {},
  ) {}

  start(): void {
    const { bus } = this.ctx;
    this.offs.push(
      bus.on('telemetry', (e) => {
        this.record(e.sensor, e.tempC, e.at, e.fault);
        this.send({ type: 'telemetry', sensor: e.sensor, tempC: e.tempC, ...(e.fault ? { fault: e.fault } : {}), at: e.at });
      }),
      bus.on('heater', (e) => this.send({ type: 'heater', heater: e.heater, power: e.power, at: e.at })),
      bus.on('safety', () => this.send({ type: 'safety', safety: this.safety() })),
      bus.on('execution.state', (e) => {
        this.lastExecution = e.executionId;
        if (this.listeners.size === 0) return;
        const execution = this.execution();
        this.send({ type: 'execution', execution, cooking: cookingView(this.ctx, execution), limits: sensorLimits(this.ctx, execution) });
      }),
      bus.on('session.updated', () => this.sendSessions()),
      bus.on('task.updated', () => this.sendSessions()),
      bus.on('notify', (e) => this.onNotice(e.kind, e.notification)),
    );
  }

  stop(): void {
    for (const off of this.offs.splice(0)) off();
    this.listeners.clear();
  }

  subscribe(fn: (m: DashboardMessage) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  get subscribers(): number {
    return this.listeners.size;
  }

  snapshot() {
    const { rig } = this.ctx;
    const execution = this.execution();
    return {
      device: { vendor: this.ctx.device.vendor, model: this.ctx.device.model },
      now: new Date(this.ctx.clock.now()).toISOString(),
      windowMs: this.windowMs,
      sensors: [...rig.sensors.values()].map((s) => ({
        id: s.id,
        svcSensor: s.svcSensor,
        medium: s.medium,
        latest: this.latest.get(s.id) ?? null,
        history: (this.history.get(s.id) ?? []).map((p) => [p.t, p.v]),
      })),
      heaters: [...rig.heaters.values()].map((h) => ({ id: h.id, medium: h.medium, power: h.power })),
      safety: this.safety(),
      execution,
      cooking: cookingView(this.ctx, execution),
      limits: sensorLimits(this.ctx, execution),
      ...this.sessionLists(),
      notices: this.currentNotices(),
    };
  }

  /** The household's notices on screen: newest last, without the expired ones. */
  currentNotices(): NoticeView[] {
    const now = this.ctx.clock.now();
    this.notices = this.notices.filter((n) => n.expiresAt === undefined || Date.parse(n.expiresAt) > now);
    return [...this.notices];
  }

  private onNotice(kind: 'message' | 'acknowledged', n: Record<string, unknown>): void {
    const audience = Array.isArray(n.audience) ? (n.audience as string[]) : [];
    if (!forHousehold(audience)) return;
    const id = String(n.id);
    if (kind === 'acknowledged') this.notices = this.notices.filter((x) => x.id !== id);
    else {
      const from = n.from as { kind?: string } | undefined;
      this.notices.push({
        id,
        urgency: String(n.urgency),
        message: n.message as Record<string, string>,
        at: String(n.at),
        from: from?.kind ?? 'unknown',
        ...(typeof n.relatesTo === 'string' ? { relatesTo: n.relatesTo } : {}),
        ...(typeof n.expiresAt === 'string' ? { expiresAt: n.expiresAt } : {}),
      });
      if (this.notices.length > MAX_NOTICES) this.notices.splice(0, this.notices.length - MAX_NOTICES);
    }
    this.send({ type: 'notices', notices: this.currentNotices() });
  }

  safety(): SafetyView {
    const s = this.ctx.supervisor.status();
    if (!s.latched || !s.trip) return { latched: s.latched };
    const { reason, subject, message, hint, at } = s.trip;
    return { latched: true, trip: { reason, subject, message, hint, at } };
  }

  execution(): ExecutionStatus | null {
    const id = this.ctx.executor.activeId ?? this.lastExecution;
    return (id && this.ctx.executor.status(id)) || null;
  }

  private get windowMs(): number {
    return this.o.windowMs ?? 10 * 60_000;
  }

  private sessionLists(): { sessions: unknown[]; tasks: unknown[] } {
    const hub = this.o.hub?.();
    if (!hub) return { sessions: [], tasks: [] };
    const sessions = hub.sessions
      .list(10)
      .map((s) => ({ id: s.id, state: s.state, serveAt: s.serveAt, recipes: s.recipes, current: s.current }));
    const tasks = hub.tasks
      .list(undefined, 200)
      .filter((t) => !FINAL_TASK.has(t.state))
      .slice(-20)
      .map((t) => ({ id: t.id, sessionId: t.sessionId, kind: t.kind, state: t.state, message: t.message }));
    return { sessions, tasks };
  }

  private sendSessions(): void {
    if (this.listeners.size > 0) this.send({ type: 'sessions', ...this.sessionLists() });
  }

  private record(sensor: string, tempC: number | null, at: string, fault?: string): void {
    this.latest.set(sensor, { tempC, ...(fault ? { fault } : {}), at });
    const t = Date.parse(at);
    if (!Number.isFinite(t)) return;
    let points = this.history.get(sensor);
    if (!points) {
      points = [];
      this.history.set(sensor, points);
    }
    const last = points.at(-1);
    if (last && Math.floor(last.t / 1000) === Math.floor(t / 1000)) last.v = tempC;
    else points.push({ t, v: tempC });
    const cutoff = t - this.windowMs;
    let drop = 0;
    while (drop < points.length && (points[drop] as Point).t < cutoff) drop++;
    if (drop > 0) points.splice(0, drop);
  }

  private send(m: DashboardMessage): void {
    for (const fn of [...this.listeners]) {
      try {
        fn(m);
      } catch {
        this.listeners.delete(fn);
      }
    }
  }
}
