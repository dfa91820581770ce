import { readFileSync } from 'node:fs';
import t from 'tap';
import { documentHash } from '../core/hash.js';
import { hasShared, referenceDir } from '../test-support/shared.js';
import { validateRecipe, validateRecipeSemantics } from './validate-recipe.js';

type Node = Record<string, unknown>;
const recipe = (...nodes: Node[]) => ({
  svc: '0.2.0',
  id: 'test-recipe',
  revision: 1,
  verification: { level: 'V1' },
  ingredients: [{ ref: 'oil', ingredientId: 'cw.ing.vegetable_oil', qty: { value: 500, unit: 'ml' } }],
  equipment: [{ ref: 'pot', class: 'cw.eq.vessel.pot.fryer' }],
  process: { nodes: nodes.map((n, i) => ({ id: `n${i + 1}`, ...n })) },
});

t.test('a recipe inside every envelope has no issues', async (t) => {
  const r = recipe(
    {
      op: 'cw.op.heat',
      inputs: ['oil'],
      output: 'hot_oil',
      equipment: ['pot'],
      params: { heat: 'medium', target: { value: 175, unit: 'degC', tolerance: 5 } },
    },
    { op: 'cw.op.deep_fry', inputs: ['hot_oil'], params: { oilTempC: 175 } },
    { op: 'x-acme.op.spin' },
  );
  t.same(validateRecipeSemantics(r), []);
  t.same(validateRecipe(r), { valid: true, issues: [] });
});

t.test('widening an envelope, string temperatures, unknown ops and heat levels are semantics issues', async (t) => {
  const r = recipe(
    { op: 'cw.op.deep_fry', params: { oilTempC: 230 } },
    { op: 'cw.op.deep_fry', params: { oilTempC: '185' } },
    { op: 'cw.op.simmer', params: { target: { value: 99, unit: 'degC' } } },
    { op: 'cw.op.saute', params: { heat: 'max' } },
    { op: 'cw.op.saute', params: { heat: 'blazing' } },
    { op: 'cw.op.teleport' },
    { op: 'cw.op.pressure_cook', params: { pressureKPa: 140 } },
    { op: 'cw.op.legacy_step' },
    { op: 'cw.op.bake', params: { tempC: 392, target: { value: 392, unit: 'degF' } } },
  );
  const issues = validateRecipeSemantics(r);
  t.same(
    issues.map((i) => i.path),
    [
      '/process/nodes/0/params/oilTempC',
      '/process/nodes/1/params/oilTempC',
      '/process/nodes/2/params/target/value',
      '/process/nodes/3/params/heat',
      '/process/nodes/4/params/heat',
      '/process/nodes/5/op',
      '/process/nodes/6/params/pressureKPa',
      '/process/nodes/7/op',
      '/process/nodes/8/params/tempC',
      '/process/nodes/8/params/target/unit',
    ],
  );
  t.ok(issues.every((i) => i.code === 'semantics'));
  t.match(issues[0]?.message, /outside the cw\.op\.deep_fry envelope 160–190 °C/);
  t.match(issues[1]?.message, /not "185"/);
  // A V0 recipe may carry legacy steps.
  const v0 = { ...recipe({ op: 'cw.op.legacy_step' }), verification: { level: 'V0' } };
  t.same(validateRecipeSemantics(v0), []);
});

t.test('references, duplicate ids and the declared hash', async (t) => {
  const r: Record<string, unknown> = recipe(
    { op: 'cw.op.mix', inputs: ['oil', 'ghost'], equipment: ['pan'] },
    { id: 'n1', op: 'cw.op.serve' },
  );
  t.same(
    validateRecipeSemantics(r).map((i) => i.path),
    ['/process/nodes/0/inputs/1', '/process/nodes/0/equipment/0', '/process/nodes/1/id'],
  );
  const ok: Record<string, unknown> = recipe({ op: 'cw.op.mix', inputs: ['oil'] });
  ok.hash = documentHash(ok);
  t.same(validateRecipeSemantics(ok), []);
  ok.revision = 2;
  const hashIssues = validateRecipeSemantics(ok);
  t.same(
    hashIssues.map((i) => [i.code, i.path]),
    [['hash', '/hash']],
  );
});

t.test('schema issues come first; non-objects are handled', async (t) => {
  const out = validateRecipe({ svc: '0.2.0', id: 'x1', revision: 1, process: { nodes: [{ id: 'n1', op: 'cw.op.nope' }] } });
  t.equal(out.valid, false);
  t.same(out.issues, [{ code: 'semantics', path: '/process/nodes/0/op', message: 'unknown operation cw.op.nope' }]);
  t.same(validateRecipeSemantics('nope'), []);
  t.equal(validateRecipe(42).valid, false);
});

if (hasShared) {
  t.test('the reference recipes are semantically valid', async (t) => {
    for (const r of ['koshari', 'shakshuka', 'kofta-oven', 'catalog/ec-010']) {
      t.same(
        validateRecipe(JSON.parse(readFileSync(`${referenceDir}examples/${r}.cookwala.json`, 'utf8'))),
        { valid: true, issues: [] },
        r,
      );
    }
  });
}

t.test('end conditions on the envelope medium sensor stay inside the band', async (t) => {
  const r = recipe(
    { op: 'cw.op.deep_fry', params: { oilTempC: 175 }, until: { all: [{ sensor: 'cw.sense.oil_temp', gte: 210 }] } },
    { op: 'cw.op.simmer', until: { any: [{ sensor: 'cw.sense.liquid_temp', lte: '95' }, { vision: 'cw.sense.lentils_soft' }] } },
    { op: 'cw.op.boil', until: { any: [{ sensor: 'cw.sense.liquid_temp', gte: 98 }] } },
    { op: 'cw.op.bake', until: { all: [{ sensor: 'cw.sense.core_temp', gte: 71 }] } },
    { op: 'cw.op.heat', until: { all: [{ sensor: 'cw.sense.oil_temp', gte: 170 }] } },
  );
  t.same(
    validateRecipeSemantics(r).map((i) => i.path),
    ['/process/nodes/0/until/all/0/gte', '/process/nodes/1/until/any/0/lte'],
    'a core probe on a bake step or an oil probe on a pan step is not the envelope medium',
  );
});
