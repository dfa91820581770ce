/**
 * The hub's A2A agent executor: routes a message to a skill (skills.ts) and maps the outcome onto A2A task
 * states. A task that cooks follows its hub session on the internal bus:
 *
 * | hub                                              | A2A task state        |
 * |--------------------------------------------------|-----------------------|
 * | skill done (a plan, an inventory, an order)      | completed (artifact)  |
 * | session awaiting a person's confirmation         | input-required        |
 * | session running or paused (cooking checks too)   | working (with a note) |
 * | session completed                                | completed             |
 * | session aborted after an A2A cancel              | canceled              |
 * | session aborted otherwise, or failed             | failed (the reason)   |
 * | refusal (scope, input, a service's refusal)      | rejected (problem)    |
 *
 * A cancel aborts the task's session (heat is cut) through the session service. Status timestamps are
 * wall-clock time.
 */
import { randomUUID } from 'node:crypto';
import { type Message, type Part, Role, type Task, TaskState } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext, type User } from '@a2a-js/sdk/server';
import type { Principal } from '../../platform/http/auth.js';
import type { Json } from '../../services/index/entry.js';
import type { EventBus } from '../events/bus.js';
import { performSkill, routeMessage, type SkillDeps, type SkillOutcome, type SkillProblem } from './skills.js';

/** The paired token behind a request, as the SDK's `User`; its id scopes the token's tasks. */
export class HubUser implements User {
  constructor(readonly principal: Principal) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.principal.id;
  }
}

export interface ExecutorDeps extends SkillDeps {
  bus: EventBus;
  log?: { warn(obj: object, msg?: string): void };
}

/** Open A2A tasks waiting for a person (input-required) that a cancel or a follow-up finds again; capped. */
const MAX_WAITING = 1000;

type Publish = (state: TaskState, parts: Part[], metadata?: Record<string, unknown>) => void;

interface Following {
  sessionId: string;
  principal: Principal;
  canceled: boolean;
  status: Publish;
  stop(): void;
}

interface Waiting {
  sessionId: string;
  contextId: string;
  principal: Principal;
}

const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  mediaType: 'text/plain',
  filename: '',
  metadata: undefined,
});
const dataPart = (data: Json): Part => ({
  content: { $case: 'data', value: data as { [key: string]: unknown } },
  mediaType: 'application/json',
  filename: '',
  metadata: undefined,
});

function agentMessage(taskId: string, contextId: string, parts: Part[]): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The parts of a message as the router reads them. */
function partsOf(m: Message): { kind: string; value: unknown }[] {
  return m.parts.map((p) => ({ kind: p.content?.$case ?? 'none', value: p.content?.value }));
}

