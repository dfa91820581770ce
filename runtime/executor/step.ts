/**
 * One planned step, run tick by tick. A heat step drives the heater of the step's medium toward its target
 * through the safety supervisor (never a HeaterOutput directly), first reaching the band [target − 3 °C,
 * step max] and then holding it for the step's time. Verification follows the rung the dry run chose: a
 * sensor reading in band, a logged model estimate, time, or a person's confirmation (→ needs_human).
 */
import type { TemperatureReading } from '../../drivers/types.js';
import { checkTemperature, thermalBand } from '../../safety/envelope-check.js';
import type { PlanItem, VerifiedBy } from '../../safety/types.js';
import type { SafetySupervisor, SafetyTrip } from '../supervisor/types.js';
import type { FallbackChoice } from './ladder.js';
import type { DeviationKind, Reading, StepLog, StepStatus } from './types.js';

/** Time of a step that names none (s). */
export const DEFAULT_STEP_S = 30;
/** How far below the target a reading still counts as in band (°C). */
export const BAND_TOLERANCE_C = 3;
/** Longest a heat step may take to reach its band (s) before it fails. */
export const REACH_TIMEOUT_S = 45 * 60;
/** Longest the supervisor may keep refusing heat (s) before the step fails. */
export const HEAT_REFUSED_TIMEOUT_S = 15;
const MAX_TRACE = 2000;
/** How far inside the band a reading must be to start the hold (°C). */
const ENTRY_MARGIN_C = 0.5;

export interface HeaterInfo {
  id: string;
  medium: string;
  sensors: readonly string[];
}

export interface SensorInfo {
  id: string;
  svcSensor: string;
}

export interface StepEnv {
  owner: string;
  supervisor: SafetySupervisor;
  heaters: readonly HeaterInfo[];
  sensors: readonly SensorInfo[];
  /** The latest sample of a rig sensor (from the supervisor's telemetry). */
  latest(sensorId: string): TemperatureReading | undefined;
  /** On the simulated rig, a vision cue the plan relies on counts as seen when the step's time is up. */
  simulatedCues: boolean;
}

export type StepSignal = { kind: 'continue' } | { kind: 'done' } | { kind: 'needs_human'; why: string } | { kind: 'failed'; why: string };

const iso = (ms: number) => new Date(ms).toISOString();
const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

export class StepRun {
  readonly heater?: HeaterInfo;
  private readonly targetC?: number;
  private readonly lowC?: number;
  private readonly highC?: number;
  private readonly durationMs: number;
  private verifySensor?: SensorInfo;
  /** The rung is a cue no rig sensor provides: a person confirms (or the simulation sees it). */
  private needsConfirm: boolean;
  /** How the step is verified now: the plan's rung, or the rung it fell back to at run time. */
  private verifiedBy: VerifiedBy;
  /** The step fell to the `human` rung at run time: only a person at the appliance may confirm it. */
  fellToPerson = false;
  private phase: 'reach' | 'hold' | 'confirm' | 'done' = 'reach';
  private holdStartedAt?: number;
  private refusedSince?: number;
  private startTempC?: number;
  private lastTraceAt = -1;
  private readonly trace: { t: number; tempC: number }[] = [];
  private readonly stats = new Map<string, { min: number; max: number; end: number }>();
  private problem?: string;
  deviation?: { kind: DeviationKind; detail: string };

