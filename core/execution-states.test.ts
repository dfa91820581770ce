import t from 'tap';
import { canTransition, type ExecutionState, executionTransitions, finalExecutionStates } from './execution-states.js';

t.test('the table of semantics §6', async (t) => {
  t.ok(canTransition('accepted', 'preparing'));
  t.ok(canTransition('accepted', 'refused'));
  t.ok(canTransition('running', 'completed'));
  t.ok(canTransition('needs_human', 'failed'));
  t.ok(canTransition('stopping', 'stopped'));
  t.notOk(canTransition('refused', 'running'));
  t.notOk(canTransition('stopping', 'running'));
  t.notOk(canTransition('paused', 'completed'));
  t.notOk(canTransition('accepted', 'running'), 'no skipping preparing');
  t.notOk(canTransition('running', 'running'), 'no self-transition');
  t.notOk(canTransition('toString', 'running'), 'prototype names are not states');
  t.notOk(canTransition('bogus', 'accepted'));
  let count = 0;
  for (const tos of Object.values(executionTransitions)) count += tos.length;
  // 3 + 4 + 5 + 2 + 3 + 1 transitions out of the six non-final states.
  t.equal(count, 18);
});

t.test('final states have no way out and every state is reachable', async (t) => {
  const states = Object.keys(executionTransitions) as ExecutionState[];
  for (const s of finalExecutionStates) t.same(executionTransitions[s], [], s);
  const reached = new Set<string>(['accepted']);
  for (let i = 0; i < states.length; i++)
    for (const s of [...reached]) for (const to of executionTransitions[s as ExecutionState]) reached.add(to);
  t.same([...reached].sort(), [...states].sort());
  t.ok(Object.isFrozen(executionTransitions));
});
