/**
 * The safety supervisor: the only thing that drives heater outputs. It grants heat as leases that fall off
 * unless renewed, samples every sensor every `sampleMs`, runs the detectors (safety/detectors) on each
 * sample and, on the first trip, cuts every heater within that sample and latches a one-way stop that only a
 * person can reset. A worker-thread watchdog forces outputs off if this thread stalls. See docs/safety.md.
 */
import { randomUUID } from 'node:crypto';
import type { HeaterOutput } from '../../drivers/types.js';
import { controlActive } from '../../safety/controls.js';
import type { DetectorTrip } from '../../safety/detectors/types.js';
import type { SafetyLimits } from '../../safety/types.js';
import { CHECK_DEFAULTS, type HeaterView, SampleChecks } from './checks.js';
import { cutEveryHeater } from './cut.js';
import { type EffectiveMax, effectiveMaxFor } from './effective-limits.js';
import { FirstCut, type ReportedCut } from './first-cut.js';
import { reviewLimitChange } from './limit-change.js';
import { emitTelemetry, readSensors } from './sampling.js';
import type { LimitChangeResult, Supervisor, SupervisorContext } from './supervisor-context.js';
import type { HeatGrant, HeatRequest, SafetyTrip, StopOrigin, SupervisorStatus, TripReason } from './types.js';
import { loopWatchdog, type Watchdog, WatchdogArming } from './watchdog.js';

export type { LimitChangeResult, Supervisor, SupervisorContext } from './supervisor-context.js';

interface Lease {
  owner: string;
  power: number;
  expiresAt: number;
  op: string;
  medium?: string;
  recipeMaxC?: number;
  targetC?: number;
}

export function createSupervisor(ctx: SupervisorContext): Supervisor {
  return new SupervisorImpl(ctx);
}

class SupervisorImpl implements Supervisor {
  private readonly sampleMs: number;
  private readonly leaseMs: number;
  private readonly leases = new Map<string, Lease>();
  private readonly lastOp = new Map<string, string>();
  private readonly checks: SampleChecks;
  private limitSets: SafetyLimits[];
  private trip?: SafetyTrip;
  private interval?: unknown;
  private sampling = false;
  private sampleStartedAt = 0;
  private unwatchEstop?: () => void;
  private estopPressed = false;
  readonly watchdog?: Watchdog;
  private readonly arming: WatchdogArming;
  private readonly cuts = new FirstCut(
    (t) => this.latch({ reason: 'watchdog', ...t, action: 'stop_all' }),
    () => this.watchdog?.poll(),
  );

  constructor(private readonly ctx: SupervisorContext) {
    this.sampleMs = ctx.sampleMs ?? 250;
    this.leaseMs = ctx.leaseMs ?? 3000;
    this.limitSets = [...ctx.limits];
    this.checks = new SampleChecks(ctx.rig.sensors, { ...CHECK_DEFAULTS, ...ctx.checks }, ctx.clock.now());
    const failed = (err: Error) => this.cutAll('watchdog', `the loop watchdog's thread failed (${err.message}): all heat cut`);
    this.watchdog = loopWatchdog(ctx.rig, ctx.watchdogStallMs, (cut) => this.reportCut(cut), failed);
    // 20 s idle: the thread's ~7 MB go back soon after a cook (a small board's memory). A recipe that pauses
    // longer between heated steps (a confirmation, a human step: they hold no lease) stops and re-creates it;
    // arming is synchronous before the next grant, and re-creating costs ~50 ms of its own thread.
    this.arming = new WatchdogArming(this.watchdog, ctx.watchdogIdleMs ?? 20_000);
  }

  private log(entry: Record<string, unknown>): void {
    try {
      this.ctx.log?.({ at: new Date(this.ctx.clock.now()).toISOString(), component: 'supervisor', ...entry });
    } catch {
      // a failing logger must never stop a safety action
    }
  }

  private iso(): string {
    return new Date(this.ctx.clock.now()).toISOString();
  }

  private heater(id: string): HeaterOutput | undefined {
    return this.ctx.rig.heaters.get(id);
  }

  effectiveMax(heater: string, sel: { op: string; medium?: string; recipeMaxC?: number }): EffectiveMax | null {
    const h = this.heater(heater);
    return h ? effectiveMaxFor(this.limitSets, h, this.ctx.rig.sensors, sel) : null;
  }