  constructor(
    readonly item: PlanItem,
    private readonly env: StepEnv,
    readonly startedAt: number,
  ) {
    this.durationMs = (item.durationS ?? DEFAULT_STEP_S) * 1000;
    this.verifiedBy = item.verifiedBy;
    const band = thermalBand(item.op);
    const thermal =
      item.by === 'device' && item.medium !== undefined && item.medium !== 'none' && (band !== undefined || item.targetC !== undefined);
    if (thermal) {
      this.heater = env.heaters.find((h) => h.medium === item.medium);
      if (!this.heater) this.problem = `this rig has no heater for the medium ${item.medium}`;
      const mid = band ? (band.min + band.max) / 2 : undefined;
      const target = item.targetC ?? mid;
      if (this.heater && target !== undefined) {
        this.targetC = item.maxC !== undefined ? Math.min(target, item.maxC) : target;
        // In band: from a little below the target (never below the envelope) up to the step's max (never above it).
        this.lowC = Math.max(this.targetC - BAND_TOLERANCE_C, band?.min ?? Number.NEGATIVE_INFINITY);
        this.highC = Math.min(item.maxC ?? Number.POSITIVE_INFINITY, band?.max ?? this.targetC + BAND_TOLERANCE_C);
      }
    }
    const rung = item.rung ?? '';
    if (item.verifiedBy === 'sensor') this.verifySensor = env.sensors.find((s) => s.svcSensor === rung);
    this.needsConfirm =
      item.by === 'human' || item.verifiedBy === 'human' || (item.verifiedBy === 'sensor' && !this.verifySensor && !env.simulatedCues);
    if (!this.verifySensor && this.heater) {
      const first = this.heater.sensors[0];
      this.verifySensor = env.sensors.find((s) => s.id === first);
    }
  }

  /** Heat steps need heat from the supervisor; everything else just waits. */
  get heats(): boolean {
    return this.heater !== undefined && this.targetC !== undefined;
  }

  /** A step that may not run without a person present. */
  get attended(): boolean {
    return this.item.by === 'human' || this.item.unattended === false;
  }

  begin(): StepSignal {
    if (this.problem) return { kind: 'failed', why: `node ${this.item.node}: ${this.problem}` };
    if (this.item.by === 'human') return this.askConfirm(`node ${this.item.node} (${this.item.op}) is a person's step: do it, then resume`);
    if (!this.heats) this.phase = 'hold';
    if (!this.heats) this.holdStartedAt = this.startedAt;
    return { kind: 'continue' };
  }

  private askConfirm(why: string): StepSignal {
    this.release();
    this.phase = 'confirm';
    return { kind: 'needs_human', why };
  }

  private controlTemp(): number | undefined {
    if (!this.heater) return undefined;
    const temps = this.heater.sensors
      .map((s) => this.env.latest(s)?.tempC)
      .filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    return temps.length > 0 ? Math.max(...temps) : undefined;
  }

  private record(now: number): number | undefined {
    const ids = new Set<string>([...(this.heater?.sensors ?? []), ...(this.verifySensor ? [this.verifySensor.id] : [])]);
    for (const id of ids) {
      const r = this.env.latest(id);
      if (r?.tempC === null || r?.tempC === undefined) continue;
      const s = this.stats.get(id);
      if (s) {
        s.min = Math.min(s.min, r.tempC);
        s.max = Math.max(s.max, r.tempC);
        s.end = r.tempC;
      } else this.stats.set(id, { min: r.tempC, max: r.tempC, end: r.tempC });
    }
    const v = this.verifySensor ? this.env.latest(this.verifySensor.id) : undefined;
    if (v && typeof v.tempC === 'number' && v.at !== this.lastTraceAt && v.at >= this.startedAt) {
      this.lastTraceAt = v.at;
      if (this.trace.length >= MAX_TRACE) this.trace.splice(0, this.trace.length, ...this.trace.filter((_, i) => i % 2 === 0));
      this.trace.push({ t: now, tempC: v.tempC });
    }
    return v && typeof v.tempC === 'number' ? v.tempC : undefined;
  }

