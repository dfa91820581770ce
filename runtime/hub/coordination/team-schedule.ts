/**
 * The team scheduler behind `team_call_for_proposals`: a list scheduler over a recipe's step graph. Each step
 * goes to an actor that can do it (its operation is among the actor's ops, and the step's `assignment.allowed`
 * admits the actor's kind); no actor does two steps at once; a step starts only when the steps whose outputs it
 * takes have ended. Steps are taken longest-remaining-path first (the critical path leads) and each goes to the
 * capable actor that finishes it earliest, except that a heating step stays with the actor that heated what it
 * takes (the pan does not change hobs mid-recipe). Every tie is broken by a fixed order, so the same input always gives
 * the same plan. A step no actor can do is a `capability-mismatch` naming the step and what it needs.
 */
import { ProblemError } from '../../../platform/http/problems.js';

export type ActorKind = 'human' | 'robot' | 'appliance';

export interface TeamActor {
  id: string;
  kind: ActorKind;
  /** Operations the actor performs; `all` for a person (a person can do any step a recipe allows a person). */
  ops: ReadonlySet<string> | 'all';
}

export interface StepTask {
  /** `<recipeId>#<nodeId>`. */
  ref: string;
  op: string;
  durationS: number;
  /** Refs of the steps that must end before this one starts. */
  deps: string[];
  /** Kinds allowed to do it (`any`, `human`, `robot`, `appliance`, `device`). */
  allowed: string[];
  preferred?: string;
  /** What the step produces (named in handoffs). */
  output?: string;
  /** A step whose actor this one stays with when it can (the pot stays on the hob that heated it). */
  stayWith?: string;
}

export interface Slot {
  ref: string;
  actorId: string;
  startS: number;
  endS: number;
}

export interface Handoff {
  from: string;
  to: string;
  item: string;
  atS: number;
  /** The step that hands over and the step that takes over. */
  fromRef: string;
  toRef: string;
}

export interface Schedule {
  slots: Slot[];
  makespanS: number;
  criticalPath: string[];
  handoffs: Handoff[];
}

function kindAllowed(allowed: readonly string[], kind: ActorKind): boolean {
  return allowed.includes('any') || allowed.includes(kind) || (kind !== 'human' && allowed.includes('device'));
}

export function canDo(actor: TeamActor, task: StepTask): boolean {
  if (!kindAllowed(task.allowed, actor.kind)) return false;
  return actor.ops === 'all' || actor.ops.has(task.op);
}

/** What a step needs, in words (for a refusal). */
export function needOf(task: StepTask): string {
  const who = task.allowed.includes('any') ? 'a person, or a robot or appliance' : task.allowed.join(' or ');
  return `${who} that can perform ${task.op}`;
}

/** Refuse when some step has no capable actor, naming every such step and what it needs. */
export function checkCapabilities(tasks: readonly StepTask[], actors: readonly TeamActor[]): void {
  const missing = tasks.filter((t) => !actors.some((a) => canDo(a, t)));
  if (missing.length === 0) return;
  const list = missing.map((t) => `${t.ref} needs ${needOf(t)}`).join('; ');
  throw new ProblemError(
    'capability-mismatch',
    `no actor of this kitchen can do ${missing.length === 1 ? 'this task' : 'these tasks'}: ${list}`,
    {
      tasks: missing.map((t) => ({ ref: t.ref, op: t.op, allowed: t.allowed })),
      actors: actors.map((a) => ({ id: a.id, kind: a.kind })),
    },
  );
}

/** Rank of the ordering: a person only when no robot or appliance is as early (people stay free for what only they do). */
function preference(actor: TeamActor, task: StepTask): number {
  if (task.preferred && (task.preferred === actor.kind || (task.preferred === 'device' && actor.kind !== 'human'))) return 0;
  return actor.kind === 'human' ? 2 : 1;
}