  requestHeat(req: HeatRequest): HeatGrant {
    if (typeof req !== 'object' || req === null || typeof req.heater !== 'string') {
      return { granted: false, power: 0, reason: 'a heat request needs a heater id' };
    }
    const h = this.heater(req.heater);
    const refuse = (reason: string, extra: Partial<HeatGrant> = {}): HeatGrant => {
      this.log({ event: 'heat_refused', heater: req.heater, owner: req.owner, reason });
      return { granted: false, power: 0, reason, ...extra };
    };
    if (!h) return refuse(`unknown heater "${req.heater}"`);
    if (this.trip) return refuse(`safety stop latched (${this.trip.reason}): a person must reset it`);
    // A guard or watchdog cut is latched a loop turn later (first-cut.ts names who cut first); in that turn an
    // overdue executor tick or a queued request must not switch a heater back on.
    if (this.cuts.holding) return refuse('a safety cut is being latched: a person must reset it');
    if (typeof req.power !== 'number' || !Number.isFinite(req.power) || req.power < 0) return refuse('power must be a number in 0..1');
    if (typeof req.op !== 'string' || req.op === '') return refuse('op is required');
    const held = this.leases.get(h.id);
    if (held && held.owner !== req.owner) return refuse(`heater "${h.id}" is leased by ${held.owner}`);
    const limit = effectiveMaxFor(this.limitSets, h, this.ctx.rig.sensors, { op: req.op, medium: req.medium, recipeMaxC: req.recipeMaxC });
    const targetC = req.targetC === undefined ? undefined : Math.min(req.targetC, limit.maxC);
    const grant = { effectiveMaxC: limit.maxC, targetC };
    this.lastOp.set(h.id, req.op);
    const power = Math.min(1, req.power);
    if (power === 0) {
      this.release(h.id, req.owner);
      return { granted: true, power: 0, ...grant };
    }
    const now = this.ctx.clock.now();
    const temps = h.sensors.map((s) => this.checks.fresh(s, now)).filter((t): t is number => t !== undefined);
    if (temps.length === 0) return refuse(`no fresh reading from ${h.sensors.join(', ')}`, grant);
    const hottest = Math.max(...temps);
    if (hottest >= limit.maxC)
      return refuse(`reads ${hottest} °C, at or over the effective max ${limit.maxC} °C (${limit.limitId})`, grant);
    this.leases.set(h.id, {
      owner: req.owner,
      power,
      expiresAt: now + this.leaseMs,
      op: req.op,
      medium: req.medium,
      recipeMaxC: req.recipeMaxC,
      targetC,
    });
    // The loop watchdog runs only while heat can be on: it watches before this output goes on.
    const unarmed = this.arming.arm();
    if (unarmed) {
      this.leases.delete(h.id);
      h.off();
      return refuse(`the loop watchdog could not start: ${unarmed}`, grant);
    }
    if (h.power !== power) {
      h.set(power).catch((err: unknown) => {
        h.off();
        this.leases.delete(h.id);
        this.log({ event: 'heater_error', heater: h.id, error: (err as Error).message });
      });
      this.ctx.bus.emit('heater', { heater: h.id, power, at: this.iso() });
    }
    return { granted: true, power, ...grant };
  }

  release(heater: string, owner: string): void {
    const h = this.heater(heater);
    if (!h) return;
    const lease = this.leases.get(heater);
    if (lease && lease.owner !== owner) return;
    this.leases.delete(heater);
    const was = h.power;
    h.off();
    if (was !== 0) this.ctx.bus.emit('heater', { heater, power: 0, at: this.iso() });
  }

  cutAll(reason: TripReason, message: string, origin?: StopOrigin): SafetyTrip {
    return this.latch({
      reason,
      subject: 'all',
      message,
      ...(origin ? { source: origin.source } : {}),
      ...(origin?.statedReason !== undefined ? { statedReason: origin.statedReason } : {}),
      hint:
        reason === 'estop'
          ? 'Release the emergency-stop button once the area is safe, then reset.'
          : 'Check the appliance and the log, then reset.',
      action: 'stop_all',
    });
  }