  /** Advance the step to `now`. */
  tick(now: number): StepSignal {
    if (this.phase === 'confirm' || this.phase === 'done') return { kind: 'continue' };
    const verifyTemp = this.record(now);
    if (this.heats) {
      const signal = this.drive(now);
      if (signal) return signal;
      const t = verifyTemp ?? this.controlTemp();
      this.startTempC ??= t;
      if (this.phase === 'reach') {
        // Enter the hold a little inside the band, so sensor noise at its edge does not count as leaving it.
        const margin = Math.min(ENTRY_MARGIN_C, ((this.highC as number) - (this.lowC as number)) / 4);
        if (t !== undefined && t >= (this.lowC as number) + margin && t <= (this.highC as number) - margin) {
          this.phase = 'hold';
          this.holdStartedAt = now;
          // The envelope check covers the hold; the way into the band is warm-up.
          this.trace.length = 0;
        } else if (now - this.startedAt > REACH_TIMEOUT_S * 1000) {
          return {
            kind: 'failed',
            why: `node ${this.item.node}: ${this.item.medium} did not reach ${this.lowC}–${this.highC} °C within ${REACH_TIMEOUT_S / 60} min`,
          };
        }
      }
    }
    if (this.phase === 'hold' && now - (this.holdStartedAt as number) >= this.durationMs) return this.complete();
    return { kind: 'continue' };
  }

  private drive(now: number): StepSignal | undefined {
    const heater = this.heater as HeaterInfo;
    const temp = this.controlTemp();
    // Proportional control aimed 2 °C above the target, so the steady state (heat = losses) sits near it.
    const power = temp === undefined ? 0 : clamp(((this.targetC as number) + 2 - temp) / 4, 0, 1);
    const grant = this.env.supervisor.requestHeat({
      heater: heater.id,
      power,
      op: this.item.op,
      medium: this.item.medium,
      targetC: this.targetC,
      recipeMaxC: this.item.maxC,
      owner: this.env.owner,
    });
    if (grant.granted || power === 0) {
      this.refusedSince = undefined;
      return undefined;
    }
    this.refusedSince ??= now;
    if (now - this.refusedSince > HEAT_REFUSED_TIMEOUT_S * 1000) {
      return {
        kind: 'failed',
        why: `node ${this.item.node}: the safety supervisor kept refusing heat (${grant.reason ?? 'no reason given'})`,
      };
    }
    return undefined;
  }

  private complete(): StepSignal {
    this.release();
    if (this.needsConfirm) {
      const what = this.item.verifiedBy === 'sensor' ? `that ${this.item.rung} holds` : 'the result';
      return this.askConfirm(`node ${this.item.node} (${this.item.op}): a person must confirm ${what}, then resume`);
    }
    this.phase = 'done';
    return { kind: 'done' };
  }

  /** A person confirmed (resume while this step waited for them). */
  confirm(): StepSignal {
    if (this.phase !== 'confirm') return { kind: 'continue' };
    this.phase = 'done';
    return { kind: 'done' };
  }

  get waitingForPerson(): boolean {
    return this.phase === 'confirm';
  }

  /** Does the step rely on this rig sensor (its rung's sensor, or a sensor of the heater it drives)? */
  reliesOn(sensorId: string): boolean {
    return this.verifySensor?.id === sensorId || (this.heater?.sensors.includes(sensorId) ?? false);
  }

  /** The rung's sensor failed mid-step (the supervisor tripped): go on with the fallback rung the ladder allows. */
  fallTo(choice: Extract<FallbackChoice, { rung: string }>, trip: Pick<SafetyTrip, 'subject' | 'reason'>): StepSignal {
    const failed = `sensor ${trip.subject} failed mid-step (${trip.reason})`;
    if (choice.kind === 'human') {
      this.verifiedBy = 'human';
      this.fellToPerson = true;
      this.deviation = { kind: 'human_took_over', detail: `${failed}: a person verified the step instead` };
      return this.askConfirm(
        `node ${this.item.node} (${this.item.op}): ${failed} and heat is off; check the appliance, reset the safety stop, confirm the step is done, then resume`,
      );
    }
    this.verifiedBy = choice.kind === 'time' ? 'time' : 'sensor';
    this.verifySensor = choice.sensor ? this.env.sensors.find((s) => s.id === choice.sensor) : undefined;
    this.needsConfirm = choice.kind === 'cue' && !this.env.simulatedCues;
    this.deviation = { kind: 'other', detail: `${failed}: verified by ${choice.rung} instead` };
    return { kind: 'continue' };
  }

