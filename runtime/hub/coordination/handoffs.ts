/**
 * Handoffs (spec §2.2 Handoff): a task (or an intermediate such as a hot pan) moves from one actor to another —
 * a person, this hub's own robot or appliance, or an agent — with both sides' acknowledgement:
 *
 *   proposed → accepted (the receiving side) → completed (the giving side), or declined (either side) or
 *   expired (still open at `expiresAt`, device clock).
 *
 * A task's assignee changes only at completion, when both sides have acknowledged. A person's side is
 * acknowledged with a person's token (else 403 `not-human-approver`); an agent's side by that agent's own
 * token; a robot's or appliance's side only when it is this hub's device, and then the hub acknowledges for it
 * (never while a safety stop is latched). Tasks only a person can do (a confirmation, a cooking check) go only
 * to a person (422 `capability-mismatch`). Each step publishes `svc.handoff.<state>` and `svc.task.updated`.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { Principal } from '../../../platform/http/auth.js';
import { ProblemError } from '../../../platform/http/problems.js';
import type { EventBus } from '../../events/bus.js';
import type { SessionService } from '../sessions/index.js';
import { type Actor, FINAL_TASK_STATES, SVC_VERSION, type Task } from '../types.js';
import { type Handoff, type HandoffActor, HandoffRepo, type HandoffState, OPEN_HANDOFF_STATES } from './leases-store.js';

export const HANDOFF_TTL_DEFAULT_S = 900;
/** Tasks only a person can do: a confirmation (spec §5) and a cooking check (a person at the appliance). */
export const PERSON_ONLY_TASKS: readonly Task['kind'][] = ['confirm_session', 'cooking_check'];

export interface ProposeInput {
  to: HandoffActor;
  from?: HandoffActor;
  taskId?: string;
  item?: string;
  location?: string;
  hazards?: string[];
  ttlSeconds?: number;
}

export interface HandoffDeps {
  db: Database;
  bus: EventBus;
  now: () => number;
  sessions: Pick<SessionService, 'tasks' | 'saveTask'>;
  /** This hub's own device (the robot or appliance the hub acknowledges for). */
  device: () => { id: string; kind: 'robot' | 'appliance' };
  /** Is a safety stop latched? The hub acknowledges nothing for its device then. */
  latched: () => boolean;
}

const actorOf = (p: Principal): Actor => ({ id: p.id, kind: p.kind });

/** The hub's task assignee for a handoff side (robots and appliances are the hub's `device` actors). */
export function taskActor(a: HandoffActor): Actor {
  return { id: a.id, kind: a.kind === 'robot' || a.kind === 'appliance' ? 'device' : a.kind };
}

export class HandoffService {
  readonly repo: HandoffRepo;

  constructor(private readonly d: HandoffDeps) {
    this.repo = new HandoffRepo(d.db);
  }

  private iso(ms = this.d.now()): string {
    return new Date(ms).toISOString();
  }

  /** The task's assignee as a handoff side. */
  private sideOf(a: Actor): HandoffActor {
    if (a.kind === 'device') return { id: a.id, kind: this.d.device().kind };
    return { id: a.id, kind: a.kind };
  }

  private checkSide(a: HandoffActor, which: string): void {
    const dev = this.d.device();
    if ((a.kind === 'robot' || a.kind === 'appliance') && a.id !== dev.id)
      throw new ProblemError(
        'validation-failed',
        `${which}: this hub acknowledges only for its own device (${dev.id}); ${a.kind} ${a.id} is not on this hub`,
        { device: dev.id },
      );
  }

  private step(h: Handoff, state: HandoffState): Handoff {
    h.state = state;
    h.updatedAt = this.iso();
    this.repo.update(h);
    this.publish(h);
    return h;
  }

  /** `svc.handoff.<state>`, then the task's own update (its handoff as it stands, its assignee at completion). */
  private publish(h: Handoff): void {
    this.d.bus.emit('handoff', { kind: h.state, handoff: { ...h }, at: h.updatedAt });
    if (!h.taskId) return;
    const t = this.d.sessions.tasks.get(h.taskId);
    if (!t) return;
    t.handoff = { id: h.id, state: h.state, to: { id: h.to.id, kind: h.to.kind } };
    if (h.state === 'completed') t.assignee = taskActor(h.to);
    this.d.sessions.saveTask(t, t.state);
  }

  get(id: string): Handoff {
    this.sweep(this.d.now());
    const h = this.repo.get(id);
    if (!h) throw new ProblemError('not-found', `no handoff ${id} on this hub`);
    return h;
  }

  list(filter: { state?: string; taskId?: string } = {}): Handoff[] {
    this.sweep(this.d.now());
    return this.repo.list(filter);
  }

  /** Open handoffs past their expiry become `expired`. */
  sweep(now: number): void {
    for (const h of this.repo.due(now)) this.step(h, 'expired');
  }

