/** The executor's execution states and transitions (semantics §6); the executor's state machine is built from this table. */

export type ExecutionState =
  | 'accepted'
  | 'preparing'
  | 'running'
  | 'paused'
  | 'needs_human'
  | 'stopping'
  | 'stopped'
  | 'refused'
  | 'completed'
  | 'failed';

export const executionTransitions: Readonly<Record<ExecutionState, readonly ExecutionState[]>> = Object.freeze({
  accepted: Object.freeze(['preparing', 'refused', 'stopped'] as const),
  preparing: Object.freeze(['running', 'needs_human', 'stopping', 'failed'] as const),
  running: Object.freeze(['paused', 'needs_human', 'stopping', 'completed', 'failed'] as const),
  paused: Object.freeze(['running', 'stopping'] as const),
  needs_human: Object.freeze(['running', 'stopping', 'failed'] as const),
  stopping: Object.freeze(['stopped'] as const),
  stopped: Object.freeze([] as const),
  refused: Object.freeze([] as const),
  completed: Object.freeze([] as const),
  failed: Object.freeze([] as const),
});

export const finalExecutionStates: ReadonlySet<ExecutionState> = new Set<ExecutionState>(['refused', 'stopped', 'completed', 'failed']);

export function isExecutionState(s: unknown): s is ExecutionState {
  return typeof s === 'string' && Object.hasOwn(executionTransitions, s);
}

/** True when the table allows `from` → `to`. Unknown states, self-transitions and moves out of final states are false. */
export function canTransition(from: string, to: string): boolean {
  if (!isExecutionState(from)) return false;
  return (executionTransitions[from] as readonly string[]).includes(to);
}