  reportCut(cut: ReportedCut): void {
    this.cutEverything();
    this.cuts.report(cut);
  }

  latchTrip(t: Omit<SafetyTrip, 'id' | 'at'>): SafetyTrip {
    return this.latch(t);
  }

  private cutEverything(): void {
    cutEveryHeater(this.ctx.rig);
    this.leases.clear();
  }

  /** Cut every heater synchronously, then latch and report. The first trip wins; later ones only cut again. */
  private latch(t: Omit<SafetyTrip, 'id' | 'at'> | (DetectorTrip & { action?: string })): SafetyTrip {
    this.cutEverything();
    if (this.trip) return this.trip;
    const trip: SafetyTrip = {
      id: randomUUID(),
      reason: t.reason,
      subject: t.subject,
      message: t.message,
      hint: t.hint,
      at: this.iso(),
      action: t.action ?? 'cut_heat',
      ...(t.reading !== undefined ? { reading: t.reading } : {}),
      ...(t.limit !== undefined ? { limit: t.limit } : {}),
      ...('source' in t && t.source !== undefined ? { source: t.source } : {}),
      ...('statedReason' in t && t.statedReason !== undefined ? { statedReason: t.statedReason } : {}),
    };
    this.trip = trip;
    this.log({ event: 'safety_trip', ...trip });
    this.ctx.bus.emit('safety', {
      kind: t.reason === 'estop' ? 'estop' : 'trip',
      trip,
      action: 'heat_off_all',
      message: trip.message,
      at: trip.at,
    });
    for (const h of this.ctx.rig.heaters.values()) this.ctx.bus.emit('heater', { heater: h.id, power: 0, at: trip.at });
    return trip;
  }

  restore(trip: SafetyTrip): void {
    this.ctx.rig.allHeatOff();
    this.leases.clear();
    if (this.trip) return;
    this.trip = trip;
    this.log({ event: 'safety_latch_restored', ...trip });
  }

  stateReason(tripId: string, source: string, reason: string): SafetyTrip | undefined {
    const t = this.trip;
    if (!t || t.id !== tripId || t.source !== source || t.statedReason !== undefined) return undefined;
    this.trip = { ...t, statedReason: reason };
    this.log({ event: 'safety_trip_reason', id: t.id, statedReason: reason });
    return this.trip;
  }

  reset(by: string): boolean {
    if (typeof by !== 'string' || by.trim() === '') return false;
    if (!this.trip) return false;
    if (this.estopPressed) {
      this.log({ event: 'reset_refused', by, reason: 'e-stop still pressed' });
      return false;
    }
    const cleared = this.trip;
    this.trip = undefined;
    this.checks.reset(this.ctx.clock.now());
    this.log({ event: 'safety_reset', by, trip: cleared.id, reason: cleared.reason });
    this.ctx.bus.emit('safety', {
      kind: 'reset',
      trip: cleared,
      by,
      action: 'none',
      message: `safety stop (${cleared.reason}) reset by ${by}`,
      at: this.iso(),
    });
    return true;
  }

  attemptLimitChange(proposed: SafetyLimits, by: string): LimitChangeResult {
    const review = reviewLimitChange(this.limitSets, proposed);
    if (!review.ok) {
      const message = `refused a request by ${by} to change safety limits: ${review.message}`;
      this.log({ event: 'limit_raise_refused', by, raised: review.raised, message });
      this.ctx.bus.emit('safety', { kind: 'limit_raise_refused', action: 'none', message, by, at: this.iso() });
      return { accepted: false, refused: review.raised };
    }
    this.limitSets = [...this.limitSets, proposed];
    this.log({ event: 'limits_tightened', by, id: proposed.id });
    return { accepted: true };
  }

  status(): SupervisorStatus {
    const heaters: SupervisorStatus['heaters'] = {};
    for (const h of this.ctx.rig.heaters.values()) {
      const l = this.leases.get(h.id);
      // A wire its holder cut is off, whatever was asked of it (the holder's report may still be unread).
      const cut = this.ctx.wire?.(h.id) === 'cut';
      const lease = l ? { leaseExpiresAt: l.expiresAt, owner: l.owner } : {};
      heaters[h.id] = cut ? { power: 0, wire: 'cut', ...lease } : { power: h.power, ...lease };
    }
    return { latched: this.trip !== undefined, ...(this.trip ? { trip: this.trip } : {}), heaters };
  }

