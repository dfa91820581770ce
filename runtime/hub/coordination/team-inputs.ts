/**
 * What a team plan is made of: the steps of a session's recipes (one task per process node, its operation, its
 * planned time and the steps whose outputs it takes) and the kitchen's actors (the hub's own device, the robots and
 * appliances a request adds as capabilities documents, and the people of the household who are at hand).
 */
import { ProblemError } from '../../../platform/http/problems.js';
import { deviceOps, stepDuration } from '../../../safety/dry-run.js';
import type { ProcessNode } from '../../../safety/types.js';
import { validate } from '../../../schemas/index.js';
import { getOp } from '../../../schemas/vocab.js';
import type { RecipeCatalog } from '../../config/recipes.js';
import type { Session } from '../types.js';
import type { ActorKind, StepTask, TeamActor } from './team-schedule.js';

/**
 * Planned seconds of a step whose recipe gives no time (no `until.minTime`, `params.durationS` or `params.time`),
 * by the operation's family in the vocabulary. A rough figure for ordering work, never a cooking time.
 */
export const DEFAULT_STEP_SECONDS: Readonly<Record<string, number>> = {
  handle: 120,
  cut: 180,
  combine: 120,
  shape: 180,
  heat: 300,
  cool: 300,
  finish: 60,
  aux: 60,
};
const FALLBACK_STEP_SECONDS = 120;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function familyOf(op: string): string | undefined {
  return getOp(op)?.family;
}

export function stepSeconds(node: ProcessNode): number {
  const planned = stepDuration(node);
  if (planned !== undefined && Number.isFinite(planned) && planned >= 0) return Math.round(planned);
  return DEFAULT_STEP_SECONDS[familyOf(node.op) ?? ''] ?? FALLBACK_STEP_SECONDS;
}

/** Explicit edges `[{from, to}]` of a process, when it has them (else dependencies come from inputs and outputs). */
function explicitEdges(process: Record<string, unknown>): { from: string; to: string }[] {
  if (!Array.isArray(process.edges)) return [];
  return process.edges.filter(
    (e): e is { from: string; to: string } => isObject(e) && typeof e.from === 'string' && typeof e.to === 'string',
  );
}

/** Every step of one recipe as a task: `<recipeId>#<nodeId>`, its op, its time and what it waits for. */
export function recipeSteps(recipeId: string, doc: Record<string, unknown>): StepTask[] {
  const process = isObject(doc.process) ? doc.process : {};
  const nodes = (Array.isArray(process.nodes) ? process.nodes : []).filter(
    (n): n is ProcessNode => isObject(n) && typeof n.id === 'string' && typeof n.op === 'string',
  );
  const producer = new Map<string, string>();
  for (const n of nodes) if (typeof n.output === 'string') producer.set(n.output, n.id);
  const edges = explicitEdges(process);
  const depsOf = new Map<string, string[]>();
  const result: StepTask[] = nodes.map((n): StepTask => {
    const deps = new Set<string>();
    const takes = [...(Array.isArray(n.inputs) ? n.inputs : []), ...(typeof n.into === 'string' ? [n.into] : [])];
    for (const input of takes) {
      const from = typeof input === 'string' ? producer.get(input) : undefined;
      if (from && from !== n.id) deps.add(from);
    }
    for (const e of edges) if (e.to === n.id && e.from !== n.id) deps.add(e.from);
    depsOf.set(n.id, [...deps]);
    const assignment = isObject(n.assignment) ? n.assignment : {};
    const allowed = Array.isArray(assignment.allowed) && assignment.allowed.length > 0 ? assignment.allowed.map(String) : ['any'];
    return {
      ref: `${recipeId}#${n.id}`,
      op: n.op,
      durationS: stepSeconds(n),
      deps: [...deps].map((d) => `${recipeId}#${d}`),
      allowed,
      ...(typeof assignment.preferred === 'string' ? { preferred: assignment.preferred } : {}),
      ...(typeof n.output === 'string' ? { output: n.output } : {}),
    };
  });
  // A heating step stays with the actor of the nearest heating step upstream (what it heats is on that hob).
  const opOf = new Map(nodes.map((n) => [n.id, n.op]));
  for (const [i, n] of nodes.entries()) {
    if (familyOf(n.op) !== 'heat') continue;
    const seen = new Set<string>();
    const queue = [...(depsOf.get(n.id) ?? [])];
    while (queue.length > 0) {
      const id = queue.shift() as string;
      if (seen.has(id)) continue;
      seen.add(id);
      if (familyOf(opOf.get(id) ?? '') === 'heat') {
        const step = result[i];
        if (step) step.stayWith = `${recipeId}#${id}`;
        break;
      }
      queue.push(...(depsOf.get(id) ?? []));
    }
  }
  return result;
}

