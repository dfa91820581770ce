/**
 * The executor of one device: starts executions after the start checks, runs one at a time, stops them (heat
 * cut before the answer), resumes them, serves status and logs, and after a crash or restart stops every
 * execution that was active (outcome aborted_safe, with a log entry saying why); nothing resumes by itself.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { KeyRecord } from '../../core/keys.js';
import type { Clock, Rig, TemperatureReading } from '../../drivers/types.js';
import type { Principal } from '../../platform/http/auth.js';
import type { PlanItem, Refusal } from '../../safety/types.js';
import type { DeviceConfig } from '../config/device.js';
import type { RecipeCatalog } from '../config/recipes.js';
import type { EventBus } from '../events/bus.js';
import { ExecutionRepo, type ExecutionRow } from '../store/executions.js';
import { RecallRepo } from '../store/recalls.js';
import type { SafetySupervisor } from '../supervisor/types.js';
import { Execution, ResumeError } from './execution.js';
import { ExecutionMachine } from './machine.js';
import { requestedRecipeId, startChecks } from './start-checks.js';
import { CORE_VERSION, type ExecuteRequest, type ExecutionLog, type ExecutionStatus } from './types.js';

export { ResumeError } from './execution.js';

export interface ExecutorDeps {
  db: Database;
  bus: EventBus;
  clock: Clock;
  rig: Rig;
  supervisor: SafetySupervisor;
  device: DeviceConfig;
  recipes: RecipeCatalog;
  /** The rig is simulated: vision cues count as seen when a step's time is up. */
  simulated: boolean;
  /** Tick period in clock ms (default 500). */
  tickMs?: number;
  log?: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  /** Principal keys that agent mandates must be signed with (default: none, so every mandate is refused). */
  mandateKeys?: () => readonly KeyRecord[];
}

/** A further start check: a refusal, or undefined to let the start go on. */
export type StartGuard = (plan: readonly PlanItem[]) => Refusal | undefined;

export type StartResult = { kind: 'unknown_recipe'; recipe: string } | { kind: 'status'; status: ExecutionStatus };
export type ResumeResult =
  | { kind: 'ok'; status: ExecutionStatus }
  | { kind: 'not_found' }
  | { kind: 'precondition_failed'; current: number }
  | { kind: 'conflict'; why: 'state' | 'presence'; message: string };

const iso = (ms: number) => new Date(ms).toISOString();

export class Executor {
  readonly repo: ExecutionRepo;
  readonly recalls: RecallRepo;
  private active?: Execution;
  private readonly latest = new Map<string, TemperatureReading>();
  private present = false;
  private readonly unsubscribe: (() => void)[] = [];
  private readonly startGuards = new Set<StartGuard>();

  constructor(private readonly d: ExecutorDeps) {
    this.repo = new ExecutionRepo(d.db);
    this.recalls = new RecallRepo(d.db, () => d.clock.now());
  }

  /** Subscribe to telemetry, presence and safety events; stop what a previous process left active. */
  async open(): Promise<number> {
    this.unsubscribe.push(
      this.d.bus.on('telemetry', (t) => {
        this.latest.set(t.sensor, {
          sensor: t.sensor,
          tempC: t.tempC,
          at: Date.parse(t.at),
          ...(t.fault ? { fault: t.fault as TemperatureReading['fault'] } : {}),
        });
      }),
      this.d.bus.on('safety', (e) => {
        if ((e.kind === 'trip' || e.kind === 'estop') && e.trip && this.active) this.active.safetyStop(e.trip);
      }),
    );
    const presence = this.d.rig.presence;
    if (presence) {
      this.present = await presence.read();
      this.unsubscribe.push(presence.watch((v) => (this.present = v)));
    }
    return this.recover();
  }

  stopAll(message: string): void {
    this.active?.stop('shutdown', message);
  }

  async close(): Promise<void> {
    this.stopAll('the device is shutting down');
    for (const u of this.unsubscribe.splice(0)) u();
  }

  /** The sensed presence of a person. */
  humanPresent(): boolean {
    return this.present;
  }

  private logInfo(obj: object, msg: string): void {
    this.d.log?.info(obj, msg);
  }

  /** After a restart: every execution that had not ended is stopped, with a log entry saying why. */
  recover(): number {
    const open = this.repo.open();
    for (const row of open) this.abortAfterRestart(row);
    return open.length;
  }

