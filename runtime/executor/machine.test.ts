import t from 'tap';
import { type ExecutionState, executionTransitions } from '../../core/execution-states.js';
import { ExecutionMachine, IllegalTransition } from './machine.js';

const states = Object.keys(executionTransitions) as ExecutionState[];

// The table of semantics §6, written out here independently so a change to either side is caught.
const expected: Record<ExecutionState, ExecutionState[]> = {
  accepted: ['preparing', 'refused', 'stopped'],
  preparing: ['running', 'needs_human', 'stopping', 'failed'],
  running: ['paused', 'needs_human', 'stopping', 'completed', 'failed'],
  paused: ['running', 'stopping'],
  needs_human: ['running', 'stopping', 'failed'],
  stopping: ['stopped'],
  stopped: [],
  refused: [],
  completed: [],
  failed: [],
};

t.test('a new machine starts in accepted', (t) => {
  const m = new ExecutionMachine();
  t.equal(m.state, 'accepted');
  t.equal(m.final, false);
  t.end();
});

t.test('every allowed and every forbidden transition', (t) => {
  t.same(new Set(states), new Set(Object.keys(expected)), 'the same ten states');
  let allowed = 0;
  let forbidden = 0;
  for (const from of states) {
    for (const to of states) {
      const m = ExecutionMachine.at(from);
      t.equal(m.state, from);
      const ok = expected[from].includes(to);
      t.equal(m.can(to), ok, `${from} → ${to} ${ok ? 'allowed' : 'forbidden'}`);
      if (ok) {
        m.to(to);
        t.equal(m.state, to, `${from} → ${to} lands in ${to}`);
        allowed++;
      } else {
        t.throws(() => m.to(to), IllegalTransition, `${from} → ${to} throws`);
        t.equal(m.state, from, `${from} stays after a forbidden move to ${to}`);
        forbidden++;
      }
    }
  }
  t.equal(allowed, 18);
  t.equal(forbidden, 100 - 18);
  t.end();
});

t.test('final states are final', (t) => {
  for (const s of ['refused', 'stopped', 'completed', 'failed'] as const) t.equal(ExecutionMachine.at(s).final, true, s);
  for (const s of ['accepted', 'preparing', 'running', 'paused', 'needs_human', 'stopping'] as const)
    t.equal(ExecutionMachine.at(s).final, false, s);
  t.end();
});

t.test('a persisted snapshot round-trips through JSON', (t) => {
  const m = new ExecutionMachine();
  m.to('preparing');
  m.to('running');
  m.to('needs_human');
  const restored = new ExecutionMachine(JSON.parse(JSON.stringify(m.persisted())));
  t.equal(restored.state, 'needs_human');
  t.ok(restored.can('running'));
  t.notOk(restored.can('completed'));
  restored.to('stopping');
  restored.to('stopped');
  t.equal(restored.final, true);
  t.end();
});
