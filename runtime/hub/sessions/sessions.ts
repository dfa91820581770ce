/**
 * Sessions (semantics §8): a person or an agent creates one (`planned`); a confirmation acknowledges the rules
 * a person must accept (an agent only prepares it: `awaiting_confirmation` plus a task for a person); start
 * checks recalls, the sensed presence of a person and a dry run of every recipe, then cooks the recipes one
 * after another through the executor's own service (never around it). The session follows its executions on
 * the bus: a cooking check (`needs_human`) becomes an `input_required` task; a stop aborts the session.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { Principal } from '../../../platform/http/auth.js';
import { ProblemError } from '../../../platform/http/problems.js';
import { dryRun } from '../../../safety/dry-run.js';
import { recipeFacts } from '../../../services/index/entry.js';
import type { Household } from '../../../services/planning/context.js';
import { AWAY_REFUSAL, checkHousehold, checkLevel } from '../../../services/planning/policy.js';
import type { DeviceConfig } from '../../config/device.js';
import type { RecipeCatalog } from '../../config/recipes.js';
import type { EventBus } from '../../events/bus.js';
import type { Executor } from '../../executor/executor.js';
import type { SafetySupervisor } from '../../supervisor/types.js';
import { SessionRepo, TaskRepo } from '../store.js';
import { type Actor, FINAL_SESSION_STATES, HOUSEHOLD, type Session, SVC_VERSION, type Task, type TaskState } from '../types.js';
import { SessionDriver } from './driver.js';
import { checkRecipe } from './rules.js';

export interface SessionDeps {
  db: Database;
  bus: EventBus;
  /** The device clock. */
  now: () => number;
  executor: Pick<Executor, 'start' | 'status' | 'stop' | 'pause' | 'resume' | 'humanPresent' | 'recalls'>;
  supervisor: Pick<SafetySupervisor, 'status'>;
  recipes: RecipeCatalog;
  device: Pick<DeviceConfig, 'capabilities' | 'limitSets'>;
  log?: { warn(obj: object, msg?: string): void };
  /** The household's standing constraints (runtime/hub/kitchen/household.ts): level, allergens, diets. */
  household?: () => Household;
  /** Leases (runtime/hub/coordination/leases.ts): a session holds its device while it cooks. */
  leases?: {
    claimForSession(sessionId: string, by: Principal): unknown;
    releaseForSession(sessionId: string, reason: string): void;
  };
}

export interface CreateSessionInput {
  recipes: { recipeId: string; servings?: number }[];
  serveAt: string;
  mode: string;
}

export const actorOf = (p: Principal): Actor => ({ id: p.id, kind: p.kind });

export class SessionService {
  readonly sessions: SessionRepo;
  readonly tasks: TaskRepo;
  readonly driver: SessionDriver;
  private unsubscribe?: () => void;

  constructor(private readonly d: SessionDeps) {
    this.sessions = new SessionRepo(d.db);
    this.tasks = new TaskRepo(d.db);
    this.driver = new SessionDriver(this, d);
  }

  iso(): string {
    return new Date(this.d.now()).toISOString();
  }

  /** Follow executions on the bus; sessions a previous process left running are aborted (nothing resumes by itself). */
  open(): void {
    for (const s of this.sessions.inStates(['running', 'paused'])) {
      s.abort = { reason: 'the hub restarted while this session was cooking; its execution was stopped', at: this.iso() };
      this.cancelOpenTasks(s.id);
      this.save(s, 'aborted');
    }
    this.unsubscribe = this.d.bus.on('execution.state', (e) => this.driver.onExecution(e));
  }

  close(): void {
    this.unsubscribe?.();
  }

  // ---- records -------------------------------------------------------------------------------------------

  get(id: string): Session {
    const s = this.sessions.get(id);
    if (!s) throw new ProblemError('not-found', `no session ${id} on this hub`);
    return s;
  }

  save(s: Session, state?: Session['state']): Session {
    if (state) s.state = state;
    s.updatedAt = this.iso();
    this.sessions.update(s, this.d.now());
    this.d.bus.emit('session.updated', { sessionId: s.id, state: s.state, at: s.updatedAt, session: { ...s } });
    return s;
  }

  newTask(t: Omit<Task, 'id' | 'createdAt' | 'updatedAt'>): Task {
    const at = this.iso();
    const task: Task = { id: `task-${randomUUID()}`, ...t, createdAt: at, updatedAt: at };
    this.tasks.insert(task, this.d.now());
    this.d.bus.emit('task.updated', { taskId: task.id, sessionId: task.sessionId, state: task.state, at, task: { ...task } });
    return task;
  }

  saveTask(t: Task, state: TaskState): Task {
    t.state = state;
    t.updatedAt = this.iso();
    this.tasks.update(t, this.d.now());
    this.d.bus.emit('task.updated', { taskId: t.id, sessionId: t.sessionId, state, at: t.updatedAt, task: { ...t } });
    return t;
  }

  cancelOpenTasks(sessionId: string, kind?: Task['kind']): void {
    for (const t of this.tasks.open(sessionId)) if (!kind || t.kind === kind) this.saveTask(t, 'canceled');
  }