  private abortAfterRestart(row: ExecutionRow): void {
    const now = this.d.clock.now();
    let machine: ExecutionMachine;
    try {
      machine = new ExecutionMachine(row.snapshot as ConstructorParameters<typeof ExecutionMachine>[0]);
    } catch {
      machine = ExecutionMachine.at('accepted');
    }
    const was = machine.state;
    if (machine.can('stopping')) machine.to('stopping');
    if (machine.can('stopped')) machine.to('stopped');
    const log = row.log as ExecutionLog;
    const message = `the device process ended while this execution was ${was}; every output was switched off at start-up and the execution was stopped; it does not resume by itself`;
    log['x-hearth-events'] = [...(log['x-hearth-events'] ?? []), { at: iso(now), kind: 'restart', message }];
    log.outcome = 'aborted_safe';
    log.endedAt = iso(now);
    const prev = row.status as ExecutionStatus;
    const status: ExecutionStatus = {
      core: CORE_VERSION,
      kind: 'ExecutionStatus',
      id: row.id,
      request: row.requestId,
      state: machine.state,
      seq: prev.seq + 1,
      updatedAt: iso(now),
    };
    this.repo.update({
      ...row,
      state: machine.state,
      seq: status.seq,
      status,
      snapshot: machine.persisted(),
      log,
      updatedAt: now,
      endedAt: now,
    });
    this.d.bus.emit('execution.state', {
      executionId: row.id,
      state: machine.state,
      seq: status.seq,
      outcome: 'aborted_safe',
      at: status.updatedAt,
    });
    this.d.log?.warn({ execution: row.id, was }, 'execution stopped after restart');
  }

  private newLog(id: string, req: ExecuteRequest, hash: string): ExecutionLog {
    const limits = this.d.device.limitsInForce;
    return {
      core: CORE_VERSION,
      kind: 'ExecutionLog',
      id,
      recipe: req.recipe,
      recipeHash: hash,
      device: {
        vendor: this.d.device.vendor,
        model: this.d.device.model,
        capabilitiesHash: this.d.device.capabilitiesHash,
        safetyLimits: `${limits.id}@${limits.version}`,
      },
      startedAt: iso(this.d.clock.now()),
      ...(req.servings !== undefined ? { servings: req.servings } : {}),
      steps: [],
      safetyEvents: [],
      humanInterventions: [],
      consent: { dataset: 'none' },
      privacy: { personalData: 'none' },
      'x-hearth-events': [],
    };
  }

  /**
   * A further start check every start passes through (whatever transport asked): the hub's operating mode
   * (`away` refuses heat) registers one. A guard only refuses; it can never let through what the checks refused.
   */
  addStartGuard(guard: StartGuard): () => void {
    this.startGuards.add(guard);
    return () => this.startGuards.delete(guard);
  }

  start(req: ExecuteRequest, principal: Principal | null): StartResult {
    const recipeId = requestedRecipeId(req.recipe);
    const recipe = this.d.recipes.get(recipeId);
    const now = this.d.clock.now();
    const check = startChecks({
      req,
      principal,
      recipe,
      recall: (rid, hash) => this.recalls.blocking(rid, hash),
      capabilities: this.d.device.capabilities,
      limits: this.d.device.limitSets,
      humanPresent: this.present,
      busyWith: this.active?.id,
      latched: this.latchedMessage(),
      now: new Date(now),
      mandateKeys: req.mandate ? (this.d.mandateKeys?.() ?? []) : [],
      wallNow: new Date(),
    });
    if (check.kind === 'unknown_recipe') return { kind: 'unknown_recipe', recipe: recipeId };
    const id = `ex-${randomUUID()}`;
    const exec = new Execution(
      id,
      { id: req.id, recipe: req.recipe, recipeHash: req.recipeHash, servings: req.servings },
      check.plan,
      this.newLog(id, req, req.recipeHash),
      {
        repo: this.repo,
        bus: this.d.bus,
        clock: this.d.clock,
        env: {
          supervisor: this.d.supervisor,
          heaters: [...this.d.rig.heaters.values()].map((h) => ({ id: h.id, medium: h.medium, sensors: h.sensors })),
          sensors: [...this.d.rig.sensors.values()].map((s) => ({ id: s.id, svcSensor: s.svcSensor })),
          latest: (sid) => this.latest.get(sid),
          simulatedCues: this.d.simulated,
        },
        present: () => this.present,
        tickMs: this.d.tickMs ?? 500,
        onEnd: (e) => {
          if (this.active === e) this.active = undefined;
          this.logInfo({ execution: e.id, outcome: e.log.outcome, state: e.state }, 'execution ended');
        },
        warn: (msg, extra) => this.d.log?.warn({ ...extra }, msg),
      },
    );
    exec.insert();
    if (check.kind === 'accepted') {
      for (const guard of this.startGuards) {
        const refusal = guard(check.plan);
        if (refusal) {
          exec.refuse(refusal);
          this.logInfo({ execution: id, reason: refusal.reason }, 'execution refused by a start guard');
          return { kind: 'status', status: exec.status };
        }
      }
    }
    if (check.kind === 'refused') {
      exec.refuse(check.refusal);
      this.logInfo({ execution: id, reason: check.refusal.reason }, 'execution refused');
      return { kind: 'status', status: exec.status };
    }
    this.active = exec;
    exec.begin();
    this.logInfo({ execution: id, recipe: recipeId, steps: check.plan.length }, 'execution started');
    return { kind: 'status', status: exec.status };
  }

