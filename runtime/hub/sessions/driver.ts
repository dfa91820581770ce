/**
 * How a session follows its executions: it starts each recipe through the executor (acting for the person who
 * confirmed the session) and listens to `execution.state` on the bus. A `needs_human` execution becomes an
 * `input_required` cooking check for a person; a completed one starts the next recipe (or completes the
 * session); a stopped one aborts the session and a failed or refused one fails it.
 */
import { randomUUID } from 'node:crypto';
import { ProblemError } from '../../../platform/http/problems.js';
import type { Household } from '../../../services/planning/context.js';
import type { BusEvents } from '../../events/bus.js';
import type { Executor } from '../../executor/executor.js';
import { CORE_VERSION, type ExecuteRequest, type ExecutionStatus } from '../../executor/types.js';
import type { SessionRepo, TaskRepo } from '../store.js';
import { FINAL_SESSION_STATES, HOUSEHOLD, type Session, type Task, type TaskState } from '../types.js';

/** What the driver needs of the session service: declared here so that driver.ts does not import sessions.ts. */
export interface SessionHost {
  readonly sessions: SessionRepo;
  readonly tasks: TaskRepo;
  iso(): string;
  save(s: Session, state?: Session['state']): Session;
  newTask(t: Omit<Task, 'id' | 'createdAt' | 'updatedAt'>): Task;
  saveTask(t: Task, state: TaskState): Task;
  cancelOpenTasks(sessionId: string, kind?: Task['kind']): void;
}

/** The part of the session service's dependencies the driver uses. */
export interface DriverDeps {
  now: () => number;
  executor: Pick<Executor, 'start' | 'status'>;
  log?: { warn(obj: object, msg?: string): void };
  household?: () => Household;
}

export class SessionDriver {
  private readonly byExecution = new Map<string, string>();

  constructor(
    private readonly svc: SessionHost,
    private readonly d: DriverDeps,
  ) {}

  /** Start recipe `i` of `s` on the executor, acting for the person who confirmed the session. */
  startRecipe(s: Session, i: number): ExecutionStatus {
    const r = s.recipes[i];
    const by = s.confirmation.confirmedBy;
    if (!r || !by) throw new Error(`session ${s.id} has no recipe ${i} or no confirmation`);
    const reqId = `${s.id}.${i}.${randomUUID().slice(0, 8)}`;
    const req: ExecuteRequest = {
      core: CORE_VERSION,
      kind: 'ExecuteRequest',
      id: reqId,
      recipe: r.recipeId,
      recipeHash: r.hash,
      requestedBy: `hub-session:${s.id}`,
      idempotencyKey: reqId,
      servings: r.servings,
      serveBy: s.serveAt,
      operatingMode: s.mode,
    };
    // The household's allergens travel with every start, so the executor refuses them whatever asked.
    const blocks = this.d.household?.().excludeAllergens ?? [];
    if (blocks.length > 0) req.allergenBlocks = [...blocks];
    const result = this.d.executor.start(req, { id: by.id, name: `session ${s.id}`, kind: 'human', scopes: ['cook'] });
    if (result.kind === 'unknown_recipe') throw new ProblemError('unknown-recipe', `the device holds no recipe ${r.recipeId}`);
    r.executionId = result.status.id;
    r.execution = { state: result.status.state };
    s.current = i;
    this.byExecution.set(result.status.id, s.id);
    return result.status;
  }

  onExecution(e: BusEvents['execution.state']): void {
    const sessionId = this.byExecution.get(e.executionId);
    if (!sessionId) return;
    const s = this.svc.sessions.get(sessionId);
    if (!s) return;
    const i = s.recipes.findIndex((r) => r.executionId === e.executionId);
    const r = s.recipes[i];
    if (!r) return;
    // Progress ticks advance the status seq without a change of state: nothing for the session to do.
    if (r.execution?.state === e.state && r.execution.outcome === e.outcome) return;
    r.execution = { state: e.state, ...(e.outcome ? { outcome: e.outcome } : {}) };
    if (e.state !== 'needs_human') {
      for (const t of this.svc.tasks.open(s.id))
        if (t.kind === 'cooking_check' && t.executionId === e.executionId) this.svc.saveTask(t, 'completed');
    }
    if (FINAL_SESSION_STATES.includes(s.state)) {
      this.svc.sessions.update(s, this.d.now());
      if (['completed', 'stopped', 'failed', 'refused'].includes(e.state)) this.byExecution.delete(e.executionId);
      return;
    }
    switch (e.state) {
      case 'needs_human': {
        const why = this.d.executor.status(e.executionId)?.humanNeeded?.why ?? 'the device needs a person';
        if (!this.svc.tasks.open(s.id).some((t) => t.kind === 'cooking_check' && t.executionId === e.executionId)) {
          this.svc.newTask({
            sessionId: s.id,
            kind: 'cooking_check',
            state: 'input_required',
            assignee: HOUSEHOLD,
            executionId: e.executionId,
            message: { en: `Cooking check for ${r.recipeId}: ${why}. Answer yes when done (a person must be at the appliance).` },
          });
        }
        this.svc.save(s, 'running');
        return;
      }
      case 'paused':
        this.svc.save(s, 'paused');
        return;
      case 'completed':
        this.byExecution.delete(e.executionId);
        this.svc.save(s);
        // The executor clears its active execution right after announcing the end: start the next one after that.
        queueMicrotask(() => this.advance(s.id, i + 1));
        return;
      case 'stopped':
      case 'failed':
      case 'refused': {
        this.byExecution.delete(e.executionId);
        const detail = this.d.executor.status(e.executionId)?.refusal?.detail ?? `execution ${e.executionId} ended ${e.state}`;
        s.failure = { reason: e.state === 'stopped' ? 'execution_stopped' : `execution_${e.state}`, detail, at: this.svc.iso() };
        this.svc.cancelOpenTasks(s.id);
        this.svc.save(s, e.state === 'stopped' ? 'aborted' : 'failed');
        return;
      }
      default:
        this.svc.save(s, s.state === 'paused' && e.state === 'running' ? 'running' : s.state);
    }
  }

  private advance(id: string, next: number): void {
    const s = this.svc.sessions.get(id);
    if (!s || FINAL_SESSION_STATES.includes(s.state)) return;
    if (next >= s.recipes.length) {
      delete s.current;
      this.svc.save(s, 'completed');
      return;
    }
    try {
      const status = this.startRecipe(s, next);
      if (status.state === 'refused') {
        s.failure = { reason: status.refusal?.reason ?? 'refused', detail: status.refusal?.detail ?? '', at: this.svc.iso() };
        this.svc.save(s, 'failed');
        return;
      }
      this.svc.save(s, 'running');
    } catch (err) {
      this.d.log?.warn({ session: id, err: (err as Error).message }, 'next recipe did not start');
      s.failure = { reason: 'start_failed', detail: (err as Error).message, at: this.svc.iso() };
      this.svc.save(s, 'failed');
    }
  }
}
