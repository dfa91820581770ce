/**
 * One execution: its xstate machine, its status (with a seq that grows on every change and is the ETag), its
 * log, and the plan it follows step by step on a clock timer. Every change is persisted at once, so a crash
 * loses nothing the API has shown; after a restart the executor stops whatever was active (see executor.ts).
 */
import type { Clock } from '../../drivers/types.js';
import type { PlanItem, Refusal } from '../../safety/types.js';
import type { EventBus } from '../events/bus.js';
import type { ExecutionRepo, ExecutionRow } from '../store/executions.js';
import type { SafetyTrip } from '../supervisor/types.js';
import { runtimeFallback } from './ladder.js';
import { ExecutionMachine, type ExecutionState } from './machine.js';
import { DEFAULT_STEP_S, type StepEnv, StepRun, type StepSignal } from './step.js';
import { CORE_VERSION, type ExecuteRequest, type ExecutionLog, type ExecutionStatus, type LogEvent, type Outcome } from './types.js';

export interface ExecutionDeps {
  repo: ExecutionRepo;
  bus: EventBus;
  clock: Clock;
  env: Omit<StepEnv, 'owner'>;
  /** The sensed presence of a person (never a client's claim). */
  present(): boolean;
  /** Tick period in clock ms. */
  tickMs: number;
  /** Called once when the execution reaches a final state. */
  onEnd(e: Execution): void;
  warn(msg: string, extra?: Record<string, unknown>): void;
}