  async sample(): Promise<void> {
    if (this.sampling) return;
    this.sampling = true;
    this.sampleStartedAt = this.ctx.clock.now();
    try {
      const readings = await readSensors(this.ctx.rig, this.ctx.clock);
      // Poll the e-stop too, in case an edge was missed.
      if (this.ctx.rig.estop) this.onEstop(await this.ctx.rig.estop.read().catch(() => true));
      const now = this.ctx.clock.now();
      const at = new Date(now).toISOString();
      if (this.trip) this.ctx.rig.allHeatOff();
      this.expireLeases(now);
      const views: HeaterView[] = [];
      for (const h of this.ctx.rig.heaters.values()) {
        const l = this.leases.get(h.id);
        const op = l?.op ?? this.lastOp.get(h.id) ?? '';
        views.push({
          heater: h,
          power: l?.power ?? 0,
          targetC: l?.targetC,
          limit: effectiveMaxFor(this.limitSets, h, this.ctx.rig.sensors, { op, medium: l?.medium, recipeMaxC: l?.recipeMaxC }),
          thermal: this.ctx.rig.thermal?.get(h.id),
        });
      }
      const trip = this.checks.run(readings, views, now);
      if (trip && !this.trip) {
        // Whatever a limit's declared action, crossing it here always cuts heat; stop_all is kept when declared.
        const declared = views.find((v) => v.limit.limitId === trip.subject)?.limit.action;
        this.latch({ ...trip, action: declared === 'stop_all' ? 'stop_all' : 'cut_heat' });
      }
      emitTelemetry(this.ctx.bus, this.ctx.rig, readings, at);
    } finally {
      this.sampling = false;
    }
  }

  private onEstop(pressed: boolean): void {
    this.estopPressed = pressed;
    if (pressed) this.cutAll('estop', 'the emergency-stop button is pressed: all heat cut', { source: 'button' });
  }

  private expireLeases(now: number): void {
    for (const [id, l] of this.leases) {
      if (now < l.expiresAt || !controlActive('heater-lease')) continue;
      this.leases.delete(id);
      this.heater(id)?.off();
      this.log({ event: 'lease_expired', heater: id, owner: l.owner });
      this.ctx.bus.emit('heater', { heater: id, power: 0, at: new Date(now).toISOString() });
    }
  }

  async start(): Promise<void> {
    this.ctx.rig.allHeatOff();
    this.checks.reset(this.ctx.clock.now());
    if (this.ctx.rig.estop) {
      this.unwatchEstop = this.ctx.rig.estop.watch((pressed) => this.onEstop(pressed));
      this.onEstop(await this.ctx.rig.estop.read());
    }
    const staleMs = this.ctx.checks?.staleMs ?? CHECK_DEFAULTS.staleMs;
    this.interval = this.ctx.clock.setInterval(() => {
      const now = this.ctx.clock.now();
      // Leases fall off on time even when a sensor read hangs and the sample below cannot run.
      this.expireLeases(now);
      this.arming.idle(now, this.leases.size > 0 || [...this.ctx.rig.heaters.values()].some((h) => h.power !== 0));
      if (this.sampling && now - this.sampleStartedAt > staleMs) {
        this.latch({
          reason: 'stale_reading',
          subject: 'sampling',
          message: `a sensor read has not returned for ${now - this.sampleStartedAt} ms`,
          hint: 'A driver or bus is hung: check the sensor wiring and the device log, then reset.',
          action: 'cut_heat',
        });
        return;
      }
      this.sample().catch((err: unknown) => this.cutAll('sensor_fault', `sampling failed: ${(err as Error).message}`));
    }, this.sampleMs);
    await this.sample();
    this.log({ event: 'supervisor_started', sampleMs: this.sampleMs, leaseMs: this.leaseMs });
  }

  async stop(): Promise<void> {
    if (this.interval !== undefined) this.ctx.clock.clearInterval(this.interval);
    this.interval = undefined;
    this.unwatchEstop?.();
    this.ctx.rig.allHeatOff();
    this.leases.clear();
    await this.watchdog?.stop();
    this.log({ event: 'supervisor_stopped' });
  }
}
