import { readFileSync } from 'node:fs';
import t from 'tap';
import { decideDisclosure, parseDisclosureData } from './disclosure-policy.js';

const read = (rel: string) => JSON.parse(readFileSync(new URL(`../../schemas/profiles/${rel}`, import.meta.url), 'utf8'));
const data = parseDisclosureData(read('facets.json'), read('recipient-roles.json'));
const f = (...ids: string[]) => ids.map((id) => ({ facet: `cw.facet.${id}`, value: 'secret' }));

t.test('derived facets become allowed constraint types, in first-appearance order', async (t) => {
  const r = decideDisclosure(
    {
      facets: f('space.access_points', 'commerce.receiving_rules', 'service.labeling', 'household.health.allergies'),
      recipientRole: 'delivery',
    },
    data,
  );
  t.same(r, {
    constraints: [
      { type: 'access_point', derivedFrom: ['cw.facet.space.access_points', 'cw.facet.commerce.receiving_rules'] },
      { type: 'delivery_window', derivedFrom: ['cw.facet.commerce.receiving_rules'] },
    ],
    disclosed: [],
    withheld: [
      { facet: 'cw.facet.service.labeling', reason: 'not_allowed_for_role' },
      { facet: 'cw.facet.household.health.allergies', reason: 'not_allowed_for_role' },
    ],
  });
  t.notMatch(JSON.stringify(r), /secret/, 'values are never copied');
});

t.test('repeats, unknown roles, never-travel facets', async (t) => {
  const r = decideDisclosure(
    { facets: f('household.tastes.spice', 'household.tastes.spice', 'history.incidents'), recipientRole: 'planner' },
    data,
  );
  t.same(r.constraints, [{ type: 'spice_level', derivedFrom: ['cw.facet.household.tastes.spice'] }], 'once per derivedFrom');
  t.same(r.withheld, [{ facet: 'cw.facet.history.incidents', reason: 'never_travels' }]);
  const unknownRole = decideDisclosure({ facets: f('household.tastes.spice'), recipientRole: 'stranger' }, data);
  t.same(unknownRole.withheld, [{ facet: 'cw.facet.household.tastes.spice', reason: 'not_allowed_for_role' }]);
  t.same(
    decideDisclosure({ facets: [{ facet: 'cw.facet.made.up' }, { nofacet: 1 }], recipientRole: 'planner' }, data).withheld.map(
      (w) => w.reason,
    ),
    ['unknown_facet', 'unknown_facet'],
  );
});

t.test('consents: role, scope by facet or whole family, withdrawal', async (t) => {
  const facets = f('self.recalls', 'self.warranty', 'history.task_stats');
  const grant = (scope: Record<string, unknown>, extra: Record<string, unknown> = {}) => [
    { id: 'g', recipientRole: 'insurer', scope, ...extra },
  ];
  t.same(
    decideDisclosure({ facets, recipientRole: 'insurer', consents: grant({ families: ['self'] }) }, data),
    {
      constraints: [],
      disclosed: ['cw.facet.self.recalls', 'cw.facet.self.warranty'],
      withheld: [{ facet: 'cw.facet.history.task_stats', reason: 'no_consent' }],
    },
    'a consented facet never yields constraints, even with derivesTo',
  );
  t.same(
    decideDisclosure({ facets, recipientRole: 'insurer', consents: grant({ facets: ['cw.facet.history.task_stats'] }) }, data).disclosed,
    ['cw.facet.history.task_stats'],
  );
  t.same(
    decideDisclosure(
      { facets, recipientRole: 'insurer', consents: grant({ families: ['self'] }, { withdrawnAt: '2099-01-01T00:00:00Z' }) },
      data,
    ).disclosed,
    [],
    'any withdrawal date withdraws',
  );
  t.same(
    decideDisclosure({ facets, recipientRole: 'grocer', consents: grant({ families: ['self'] }) }, data).disclosed,
    [],
    'consent is per role',
  );
  const custom = parseDisclosureData({ facets: [{ id: 'f.kids', family: 'household.people', travel: 'consented' }] }, { roles: { r: [] } });
  const byParent = [{ id: 'g', recipientRole: 'r', scope: { families: ['household'] } }];
  t.same(
    decideDisclosure({ facets: [{ facet: 'f.kids' }], recipientRole: 'r', consents: byParent }, custom).withheld,
    [{ facet: 'f.kids', reason: 'no_consent' }],
    'families compare whole',
  );
  const byFamily = [{ id: 'g', recipientRole: 'r', scope: { families: ['household.people'] } }];
  t.same(decideDisclosure({ facets: [{ facet: 'f.kids' }], recipientRole: 'r', consents: byFamily }, custom).disclosed, ['f.kids']);
});

t.test('bad data files are refused', async (t) => {
  t.throws(() => parseDisclosureData({}, read('recipient-roles.json')), /facets/);
  t.throws(
    () => parseDisclosureData({ facets: [{ id: 'x', family: 'y', travel: 'sometimes' }] }, read('recipient-roles.json')),
    /bad entry/,
  );
  t.throws(() => parseDisclosureData(read('facets.json'), { roles: { a: 'b' } }), /constraint types/);
});
