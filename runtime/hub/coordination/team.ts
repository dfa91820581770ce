/**
 * Team plans (`team_call_for_proposals`, `POST /svc/v1/team-plans`): a session's steps split among the kitchen's
 * actors by capability and time (runtime/hub/coordination/team-schedule.ts), written as a TeamPlan document
 * (schemas/json/team-plan.schema.json) and kept in the store (migration `hub.team.1`). The plan's assignments go
 * through the task API: every planned step is a hub task of kind `team_step` assigned to its actor, so a re-plan
 * that moves a step changes the task's assignee and fires `task.updated`. The plan id is a hash of what the plan
 * was made from: the same request gives the same plan.
 */
import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { canonicalize } from '../../../core/canonical.js';
import type { Principal } from '../../../platform/http/auth.js';
import { ProblemError } from '../../../platform/http/problems.js';
import type { Migration } from '../../../platform/sqlite/migrations.js';
import { validate } from '../../../schemas/index.js';
import { getOp, opEnvelope } from '../../../schemas/vocab.js';
import type { RecipeCatalog } from '../../config/recipes.js';
import { actorOf, type SessionService } from '../sessions/index.js';
import { type Actor, FINAL_SESSION_STATES, FINAL_TASK_STATES, SVC_VERSION, type Task } from '../types.js';
import { familyOf, kitchenActors, MAX_PEOPLE, sessionSteps } from './team-inputs.js';
import { type Schedule, type StepTask, schedule, type TeamActor } from './team-schedule.js';

export const teamMigration: Migration = {
  id: 'hub.team.1',
  up(db) {
    db.exec(`CREATE TABLE hub_team_plans (
      id TEXT PRIMARY KEY, session_id TEXT NOT NULL, doc TEXT NOT NULL, created_at INTEGER NOT NULL)`);
    db.exec('CREATE INDEX hub_team_plans_session ON hub_team_plans (session_id, created_at)');
  },
};

export interface TeamPlanInput {
  sessionId: string;
  /** A subset of the session's steps (`<recipeId>#<nodeId>`, or node ids for a one-recipe session). */
  tasks?: string[];
  /** Robots and appliances beside the hub's own device: capabilities documents. */
  actors?: unknown[];
  /** People of the household at hand (default 1). */
  people?: number;
}

/** The body of `POST /svc/v1/team-plans` and the input of the MCP tool `team_call_for_proposals`. */
export const teamPlanInputSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['sessionId'],
  properties: {
    sessionId: { type: 'string', minLength: 1, maxLength: 100 },
    tasks: { type: 'array', minItems: 1, maxItems: 200, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 200 } },
    actors: { type: 'array', maxItems: 20, items: { type: 'object', maxProperties: 40 } },
    people: { type: 'integer', minimum: 0, maximum: MAX_PEOPLE },
  },
} as const;

export interface TeamDeps {
  db: Database;
  sessions: SessionService;
  recipes: Pick<RecipeCatalog, 'get'>;
  /** The hub's own device (its capabilities document). */
  capabilities: unknown;
  now: () => number;
}

export type TeamPlan = Record<string, unknown> & { id: string; sessionId: string };

/** `PT3M`, `PT1H2M5S`, `PT0S`. */
export function isoDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  const out = `PT${h ? `${h}H` : ''}${m ? `${m}M` : ''}${r ? `${r}S` : ''}`;
  return out === 'PT' ? 'PT0S' : out;
}

const ROLES: Record<string, string> = {
  handle: 'fetch_and_finish',
  cut: 'prep',
  combine: 'prep',
  shape: 'prep',
  heat: 'heat',
  cool: 'heat',
  finish: 'fetch_and_finish',
  aux: 'assist',
};