  /** Drop this step's heat. Never throws. */
  release(): void {
    if (!this.heater) return;
    try {
      this.env.supervisor.release(this.heater.id, this.env.owner);
    } catch {
      // release must never stop a stop
    }
  }

  private readings(now: number): Reading[] {
    const out: Reading[] = [];
    const ids = new Set<string>([...(this.verifySensor ? [this.verifySensor.id] : []), ...(this.heater?.sensors ?? [])]);
    for (const id of ids) {
      const r = this.env.latest(id);
      const svc = this.env.sensors.find((s) => s.id === id)?.svcSensor;
      if (!svc || typeof r?.tempC !== 'number') continue;
      out.push({
        sensor: svc,
        value: Math.round(r.tempC * 10) / 10,
        unit: 'degC',
        at: iso(r.at ?? now),
        ...(this.item.verifiedBy === 'model' ? { estimated: true } : {}),
      });
    }
    return out;
  }

  progress(now: number): number {
    if (this.phase === 'done' || this.phase === 'confirm') return 1;
    const holdShare = this.heats ? 0.8 : 1;
    if (this.phase === 'hold')
      return (
        Math.round(100 * clamp(1 - holdShare + (holdShare * (now - (this.holdStartedAt as number))) / Math.max(1, this.durationMs), 0, 1)) /
        100
      );
    const t = this.trace.at(-1)?.tempC ?? this.startTempC;
    if (t === undefined || this.startTempC === undefined || this.lowC === undefined || this.lowC <= this.startTempC) return 0;
    return Math.round(100 * 0.2 * clamp((t - this.startTempC) / (this.lowC - this.startTempC), 0, 1)) / 100;
  }

  /** Seconds this step still needs, as far as can be told. */
  remainingS(now: number): number {
    if (this.phase === 'done' || this.phase === 'confirm') return 0;
    if (this.phase === 'hold') return Math.max(0, (this.durationMs - (now - (this.holdStartedAt as number))) / 1000);
    return this.durationMs / 1000;
  }

  status(now: number): StepStatus {
    return {
      node: this.item.node,
      op: this.item.op,
      startedAt: iso(this.startedAt),
      progress: this.progress(now),
      verifiedBy: this.verifiedBy,
      readings: this.readings(now),
    };
  }

  /** Close the step for the log. */
  finish(now: number): StepLog {
    this.release();
    let envelopeOk = true;
    if (this.trace.length > 0) envelopeOk = checkTemperature({ op: this.item.op, readings: this.trace }).envelopeOk;
    const log: StepLog = {
      node: this.item.node,
      op: this.item.op,
      startedAt: iso(this.startedAt),
      endedAt: iso(now),
      verifiedBy: this.verifiedBy,
      envelopeOk,
    };
    const summary = [...this.stats.entries()].flatMap(([id, s]) => {
      const svc = this.env.sensors.find((x) => x.id === id)?.svcSensor;
      return svc
        ? [
            {
              sensor: svc,
              unit: 'degC' as const,
              min: s.min,
              max: s.max,
              end: s.end,
              ...(this.item.verifiedBy === 'model' ? { estimated: true } : {}),
            },
          ]
        : [];
    });
    if (summary.length > 0) log.summary = summary;
    if (this.deviation) log.deviation = this.deviation;
    else if (!envelopeOk)
      log.deviation = {
        kind: 'temperature_excursion',
        detail: `the ${this.item.medium ?? 'medium'} left the ${this.item.op} envelope during the step`,
      };
    return log;
  }
}
