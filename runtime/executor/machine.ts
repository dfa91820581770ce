/**
 * The execution state machine (semantics §6) as an xstate v5 machine, generated from `executionTransitions`
 * in core/execution-states.ts so that the table is the one source of truth. Each allowed move `from → to` is
 * an event `{type: "to.<to>"}` on state `from`; final states accept nothing. `ExecutionMachine` wraps one
 * actor: `to(state)` moves or throws `IllegalTransition`, `can(state)` asks, and the persisted snapshot
 * restores an actor in the state it was saved in.
 */
import { type Actor, type AnyMachineSnapshot, createActor, createMachine, type Snapshot } from 'xstate';
import { type ExecutionState, executionTransitions, finalExecutionStates } from '../../core/execution-states.js';

export type { ExecutionState } from '../../core/execution-states.js';

export type TransitionEvent = { type: `to.${ExecutionState}` };

function buildConfig() {
  const states: Record<string, { type?: 'final'; on?: Record<string, string> }> = {};
  for (const [from, targets] of Object.entries(executionTransitions) as [ExecutionState, readonly ExecutionState[]][]) {
    if (finalExecutionStates.has(from)) {
      states[from] = { type: 'final' };
      continue;
    }
    const on: Record<string, string> = {};
    for (const to of targets) on[`to.${to}`] = to;
    states[from] = { on };
  }
  return { id: 'execution', initial: 'accepted' as const, states };
}

/** The machine itself (one definition for every execution). */
export const executionMachine = createMachine({
  ...buildConfig(),
  types: {} as { events: TransitionEvent },
});

export class IllegalTransition extends Error {
  constructor(
    readonly from: ExecutionState,
    readonly to: ExecutionState,
  ) {
    super(`an execution cannot move from ${from} to ${to}`);
    this.name = 'IllegalTransition';
  }
}

export class ExecutionMachine {
  private readonly actor: Actor<typeof executionMachine>;

  /** A new machine in `accepted`, or one restored from a persisted snapshot. */
  constructor(persisted?: Snapshot<unknown>) {
    this.actor = createActor(executionMachine, persisted ? { snapshot: persisted as AnyMachineSnapshot } : {});
    this.actor.start();
  }

  /** A machine placed directly in `state` (tests and migrations). */
  static at(state: ExecutionState): ExecutionMachine {
    const snap = executionMachine.resolveState({ value: state });
    return new ExecutionMachine(executionMachine.getPersistedSnapshot(snap) as Snapshot<unknown>);
  }

  get state(): ExecutionState {
    return this.actor.getSnapshot().value as ExecutionState;
  }

  get final(): boolean {
    return this.actor.getSnapshot().status === 'done';
  }

  can(to: ExecutionState): boolean {
    return this.actor.getSnapshot().can({ type: `to.${to}` });
  }

  /** Move to `to`; throws IllegalTransition when the table forbids it. */
  to(to: ExecutionState): void {
    const from = this.state;
    if (!this.can(to)) throw new IllegalTransition(from, to);
    this.actor.send({ type: `to.${to}` });
  }

  /** A JSON-safe snapshot that `new ExecutionMachine(snapshot)` restores. */
  persisted(): Snapshot<unknown> {
    return this.actor.getPersistedSnapshot() as Snapshot<unknown>;
  }
}