/**
 * The steps of a session's recipes, or of the subset `only` names (`<recipeId>#<nodeId>`, or a bare node id when
 * the session cooks one recipe). Dependencies on steps outside the subset are dropped (taken as done elsewhere).
 */
export function sessionSteps(session: Session, recipes: Pick<RecipeCatalog, 'get'>, only?: readonly string[]): StepTask[] {
  const all: StepTask[] = [];
  for (const r of session.recipes) {
    const entry = recipes.get(r.recipeId);
    if (!entry || entry.hash !== r.hash)
      throw new ProblemError('hash-mismatch', `the hub no longer holds recipe ${r.recipeId} at ${r.hash}`, { recipeId: r.recipeId });
    all.push(...recipeSteps(r.recipeId, entry.doc));
  }
  if (!only) return all;
  const single = session.recipes.length === 1 ? session.recipes[0]?.recipeId : undefined;
  const wanted = new Set<string>();
  for (const ref of only) {
    const full = ref.includes('#') || single === undefined ? ref : `${single}#${ref}`;
    if (!all.some((t) => t.ref === full))
      throw new ProblemError('validation-failed', `session ${session.id} has no task ${JSON.stringify(ref)} (give <recipeId>#<nodeId>)`, {
        tasks: all.map((t) => t.ref),
      });
    wanted.add(full);
  }
  return all.filter((t) => wanted.has(t.ref)).map((t) => ({ ...t, deps: t.deps.filter((d) => wanted.has(d)) }));
}

/** A capabilities document as a team actor (its executable ops). */
export function deviceActor(doc: unknown, where: string): TeamActor {
  const caps = isObject(doc) ? doc : {};
  const actor = isObject(caps.actor) ? caps.actor : {};
  const id = typeof actor.id === 'string' && actor.id !== '' ? actor.id : undefined;
  if (!id) throw new ProblemError('validation-failed', `${where}: the capabilities document needs actor.id`);
  const kind: ActorKind = actor.kind === 'appliance' ? 'appliance' : 'robot';
  return { id, kind, ops: deviceOps(caps) };
}

export const MAX_PEOPLE = 10;

/**
 * The kitchen's actors: the hub's own device first, then the request's robots and appliances (capabilities
 * documents, checked against the schema), then `people` persons of the household (`person:1`, `person:2`…).
 */
export function kitchenActors(own: unknown, extra: readonly unknown[], people: number): TeamActor[] {
  const actors: TeamActor[] = [deviceActor(own, 'the hub’s device')];
  extra.forEach((doc, i) => {
    const checked = validate.capabilities(doc);
    if (!checked.valid) {
      const first = checked.issues[0];
      throw new ProblemError('validation-failed', `actors/${i}${first?.path ?? ''}: ${first?.message ?? 'not a capabilities document'}`, {
        issues: checked.issues.slice(0, 20),
      });
    }
    actors.push(deviceActor(doc, `actors/${i}`));
  });
  for (let i = 1; i <= people; i++) actors.push({ id: `person:${i}`, kind: 'human', ops: 'all' });
  const seen = new Set<string>();
  for (const a of actors) {
    if (seen.has(a.id)) throw new ProblemError('validation-failed', `two actors have the id ${a.id}`);
    seen.add(a.id);
  }
  return actors;
}