/** The role of an actor: what most of its planned time goes to. */
function roleOf(actor: TeamActor, tasks: readonly { op: string; durationS: number }[]): string {
  const time = new Map<string, number>();
  for (const t of tasks) {
    const role = ROLES[familyOf(t.op) ?? ''] ?? 'assist';
    time.set(role, (time.get(role) ?? 0) + t.durationS);
  }
  const best = [...time.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? 'assist';
  return actor.kind === 'human' && best === 'assist' ? 'supervise' : best;
}

/** Steps a device may not do unattended (the vocabulary's envelope says so): a person must be present. */
function needsPerson(op: string): boolean {
  return opEnvelope(op)?.unattended === false;
}

const assigneeOf = (a: TeamActor): Actor => ({ id: a.id, kind: a.kind === 'human' ? 'human' : 'device' });

export class TeamService {
  constructor(private readonly d: TeamDeps) {}

  get(id: string): TeamPlan {
    const row = this.d.db.prepare('SELECT doc FROM hub_team_plans WHERE id = ?').get(id) as { doc: string } | undefined;
    if (!row) throw new ProblemError('not-found', `no team plan ${id} on this hub`);
    return JSON.parse(row.doc) as TeamPlan;
  }

  /** Plan (or re-plan) a session; `created` is false when the same request had already made this plan. */
  propose(input: TeamPlanInput, by: Principal): { plan: TeamPlan; created: boolean } {
    const session = this.d.sessions.get(input.sessionId);
    if (FINAL_SESSION_STATES.includes(session.state))
      throw new ProblemError('conflict', `session ${session.id} is ${session.state}; its tasks are no longer planned`);
    // Steps already reported done (their team_step task completed) are not planned again.
    const done = new Set(
      this.d.sessions.tasks
        .list(session.id, 10_000)
        .filter((t) => t.kind === 'team_step' && t.state === 'completed' && t.step)
        .map((t) => t.step?.ref),
    );
    const steps = sessionSteps(session, this.d.recipes, input.tasks)
      .filter((s) => !done.has(s.ref))
      .map((s) => ({ ...s, deps: s.deps.filter((d) => !done.has(d)) }));
    if (steps.length === 0) throw new ProblemError('conflict', `every step asked for in session ${session.id} is already done`);
    const actors = kitchenActors(this.d.capabilities, input.actors ?? [], input.people ?? 1);
    const id = `tp-${createHash('sha256')
      .update(
        canonicalize({
          sessionId: session.id,
          recipes: session.recipes.map((r) => [r.recipeId, r.hash]),
          steps: steps.map((s) => s.ref),
          actors: actors.map((a) => [a.id, a.kind, a.ops === 'all' ? 'all' : [...a.ops].sort()]),
        }),
      )
      .digest('hex')
      .slice(0, 24)}`;
    const row = this.d.db.prepare('SELECT doc FROM hub_team_plans WHERE id = ?').get(id) as { doc: string } | undefined;
    if (row) {
      const plan = JSON.parse(row.doc) as TeamPlan;
      this.assign(plan, actors);
      return { plan, created: false };
    }
    const plan = this.document(id, session.id, session.serveAt, steps, actors, schedule(steps, actors), by);
    const checked = validate.teamPlan(plan);
    if (!checked.valid) throw new Error(`the team plan does not match its schema: ${JSON.stringify(checked.issues.slice(0, 3))}`);
    this.d.db
      .prepare('INSERT INTO hub_team_plans (id, session_id, doc, created_at) VALUES (?, ?, ?, ?)')
      .run(id, session.id, JSON.stringify(plan), this.d.now());
    this.assign(plan, actors);
    return { plan, created: true };
  }

  private document(
    id: string,
    sessionId: string,
    serveAt: string,
    steps: readonly StepTask[],
    actors: readonly TeamActor[],
    s: Schedule,
    by: Principal,
  ): TeamPlan {
    const step = new Map(steps.map((t) => [t.ref, t]));
    const serve = Date.parse(serveAt);
    const handoffTo = new Map<string, string>();
    for (const h of s.handoffs) if (!handoffTo.has(h.fromRef)) handoffTo.set(h.fromRef, h.to);
    const assignments = actors
      .map((a) => {
        const mine = s.slots.filter((x) => x.actorId === a.id);
        if (mine.length === 0) return undefined;
        const busy = mine.reduce((sum, x) => sum + (x.endS - x.startS), 0);
        return {
          actorId: a.id,
          kind: a.kind,
          role: roleOf(
            a,
            mine.map((x) => ({ op: step.get(x.ref)?.op ?? '', durationS: x.endS - x.startS })),
          ),
          utilization: s.makespanS > 0 ? Math.round((busy / s.makespanS) * 100) / 100 : 0,
          tasks: mine.map((x) => {
            const op = step.get(x.ref)?.op ?? '';
            const to = handoffTo.get(x.ref);
            return {
              ref: x.ref,
              op,
              start: isoDuration(x.startS),
              end: isoDuration(x.endS),
              ...(to && to !== a.id ? { handoffTo: to } : {}),
              instructions: { en: `${getOp(op)?.label ?? op} (${x.ref})` },
            };
          }),
        };
      })
      .filter((a) => a !== undefined);
    const byActor = new Map(actors.map((a) => [a.id, a]));
    const supervised = s.slots.filter((x) => byActor.get(x.actorId)?.kind !== 'human' && needsPerson(step.get(x.ref)?.op ?? ''));
    const people = actors.filter((a) => a.kind === 'human').length;
    const conditions = supervised.length > 0 ? [`A person present during ${supervised.map((x) => x.ref).join(', ')}`] : [];
    const assumptions = [
      'Step times are the recipes’ minimum times; a step with none takes a default by its operation family.',
      `${people} ${people === 1 ? 'person' : 'people'} of the household at hand.`,
    ];
    if (supervised.length > 0 && people === 0)
      assumptions.push(
        'No person is in the team, yet some device steps need one present: the hub refuses to start them until a person is sensed.',
      );
    return {
      svc: SVC_VERSION,
      kind: 'TeamPlan',
      id,
      sessionId,
      createdAt: new Date(this.d.now()).toISOString(),
      createdBy: actorOf(by),
      startAt: Number.isNaN(serve) ? serveAt : new Date(serve - s.makespanS * 1000).toISOString(),
      serveAt,
      makespan: isoDuration(s.makespanS),
      slack: 'PT0S',
      actors: actors.map((a) => ({ id: a.id, kind: a.kind, ...(a.ops === 'all' ? {} : { ops: [...a.ops].sort() }) })),
      assignments,
      criticalPath: s.criticalPath,
      handoffs: s.handoffs.map((h) => ({ from: h.from, to: h.to, item: h.item, at: isoDuration(h.atS) })),
      humanTasks: s.slots.filter((x) => byActor.get(x.actorId)?.kind === 'human').map((x) => x.ref),
      safety: { verdict: conditions.length > 0 ? 'safe_with_conditions' : 'safe', ...(conditions.length > 0 ? { conditions } : {}) },
      solver: { name: 'hearth-list-scheduler', status: 'feasible', objective: 'earliest_finish' },
      assumptions,
    };
  }

  /** The plan's assignments through the task API: a `team_step` task per step, its assignee the step's actor. */
  private assign(plan: TeamPlan, actors: readonly TeamActor[]): void {
    const byId = new Map(actors.map((a) => [a.id, a]));
    const existing = new Map<string, Task>();
    for (const t of this.d.sessions.tasks.list(plan.sessionId, 10_000))
      if (t.kind === 'team_step' && t.step && !FINAL_TASK_STATES.includes(t.state)) existing.set(t.step.ref, t);
    for (const a of plan.assignments as { actorId: string; tasks: { ref: string; op: string; start: string; end: string }[] }[]) {
      const actor = byId.get(a.actorId);
      if (!actor) continue;
      const assignee = assigneeOf(actor);
      for (const x of a.tasks) {
        const step = { ref: x.ref, op: x.op, planId: plan.id, start: x.start, end: x.end };
        const message = { en: `${getOp(x.op)?.label ?? x.op} (${x.ref}) for ${actor.id}, ${x.start} to ${x.end} of team plan ${plan.id}` };
        const t = existing.get(x.ref);
        if (!t) {
          this.d.sessions.newTask({ sessionId: plan.sessionId, kind: 'team_step', state: 'submitted', assignee, message, step });
          continue;
        }
        if (t.assignee.id === assignee.id && t.assignee.kind === assignee.kind && canonicalize(t.step) === canonicalize(step)) continue;
        t.assignee = assignee;
        t.step = step;
        t.message = message;
        this.d.sessions.saveTask(t, t.state);
      }
    }
  }
}