  propose(input: ProposeInput, by: Principal): Handoff {
    this.sweep(this.d.now());
    let task: Task | undefined;
    let from = input.from;
    if (input.taskId !== undefined) {
      task = this.d.sessions.tasks.get(input.taskId);
      if (!task) throw new ProblemError('not-found', `no task ${input.taskId} on this hub`);
      if (FINAL_TASK_STATES.includes(task.state))
        throw new ProblemError('conflict', `task ${task.id} is ${task.state}; nothing to hand over`);
      const current = this.sideOf(task.assignee);
      if (from && from.id !== current.id)
        throw new ProblemError('conflict', `task ${task.id} is assigned to ${current.kind} ${current.id}, not ${from.kind} ${from.id}`, {
          assignee: { ...task.assignee },
        });
      from = from ?? current;
      if (PERSON_ONLY_TASKS.includes(task.kind) && input.to.kind !== 'human')
        throw new ProblemError(
          'capability-mismatch',
          `a ${task.kind} task is a person’s to do; ${input.to.kind} ${input.to.id} cannot take it`,
          {
            taskKind: task.kind,
          },
        );
      const open = this.repo.openForTask(task.id)[0];
      if (open)
        throw new ProblemError('conflict', `task ${task.id} already has an open handoff (${open.id}, ${open.state})`, {
          handoffId: open.id,
        });
    }
    if (!from) throw new ProblemError('validation-failed', 'a handoff of an item (no taskId) names its from side');
    if (input.item === undefined && !task) throw new ProblemError('validation-failed', 'a handoff names a taskId or an item');
    this.checkSide(from, 'from');
    this.checkSide(input.to, 'to');
    if (from.id === input.to.id && from.kind === input.to.kind)
      throw new ProblemError('validation-failed', 'a handoff moves something between two different actors');
    const now = this.d.now();
    const expires = now + (input.ttlSeconds ?? HANDOFF_TTL_DEFAULT_S) * 1000;
    const at = this.iso(now);
    const h: Handoff = {
      svc: SVC_VERSION,
      id: `hof-${randomUUID()}`,
      from,
      to: input.to,
      item: input.item ?? (task?.id as string),
      ...(task ? { taskId: task.id, sessionId: task.sessionId } : {}),
      ...(input.location ? { location: input.location } : {}),
      ...(input.hazards?.length ? { hazards: [...input.hazards] } : {}),
      state: 'proposed',
      proposedBy: actorOf(by),
      createdAt: at,
      updatedAt: at,
      expiresAt: this.iso(expires),
      acks: {},
    };
    this.repo.insert(h, expires, now);
    this.publish(h);
    return h;
  }

  /**
   * May `by` acknowledge `side`? A person's side needs a person's token; an agent's side that agent's token;
   * the hub's own device is acknowledged by the hub (for any caller with the scope), unless a stop is latched.
   */
  private ack(side: HandoffActor, which: 'from' | 'to', by: Principal): { by: Actor; at: string; viaHub?: true } {
    const at = this.iso();
    if (side.kind === 'human') {
      if (by.kind !== 'human')
        throw new ProblemError('not-human-approver', `the ${which} side is a person (${side.id}): only a person’s token acknowledges it`);
      return { by: actorOf(by), at };
    }
    if (side.kind === 'agent') {
      if (by.kind !== 'agent' || by.id !== side.id)
        throw new ProblemError('forbidden', `the ${which} side is the agent ${side.id}: only that agent’s token acknowledges it`);
      return { by: actorOf(by), at };
    }
    if (this.d.latched())
      throw new ProblemError('conflict', `a safety stop is latched: the hub acknowledges nothing for ${side.id} until a person resets it`);
    return { by: actorOf(by), at, viaHub: true };
  }

  private open(id: string, want: readonly HandoffState[], what: string): Handoff {
    const h = this.get(id);
    if (!want.includes(h.state))
      throw new ProblemError('conflict', `handoff ${id} is ${h.state}; it cannot be ${what}`, { state: h.state });
    return h;
  }

  /** The receiving side acknowledges: proposed → accepted. */
  accept(id: string, by: Principal): Handoff {
    const h = this.open(id, ['proposed'], 'accepted');
    h.acks.to = this.ack(h.to, 'to', by);
    return this.step(h, 'accepted');
  }

  /** The giving side acknowledges the hand-over: accepted → completed; a task's assignee changes now. */
  complete(id: string, by: Principal): Handoff {
    const h = this.get(id);
    if (h.state === 'proposed')
      throw new ProblemError('conflict', `handoff ${id} is not accepted yet: the receiving side (${h.to.kind} ${h.to.id}) accepts first`);
    if (h.state !== 'accepted')
      throw new ProblemError('conflict', `handoff ${id} is ${h.state}; it cannot be completed`, { state: h.state });
    if (h.taskId) {
      const t = this.d.sessions.tasks.get(h.taskId);
      if (t && FINAL_TASK_STATES.includes(t.state)) throw new ProblemError('conflict', `task ${t.id} is ${t.state}; nothing to hand over`);
    }
    h.acks.from = this.ack(h.from, 'from', by);
    return this.step(h, 'completed');
  }

  /** Either side declines an open handoff (the receiver refuses, or the giver withdraws). */
  decline(id: string, by: Principal, reason?: string): Handoff {
    const h = this.open(id, OPEN_HANDOFF_STATES, 'declined');
    let side: 'from' | 'to' = 'to';
    try {
      this.ack(h.to, 'to', by);
    } catch (err) {
      side = 'from';
      try {
        this.ack(h.from, 'from', by);
      } catch {
        throw err;
      }
    }
    h.declined = { side, by: actorOf(by), at: this.iso(), ...(reason ? { reason } : {}) };
    return this.step(h, 'declined');
  }
}
