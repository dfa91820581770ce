import { readFileSync } from 'node:fs';
import t from 'tap';
import { missionTransitionAllowed, parseMissionTable } from './mission-transition.js';

const table = parseMissionTable(
  JSON.parse(readFileSync(new URL('../../schemas/profiles/mission-transitions.json', import.meta.url), 'utf8')),
);

t.test('the project mission table', async (t) => {
  t.ok(missionTransitionAllowed(table, 'ready', 'committed', 'holder'));
  t.notOk(missionTransitionAllowed(table, 'ready', 'committed', 'executor'));
  t.ok(missionTransitionAllowed(table, 'closing', 'closed', 'holder'));
  t.ok(missionTransitionAllowed(table, 'paused', 'cancelled', 'initiator'));
  t.notOk(missionTransitionAllowed(table, 'paused', 'cancelled', 'arbiter'));
  t.notOk(missionTransitionAllowed(table, 'draft', 'executing', 'holder'));
  t.notOk(missionTransitionAllowed(table, 'open', 'open', 'holder'), 'self-transition');
  t.notOk(missionTransitionAllowed(table, 'Ready', 'committed', 'holder'), 'case-sensitive');
  t.notOk(missionTransitionAllowed(table, 'ready', 'committed', 'HOLDER'));
  t.notOk(missionTransitionAllowed(table, 'ready', 'committed', undefined));
  for (const final of table.final ?? []) {
    for (const to of ['open', 'executing', 'closed', 'failed'])
      t.notOk(missionTransitionAllowed(table, final, to, 'holder'), `${final} → ${to}`);
  }
});

t.test('the last entry of a repeated pair counts; bad tables are refused', async (t) => {
  const twice = parseMissionTable({
    transitions: [
      { from: 'a', to: 'b', roles: ['x'] },
      { from: 'a', to: 'b', allowedRoles: ['y'] },
    ],
  });
  t.notOk(missionTransitionAllowed(twice, 'a', 'b', 'x'));
  t.ok(missionTransitionAllowed(twice, 'a', 'b', 'y'));
  t.throws(() => parseMissionTable({}), /transitions/);
  t.throws(() => parseMissionTable({ transitions: [{ from: 'a', to: 'b' }] }), /entry 0/);
});