export class HubAgentExecutor implements AgentExecutor {
  private readonly following = new Map<string, Following>();
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly d: ExecutorDeps) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = ctx;
    const user = ctx.context.user;
    if (!(user instanceof HubUser)) throw new Error('unreachable: the route authenticates every request');
    const task: Task = ctx.task ?? {
      id: taskId,
      contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
      artifacts: [],
      history: [ctx.userMessage],
      metadata: {},
    };
    bus.publish(AgentEvent.task(task));
    const status: Publish = (state, parts, metadata) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state, message: agentMessage(taskId, contextId, parts), timestamp: new Date().toISOString() },
          metadata,
        }),
      );
    const reject = (p: SkillProblem) => status(TaskState.TASK_STATE_REJECTED, [textPart(p.detail), dataPart(p as unknown as Json)]);

    this.waiting.delete(taskId);
    const route = routeMessage(partsOf(ctx.userMessage));
    if ('error' in route) return reject(route);
    // A follow-up on a task that waits for a person may leave out the session it is about.
    const previous = (task.metadata?.sessionId as string | undefined) ?? undefined;
    const input =
      route.skill === 'cook_recipe' && previous && typeof route.input === 'object' && route.input !== null && !('sessionId' in route.input)
        ? { ...(route.input as object), sessionId: previous }
        : route.input;
    status(TaskState.TASK_STATE_WORKING, [textPart(`Performing ${route.skill}.`)], { skill: route.skill });
    let outcome: SkillOutcome;
    try {
      outcome = await performSkill(this.d, route.skill, input, user.principal);
    } catch (err) {
      this.d.log?.warn({ err, skill: route.skill }, 'an A2A skill failed');
      status(TaskState.TASK_STATE_FAILED, [textPart(`${route.skill} failed on the hub; nothing more was done.`)]);
      return;
    }
    if (outcome.kind === 'refused') return reject(outcome.problem);
    const meta = { skill: route.skill, ...('sessionId' in outcome ? { sessionId: outcome.sessionId } : {}) };
    if (outcome.kind === 'done') {
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: randomUUID(),
            name: route.skill,
            description: outcome.summary,
            parts: [dataPart(outcome.data)],
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      return status(TaskState.TASK_STATE_COMPLETED, [textPart(outcome.summary), dataPart(outcome.data)], meta);
    }
    if (outcome.kind === 'input') {
      this.remember(taskId, { sessionId: outcome.sessionId, contextId, principal: user.principal });
      return status(TaskState.TASK_STATE_INPUT_REQUIRED, [textPart(outcome.summary), dataPart(outcome.data)], meta);
    }
    status(TaskState.TASK_STATE_WORKING, [textPart(outcome.summary), dataPart(outcome.data)], meta);
    await this.follow(taskId, outcome.sessionId, user.principal, status);
  }

  /** Publish the session's progress until it ends; resolves then. */
  private follow(taskId: string, sessionId: string, principal: Principal, status: Publish): Promise<void> {
    return new Promise<void>((resolve) => {
      const offs: (() => void)[] = [];
      const entry: Following = {
        sessionId,
        principal,
        canceled: false,
        status,
        stop: () => {
          for (const off of offs) off();
          this.following.delete(taskId);
          resolve();
        },
      };
      this.following.set(taskId, entry);
      const onSession = (s: Record<string, unknown>) => {
        const state = s.state as string;
        const data = { session: s as Json };
        if (state === 'completed') status(TaskState.TASK_STATE_COMPLETED, [textPart(`Session ${sessionId} completed.`), dataPart(data)]);
        else if (state === 'aborted' && entry.canceled)
          status(TaskState.TASK_STATE_CANCELED, [textPart(`Canceled: session ${sessionId} was aborted and its heat cut.`), dataPart(data)]);
        else if (state === 'aborted' || state === 'failed') {
          const why = (s.abort as { reason?: string } | undefined)?.reason ?? (s.failure as { reason?: string } | undefined)?.reason;
          status(TaskState.TASK_STATE_FAILED, [textPart(`Session ${sessionId} ${state}${why ? `: ${why}` : ''}.`), dataPart(data)]);
        } else {
          status(TaskState.TASK_STATE_WORKING, [textPart(`Session ${sessionId} is ${state}.`), dataPart(data)]);
          return;
        }
        entry.stop();
      };
      offs.push(
        this.d.bus.on('session.updated', (e) => {
          if (e.sessionId === sessionId) onSession(e.session);
        }),
        this.d.bus.on('task.updated', (e) => {
          if (e.sessionId !== sessionId || e.state !== 'input_required') return;
          const msg = (e.task.message as Record<string, string> | undefined)?.en ?? 'a person is asked to act';
          status(TaskState.TASK_STATE_WORKING, [
            textPart(`Waiting for a person at the kitchen: ${msg}`),
            dataPart({ task: e.task as Json }),
          ]);
        }),
      );
      // The session may already be over (a follow-up on a finished session).
      const now = this.d.sessions.get(sessionId);
      if (now.state === 'completed' || now.state === 'aborted' || now.state === 'failed')
        onSession(now as unknown as Record<string, unknown>);
    });
  }

  private remember(taskId: string, w: Waiting): void {
    this.waiting.set(taskId, w);
    while (this.waiting.size > MAX_WAITING) {
      const oldest = this.waiting.keys().next().value;
      if (oldest === undefined) break;
      this.waiting.delete(oldest);
    }
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const f = this.following.get(taskId);
    if (f) {
      f.canceled = true;
      // The session's `aborted` update publishes the canceled state and ends the follow.
      this.d.sessions.abort(f.sessionId, `canceled over A2A by ${f.principal.kind} ${f.principal.name}`, f.principal);
      if (this.following.has(taskId)) {
        // The session had already ended without this task seeing it: end the task as canceled anyway.
        f.status(TaskState.TASK_STATE_CANCELED, [textPart('Canceled.')]);
        f.stop();
      }
      return;
    }
    const w = this.waiting.get(taskId);
    this.waiting.delete(taskId);
    if (w) this.d.sessions.abort(w.sessionId, `canceled over A2A by ${w.principal.kind} ${w.principal.name}`, w.principal);
    const contextId = w?.contextId ?? '';
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state: TaskState.TASK_STATE_CANCELED,
          message: agentMessage(taskId, contextId, [textPart(w ? `Canceled: session ${w.sessionId} was aborted.` : 'Canceled.')]),
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      }),
    );
  }

  /** End every follow (the hub is stopping): the tasks fail; their sessions are left to the hub's own stop. */
  close(): void {
    for (const f of [...this.following.values()]) {
      f.status(TaskState.TASK_STATE_FAILED, [textPart('The hub is stopping; this task ends here (its session is stopped with the hub).')]);
      f.stop();
    }
    this.waiting.clear();
  }
}