  // ---- create and confirm --------------------------------------------------------------------------------

  create(input: CreateSessionInput, by: Principal): Session {
    const now = this.d.now();
    const recipes: Session['recipes'] = [];
    const rules = new Set<string>();
    for (const r of input.recipes) {
      const entry = this.d.recipes.get(r.recipeId);
      if (!entry) throw new ProblemError('unknown-recipe', `this hub holds no recipe ${JSON.stringify(r.recipeId)}`);
      const household = this.d.household?.();
      if (household) {
        checkLevel(recipeFacts({ ...entry.doc, id: entry.id, hash: entry.hash }), household);
        checkHousehold(entry.id, entry.doc, household);
      }
      const check = checkRecipe(entry, this.d.device.capabilities, this.d.device.limitSets, new Date(now));
      if (check.attended.state === 'refused') {
        throw new ProblemError(
          'no-feasible-plan',
          `recipe ${entry.id} cannot be cooked here even with a person present: ${check.attended.refusal?.reason}`,
          {
            recipeId: entry.id,
            refusal: check.attended.refusal,
          },
        );
      }
      for (const rule of check.rules) rules.add(rule);
      recipes.push({ recipeId: entry.id, servings: r.servings ?? 1, hash: entry.hash });
    }
    const at = new Date(now).toISOString();
    const session: Session = {
      svc: SVC_VERSION,
      id: `ses-${randomUUID()}`,
      state: 'planned',
      recipes,
      serveAt: input.serveAt,
      mode: input.mode,
      createdBy: actorOf(by),
      createdAt: at,
      updatedAt: at,
      confirmation: { requiredRules: [...rules].sort(), acknowledgedRules: [] },
    };
    this.sessions.insert(session, now);
    this.d.bus.emit('session.updated', { sessionId: session.id, state: session.state, at, session: { ...session } });
    return session;
  }

  /**
   * A person's confirmation completes it (200); an agent's prepares it: the session waits in
   * `awaiting_confirmation` with an `input_required` task for a person (202).
   */
  confirm(id: string, acknowledgedRules: string[], by: Principal): { session: Session; completed: boolean; task?: Task } {
    const s = this.get(id);
    if (s.state !== 'planned' && s.state !== 'awaiting_confirmation') {
      throw new ProblemError('conflict', `a session in state ${s.state} cannot be confirmed`);
    }
    const acked = new Set(acknowledgedRules);
    const missing = s.confirmation.requiredRules.filter((r) => !acked.has(r));
    if (missing.length > 0) {
      throw new ProblemError('policy-deny', `these rules must be acknowledged: ${missing.join(', ')}`, {
        missingRules: missing,
        requiredRules: s.confirmation.requiredRules,
      });
    }
    if (by.kind !== 'human') {
      s.confirmation.preparedBy = actorOf(by);
      s.confirmation.preparedAt = this.iso();
      s.confirmation.acknowledgedRules = [...acked].sort();
      let task = this.tasks.open(s.id).find((t) => t.kind === 'confirm_session');
      if (!task) {
        const list = s.confirmation.requiredRules.length > 0 ? s.confirmation.requiredRules.join(', ') : 'no special rules';
        task = this.newTask({
          sessionId: s.id,
          kind: 'confirm_session',
          state: 'input_required',
          assignee: HOUSEHOLD,
          message: {
            en: `An agent prepared this session (${s.recipes.map((r) => r.recipeId).join(', ')}). A person must confirm it and acknowledge: ${list}.`,
          },
          rules: s.confirmation.requiredRules,
        });
      }
      return { session: this.save(s, 'awaiting_confirmation'), completed: false, task };
    }
    s.confirmation.acknowledgedRules = [...acked].sort();
    s.confirmation.confirmedBy = actorOf(by);
    s.confirmation.confirmedAt = this.iso();
    for (const t of this.tasks.open(s.id)) {
      if (t.kind !== 'confirm_session') continue;
      t.answer = { value: 'yes', by: actorOf(by), at: this.iso() };
      this.saveTask(t, 'completed');
    }
    return { session: this.save(s, 'planned'), completed: true };
  }

  /** A person declined the prepared confirmation: back to planned, unconfirmed. */
  decline(s: Session): Session {
    delete s.confirmation.preparedBy;
    delete s.confirmation.preparedAt;
    s.confirmation.acknowledgedRules = [];
    return this.save(s, 'planned');
  }

  // ---- start, pause, resume, abort ----------------------------------------------------------------------