/** Schedule `tasks` (in their given order, which breaks ties) on `actors` (in their given order, likewise). */
export function schedule(tasks: readonly StepTask[], actors: readonly TeamActor[]): Schedule {
  checkCapabilities(tasks, actors);
  const byRef = new Map(tasks.map((t, i) => [t.ref, { t, i }]));
  const succ = new Map<string, string[]>(tasks.map((t) => [t.ref, []]));
  for (const t of tasks) for (const d of t.deps) succ.get(d)?.push(t.ref);
  // Upward rank: the step's own time plus the longest chain after it.
  const rank = new Map<string, number>();
  const visiting = new Set<string>();
  const rankOf = (ref: string): number => {
    const known = rank.get(ref);
    if (known !== undefined) return known;
    if (visiting.has(ref))
      throw new ProblemError('no-feasible-plan', `the recipe's steps depend on each other in a cycle (through ${ref})`);
    visiting.add(ref);
    const t = byRef.get(ref)?.t;
    const after = Math.max(0, ...(succ.get(ref) ?? []).map(rankOf));
    visiting.delete(ref);
    const r = (t?.durationS ?? 0) + after;
    rank.set(ref, r);
    return r;
  };
  for (const t of tasks) rankOf(t.ref);

  const free = new Map(actors.map((a) => [a.id, 0]));
  const done = new Map<string, Slot>();
  const slots: Slot[] = [];
  const pending = [...tasks];
  while (pending.length > 0) {
    const ready = pending.filter((t) => t.deps.every((d) => done.has(d)));
    ready.sort((a, b) => (rank.get(b.ref) ?? 0) - (rank.get(a.ref) ?? 0) || (byRef.get(a.ref)?.i ?? 0) - (byRef.get(b.ref)?.i ?? 0));
    const task = ready[0];
    if (!task) throw new ProblemError('no-feasible-plan', 'the recipe’s steps depend on each other in a cycle');
    const depsEnd = Math.max(0, ...task.deps.map((d) => done.get(d)?.endS ?? 0));
    let best: { actor: TeamActor; start: number; end: number; pref: number; i: number } | undefined;
    const holder = task.stayWith ? done.get(task.stayWith)?.actorId : undefined;
    const stays = holder !== undefined && actors.some((a) => a.id === holder && canDo(a, task));
    actors.forEach((actor, i) => {
      if (!canDo(actor, task) || (stays && actor.id !== holder)) return;
      const start = Math.max(depsEnd, free.get(actor.id) ?? 0);
      const end = start + task.durationS;
      const pref = preference(actor, task);
      if (!best || end < best.end || (end === best.end && (pref < best.pref || (pref === best.pref && i < best.i))))
        best = { actor, start, end, pref, i };
    });
    if (!best) throw new Error('unreachable: capabilities checked');
    const slot: Slot = { ref: task.ref, actorId: best.actor.id, startS: best.start, endS: best.end };
    free.set(best.actor.id, best.end);
    done.set(task.ref, slot);
    slots.push(slot);
    pending.splice(pending.indexOf(task), 1);
  }
  slots.sort((a, b) => a.startS - b.startS || (byRef.get(a.ref)?.i ?? 0) - (byRef.get(b.ref)?.i ?? 0));
  const makespanS = Math.max(0, ...slots.map((s) => s.endS));
  return { slots, makespanS, criticalPath: criticalPath(slots, byRef), handoffs: handoffs(tasks, done) };
}

/** The chain that sets the makespan: from the last step back through whatever held each step's start. */
function criticalPath(slots: readonly Slot[], byRef: Map<string, { t: StepTask; i: number }>): string[] {
  const path: string[] = [];
  let cur: Slot | undefined = [...slots].sort((a, b) => b.endS - a.endS || (byRef.get(b.ref)?.i ?? 0) - (byRef.get(a.ref)?.i ?? 0))[0];
  while (cur) {
    path.unshift(cur.ref);
    const at: number = cur.startS;
    if (at === 0) break;
    const here: Slot = cur;
    const deps: string[] = byRef.get(here.ref)?.t.deps ?? [];
    cur =
      slots.find((s) => deps.includes(s.ref) && s.endS === at) ??
      slots.find((s) => s.actorId === here.actorId && s.endS === at && s.ref !== here.ref);
  }
  return path;
}

/** Where a step's input comes from a step another actor did: that actor hands the item over when its step ends. */
function handoffs(tasks: readonly StepTask[], done: Map<string, Slot>): Handoff[] {
  const out: Handoff[] = [];
  const byRef = new Map(tasks.map((t) => [t.ref, t]));
  for (const t of tasks) {
    const to = done.get(t.ref);
    if (!to) continue;
    for (const d of t.deps) {
      const from = done.get(d);
      if (!from || from.actorId === to.actorId) continue;
      out.push({ from: from.actorId, to: to.actorId, item: byRef.get(d)?.output ?? d, atS: from.endS, fromRef: d, toRef: t.ref });
    }
  }
  return out.sort((a, b) => a.atS - b.atS || a.fromRef.localeCompare(b.fromRef) || a.toRef.localeCompare(b.toRef));
}