export class ResumeError extends Error {
  constructor(
    readonly why: 'state' | 'presence',
    message: string,
  ) {
    super(message);
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Trips that mean a sensor failed (its subject is the sensor). */
const SENSOR_TRIPS = new Set<SafetyTrip['reason']>(['sensor_fault', 'out_of_range_reading', 'stale_reading']);

export class Execution {
  readonly machine: ExecutionMachine;
  status: ExecutionStatus;
  readonly log: ExecutionLog;
  private index = -1;
  private step?: StepRun;
  private timer?: unknown;
  private awaitingPresence = false;
  private lastShape = '';
  /** The safety trip that stopped this execution or made it fall back, shown in the status. */
  private trip?: SafetyTrip;
  /** Why it stopped, on its state events, when not a person's stop or a trip (`recall:<id>`). */
  private stopReason?: string;
  private readonly createdAt: number;

  constructor(
    readonly id: string,
    readonly request: Pick<ExecuteRequest, 'id' | 'recipe' | 'recipeHash' | 'servings'>,
    private readonly plan: PlanItem[],
    log: ExecutionLog,
    private readonly deps: ExecutionDeps,
    restored?: { machine: ExecutionMachine; status: ExecutionStatus; createdAt: number },
  ) {
    this.machine = restored?.machine ?? new ExecutionMachine();
    this.log = log;
    this.createdAt = restored?.createdAt ?? deps.clock.now();
    this.status = restored?.status ?? {
      core: CORE_VERSION,
      kind: 'ExecutionStatus',
      id,
      request: request.id,
      state: 'accepted',
      seq: 0,
      updatedAt: iso(this.createdAt),
    };
  }

  get state(): ExecutionState {
    return this.machine.state;
  }

  get final(): boolean {
    return this.machine.final;
  }

  private now(): number {
    return this.deps.clock.now();
  }

  private row(): ExecutionRow {
    return {
      id: this.id,
      requestId: this.request.id,
      recipe: this.request.recipe,
      recipeHash: this.request.recipeHash,
      state: this.state,
      seq: this.status.seq,
      status: this.status,
      snapshot: this.machine.persisted(),
      log: this.log,
      createdAt: this.createdAt,
      updatedAt: this.now(),
      endedAt: this.final ? this.now() : null,
    };
  }

  /** Store the new execution (seq 0, accepted). */
  insert(): void {
    this.lastShape = this.shape(this.status);
    this.deps.repo.insert(this.row());
    this.emit();
  }

  private shape(s: ExecutionStatus): string {
    const { seq: _seq, updatedAt: _u, ...rest } = s;
    return JSON.stringify(rest);
  }

  /** Recompute the status; when anything changed, bump seq, persist and announce. */
  private refresh(extra: Partial<ExecutionStatus> = {}): void {
    const now = this.now();
    const next: ExecutionStatus = {
      core: CORE_VERSION,
      kind: 'ExecutionStatus',
      id: this.id,
      request: this.request.id,
      state: this.state,
      seq: this.status.seq,
      updatedAt: this.status.updatedAt,
    };
    if (this.status.refusal) next.refusal = this.status.refusal;
    if (this.trip) {
      const { reason, subject, message, hint, at, action } = this.trip;
      next['x-hearth-safety'] = { reason, subject, message, hint, at, action };
    }
    if (this.step && !this.final) next.step = this.step.status(now);
    if (!this.final) next.eta = iso(now + this.remainingS(now) * 1000);
    Object.assign(next, extra);
    if (this.state === 'needs_human' && extra.humanNeeded === undefined && this.status.humanNeeded)
      next.humanNeeded = this.status.humanNeeded;
    if (this.state !== 'needs_human') delete next.humanNeeded;
    const shape = this.shape(next);
    if (shape === this.lastShape) return;
    this.lastShape = shape;
    next.seq = this.status.seq + 1;
    next.updatedAt = iso(now);
    this.status = next;
    this.deps.repo.update(this.row());
    this.emit();
  }

  private emit(): void {
    this.deps.bus.emit('execution.state', {
      executionId: this.id,
      state: this.state,
      seq: this.status.seq,
      at: this.status.updatedAt,
      ...(this.log.outcome ? { outcome: this.log.outcome } : {}),
      ...(this.stopReason ? { reason: this.stopReason } : {}),
    });
  }

  private remainingS(now: number): number {
    let s = this.step ? this.step.remainingS(now) : 0;
    for (let i = Math.max(0, this.index + 1); i < this.plan.length; i++) s += this.plan[i]?.durationS ?? DEFAULT_STEP_S;
    return s;
  }

  private move(to: ExecutionState, extra: Partial<ExecutionStatus> = {}): void {
    this.machine.to(to);
    this.refresh(extra);
  }

  /** Record an event in the log (`x-hearth-events`) without changing state. */
  note(kind: LogEvent['kind'], message: string, hint?: string): void {
    this.log['x-hearth-events'].push({ at: iso(this.now()), kind, message, ...(hint ? { hint } : {}) });
  }

  /** A refusal: accepted → refused, logged, ended. */
  refuse(refusal: Refusal): void {
    this.status = { ...this.status, refusal };
    this.end('refused', 'refused');
  }

  /** Begin work: preparing now, the first step on the next tick. */
  begin(): void {
    this.move('preparing');
    this.timer = this.deps.clock.setInterval(() => this.tick(), this.deps.tickMs);
  }

  private tick(): void {
    try {
      if (this.state === 'preparing') {
        this.move('running');
        this.next();
        return;
      }
      if (this.state !== 'running' || !this.step) return;
      if (this.step.attended && !this.deps.present()) {
        this.waitForPresence();
        return;
      }
      this.handle(this.step.tick(this.now()));
    } catch (err) {
      this.deps.warn('execution tick failed', { execution: this.id, error: (err as Error).message });
      this.fail(`internal error while running the step: ${(err as Error).message}`);
    }
  }

  private next(): void {
    if (this.step) this.log.steps.push(this.step.finish(this.now()));
    this.step = undefined;
    this.index++;
    const item = this.plan[this.index];
    if (!item) {
      this.end('completed', this.log.steps.every((s) => s.envelopeOk) ? 'served' : 'partial');
      return;
    }
    this.step = new StepRun(item, { ...this.deps.env, owner: this.id }, this.now());
    if (this.step.attended && !this.deps.present()) {
      this.waitForPresence();
      return;
    }
    this.handle(this.step.begin());
  }

  private handle(signal: StepSignal): void {
    switch (signal.kind) {
      case 'continue':
        this.refresh();
        return;
      case 'done':
        this.next();
        if (!this.final) this.refresh();
        return;
      case 'needs_human':
        this.move('needs_human', { humanNeeded: { why: signal.why.slice(0, 300) } });
        return;
      case 'failed':
        this.fail(signal.why);
        return;
    }
  }

  private waitForPresence(): void {
    this.step?.release();
    this.awaitingPresence = true;
    const node = this.step?.item.node ?? '';
    this.note('presence_lost', `node ${node} needs a person present and none is sensed; heat is off until a person resumes`);
    this.move('needs_human', {
      humanNeeded: { why: `node ${node} (${this.step?.item.op}) needs a person present: come to the appliance, then resume` },
    });
  }

  /** Resume after paused or needs_human. Throws ResumeError when it cannot. */
  resume(): void {
    if (this.state !== 'paused' && this.state !== 'needs_human')
      throw new ResumeError('state', `an execution in state ${this.state} cannot resume`);
    if ((this.awaitingPresence || this.step?.attended || this.step?.fellToPerson) && !this.deps.present()) {
      throw new ResumeError('presence', 'nobody is sensed at the appliance; this step needs a person present');
    }
    const safety = this.deps.env.supervisor.status();
    if (safety.latched)
      throw new ResumeError(
        'state',
        `the safety stop is latched (${safety.trip?.reason ?? 'trip'}): a person must check the appliance and reset it before resuming`,
      );
    const at = iso(this.now());
    if (this.state === 'needs_human') this.log.humanInterventions.push({ at, kind: this.step?.item.by === 'human' ? 'assist' : 'confirm' });
    this.awaitingPresence = false;
    this.machine.to('running');
    if (this.step?.waitingForPerson) {
      this.handle(this.step.confirm());
      return;
    }
    this.refresh();
  }

  /** running → paused: heat off, the step waits. */
  pause(): void {
    if (this.state !== 'running') throw new ResumeError('state', `an execution in state ${this.state} cannot pause`);
    this.step?.release();
    this.move('paused');
  }

  /** Stop now: heat is cut before this returns. Idempotent on a final state. `reason` goes on the state events. */
  stop(kind: LogEvent['kind'], message: string, hint?: string, reason?: string): void {
    if (this.final) return;
    this.step?.release();
    if (reason) this.stopReason = reason;
    this.note(kind, message, hint);
    if (kind === 'stop_requested') this.log.humanInterventions.push({ at: iso(this.now()), kind: 'stop' });
    if (this.step) {
      this.step.deviation = { kind: 'other', detail: `stopped during the step: ${message}`.slice(0, 300) };
    }
    if (this.machine.can('stopping')) this.move('stopping');
    this.end('stopped', 'aborted_safe');
  }

  /**
   * The supervisor tripped (heat is already cut): record it, then either fall to the next rung of the step's
   * sensor ladder (a sensor the step relies on failed, and the dry run allowed a rung that still holds; see
   * ladder.ts) or stop.
   */
  safetyStop(trip: SafetyTrip): void {
    if (this.final) return;
    const action = ['refuse_start', 'cut_heat', 'stop_motion', 'stop_all', 'ask_human', 'alert'].includes(trip.action)
      ? trip.action
      : 'cut_heat';
    this.log.safetyEvents.push({ at: trip.at, limit: trip.subject, action, ...(this.step ? { node: this.step.item.node } : {}) });
    this.trip ??= trip;
    const why = this.fallBack(trip);
    if (why === null) return;
    this.stop('safety_stop', `safety stop (${trip.reason}): ${trip.message}${why ? `; ${why}` : ''}`, trip.hint);
  }

  /** Try the run-time ladder: null when the step fell back, else why not ('' when the ladder does not apply). */
  private fallBack(trip: SafetyTrip): string | null {
    const step = this.step;
    if (!step || this.state !== 'running' || !SENSOR_TRIPS.has(trip.reason)) return '';
    const failed = this.deps.env.sensors.find((s) => s.id === trip.subject);
    if (!failed || !step.reliesOn(failed.id)) return '';
    const now = this.now();
    const choice = runtimeFallback({
      item: step.item,
      failed,
      heats: step.heats,
      sensors: this.deps.env.sensors,
      healthy: (id) => {
        const r = this.deps.env.latest(id);
        return r !== undefined && typeof r.tempC === 'number' && r.fault === undefined && now - r.at <= 2000;
      },
    });
    if (choice.rung === null) return `sensor ladder: ${choice.why}`;
    const skipped = choice.skipped.length > 0 ? ` (skipped: ${choice.skipped.join('; ')})` : '';
    this.note(
      'sensor_fallback',
      `${failed.svcSensor} (${failed.id}) failed mid-step: ${trip.message}; node ${step.item.node} falls to the ${choice.rung} rung${skipped}`,
      trip.hint,
    );
    this.handle(step.fallTo(choice, trip));
    return null;
  }

  private fail(why: string): void {
    if (this.final) return;
    this.step?.release();
    this.note('step_failed', why);
    this.end('failed', 'failed');
  }

  private end(state: 'completed' | 'failed' | 'stopped' | 'refused', outcome: Outcome): void {
    if (this.timer !== undefined) this.deps.clock.clearInterval(this.timer);
    this.timer = undefined;
    if (this.step) this.log.steps.push(this.step.finish(this.now()));
    this.step = undefined;
    this.log.outcome = outcome;
    this.log.endedAt = iso(this.now());
    this.move(state);
    this.deps.onEnd(this);
  }
}