  start(id: string, by: Principal): Session {
    const s = this.get(id);
    if (s.state !== 'planned' && s.state !== 'awaiting_confirmation')
      throw new ProblemError('conflict', `a session in state ${s.state} cannot start`);
    const confirmedBy = s.confirmation.confirmedBy;
    if (s.state !== 'planned' || !confirmedBy) {
      throw new ProblemError(
        'conflict',
        'the session is not confirmed: a person must confirm it (POST …/confirm with a person’s token) before it starts',
      );
    }
    for (const r of s.recipes) {
      const recall = this.d.executor.recalls.blocking(r.recipeId, r.hash);
      if (recall)
        throw new ProblemError('recalled', `recipe ${r.recipeId} at ${r.hash} is recalled (${recall.id})`, {
          recipeId: r.recipeId,
          recall: recall.id,
        });
    }
    const latched = this.d.supervisor.status();
    if (latched.latched)
      throw new ProblemError('conflict', `a safety stop is latched (${latched.trip?.reason ?? 'trip'}); a person must reset it first`);
    const present = this.d.executor.humanPresent();
    const now = new Date(this.d.now());
    for (const r of s.recipes) {
      const entry = this.d.recipes.get(r.recipeId);
      if (!entry || entry.hash !== r.hash)
        throw new ProblemError('hash-mismatch', `the hub no longer holds recipe ${r.recipeId} at ${r.hash}`);
      const dry = dryRun({
        recipe: entry.doc,
        capabilities: this.d.device.capabilities,
        humanPresent: present,
        limits: this.d.device.limitSets,
        now,
      });
      if (dry.state === 'refused') {
        const reason = dry.refusal?.reason;
        if (reason === 'needs_human_present') {
          throw new ProblemError(
            'presence-required',
            `recipe ${r.recipeId} step ${dry.refusal?.node} needs a person at the appliance and none is sensed`,
            { refusal: dry.refusal },
          );
        }
        throw new ProblemError('no-feasible-plan', `recipe ${r.recipeId} cannot be cooked now: ${reason} (${dry.refusal?.detail ?? ''})`, {
          refusal: dry.refusal,
        });
      }
    }
    // The device it cooks on is leased to the session (409 lease-conflict while another holds it or one of its parts).
    this.d.leases?.claimForSession(s.id, by);
    s.startedBy = actorOf(by);
    let status: ReturnType<SessionDriver['startRecipe']>;
    try {
      status = this.driver.startRecipe(s, 0);
    } catch (err) {
      this.d.leases?.releaseForSession(s.id, 'start_failed');
      throw err;
    }
    if (status.state === 'refused') {
      this.d.leases?.releaseForSession(s.id, 'start_refused');
      delete s.recipes[0]?.executionId;
      this.save(s, 'planned');
      const reason = status.refusal?.reason ?? 'refused';
      const slug =
        reason === 'needs_human_present'
          ? 'presence-required'
          : reason === 'recipe_recalled'
            ? 'recalled'
            : reason === 'busy'
              ? 'conflict'
              : status.refusal?.detail.startsWith(AWAY_REFUSAL)
                ? 'policy-deny'
                : 'no-feasible-plan';
      throw new ProblemError(slug, `the executor refused: ${reason} (${status.refusal?.detail ?? ''})`, { refusal: status.refusal });
    }
    return this.save(s, 'running');
  }

  private currentExecution(s: Session): string {
    const id = s.current === undefined ? undefined : s.recipes[s.current]?.executionId;
    if (!id) throw new ProblemError('conflict', `session ${s.id} has no execution`);
    return id;
  }

  pause(id: string): Session {
    const s = this.get(id);
    if (s.state !== 'running') throw new ProblemError('conflict', `a session in state ${s.state} cannot pause`);
    const status = this.d.executor.status(this.currentExecution(s));
    if (status?.state !== 'running') throw new ProblemError('conflict', `the execution is ${status?.state ?? 'gone'} and cannot pause now`);
    this.d.executor.pause(status.id);
    return this.save(this.get(id), 'paused');
  }

  resume(id: string): Session {
    const s = this.get(id);
    if (s.state !== 'paused') throw new ProblemError('conflict', `a session in state ${s.state} cannot resume`);
    const r = this.d.executor.resume(this.currentExecution(s), '*');
    if (r.kind === 'conflict') throw new ProblemError(r.why === 'presence' ? 'presence-required' : 'conflict', r.message);
    if (r.kind !== 'ok') throw new ProblemError('conflict', 'the execution cannot resume');
    return this.save(this.get(id), 'running');
  }

  abort(id: string, reason: string, by?: Principal): Session {
    const s = this.get(id);
    if (FINAL_SESSION_STATES.includes(s.state)) return s;
    s.abort = { reason, at: this.iso(), ...(by ? { by: actorOf(by) } : {}) };
    this.save(s, 'aborted');
    this.cancelOpenTasks(s.id);
    const exec = s.current === undefined ? undefined : s.recipes[s.current]?.executionId;
    if (exec) this.d.executor.stop(exec);
    return this.get(id);
  }

  /** A cooking check answered: resume the execution (the executor checks presence again). */
  answerCheck(t: Task): void {
    if (!t.executionId) throw new ProblemError('conflict', 'this task is not about an execution');
    const r = this.d.executor.resume(t.executionId, '*');
    if (r.kind === 'conflict') throw new ProblemError(r.why === 'presence' ? 'presence-required' : 'conflict', r.message);
    if (r.kind !== 'ok') throw new ProblemError('conflict', 'the execution cannot resume');
  }
}