  private latchedMessage(): string | undefined {
    const s = this.d.supervisor.status();
    return s.latched ? `${s.trip?.reason ?? 'trip'}: ${s.trip?.message ?? 'safety stop'}` : undefined;
  }

  /** The live execution, if it is this one. */
  private live(id: string): Execution | undefined {
    return this.active?.id === id ? this.active : undefined;
  }

  status(id: string): ExecutionStatus | undefined {
    const live = this.live(id);
    if (live) return live.status;
    return this.repo.get(id)?.status as ExecutionStatus | undefined;
  }

  /** The log of an ended execution; `running` while it has not ended. */
  executionLog(id: string): ExecutionLog | 'running' | undefined {
    if (this.live(id)) return 'running';
    const row = this.repo.get(id);
    if (!row) return undefined;
    return row.endedAt === null ? 'running' : (row.log as ExecutionLog);
  }

  /** Stop: heat is cut before this returns; a final execution is returned as it is. */
  stop(id: string): ExecutionStatus | undefined {
    const live = this.live(id);
    if (live) {
      live.stop('stop_requested', 'a stop was requested');
      return live.status;
    }
    return this.status(id);
  }

  resume(id: string, ifMatch: string): ResumeResult {
    const status = this.status(id);
    if (!status) return { kind: 'not_found' };
    if (!etagMatches(ifMatch, status.seq)) return { kind: 'precondition_failed', current: status.seq };
    const live = this.live(id);
    if (!live) return { kind: 'conflict', why: 'state', message: `an execution in state ${status.state} cannot resume` };
    try {
      live.resume();
    } catch (err) {
      if (err instanceof ResumeError) return { kind: 'conflict', why: err.why, message: err.message };
      throw err;
    }
    return { kind: 'ok', status: live.status };
  }

  /** Pause the running execution (for the hub). */
  pause(id: string): ExecutionStatus | undefined {
    const live = this.live(id);
    live?.pause();
    return live?.status;
  }

  get activeId(): string | undefined {
    return this.active?.id;
  }

  /** The live execution's id and recipe revision (the recipe id as recalls name it), if one runs. */
  activeRevision(): { executionId: string; recipeId: string; hash: string } | undefined {
    const a = this.active;
    if (!a || a.final) return undefined;
    return { executionId: a.id, recipeId: requestedRecipeId(a.request.recipe), hash: a.request.recipeHash };
  }

  /**
   * Stop the live execution `id` because a recall names its revision: the normal stop (heat released through
   * the supervisor before this returns), logged as `recalled`, its state events carrying `recall:<recall id>`.
   */
  stopForRecall(id: string, recall: { id: string; detail?: unknown }): ExecutionStatus | undefined {
    const live = this.live(id);
    if (!live) return undefined;
    const detail = typeof recall.detail === 'string' ? `: ${recall.detail.slice(0, 200)}` : '';
    live.stop(
      'recalled',
      `recall ${recall.id} names this recipe revision and asks to stop running executions${detail}`,
      'The recipe was recalled by its index: do not serve what was cooked; look for a replacement revision.',
      `recall:${recall.id}`,
    );
    this.logInfo({ execution: id, recall: recall.id }, 'execution stopped by a recall');
    return live.status;
  }

  /** Note on the live execution `id` that a recall which lets it finish (`block`, `warn`) names its revision. */
  noteRecall(id: string, recall: { id: string; action?: unknown }): void {
    this.live(id)?.note(
      'recalled',
      `recall ${recall.id} (${String(recall.action ?? 'block')}) names this recipe revision: it runs to its end, new starts are refused`,
    );
  }
}

/** If-Match against the status seq: `*`, `"<seq>"`, `W/"<seq>"` or a bare seq, in a comma list. */
export function etagMatches(header: string, seq: number): boolean {
  return header.split(',').some((part) => {
    const v = part.trim();
    if (v === '*') return true;
    const m = /^(?:W\/)?"([0-9]+)"$/.exec(v) ?? /^([0-9]+)$/.exec(v);
    return m !== null && Number(m[1]) === seq;
  });
}
