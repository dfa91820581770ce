import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { documentHash } from '../core/hash.js';
import { dryRun } from '../safety/dry-run.js';
import { defaultSafetyLimits, effectiveMaxTempC } from '../safety/limits.js';
import type { SafetyLimits } from '../safety/types.js';
import { validateRecipe } from '../safety/validate-recipe.js';
import { validate } from '../schemas/index.js';

const dir = new URL('./', import.meta.url);
const read = (p: string) => JSON.parse(readFileSync(new URL(p, dir), 'utf8')) as Record<string, unknown>;
const recipes = readdirSync(new URL('recipes/', dir)).filter((f) => f.endsWith('.svc.json'));
const devices = readdirSync(new URL('devices/', dir)).filter((f) => f.endsWith('.json'));

t.test('recipes are valid, written with svc, carry their credit and a correct hash', async (t) => {
  t.same(recipes.sort(), ['kofta-oven.svc.json', 'koshari.svc.json', 'shakshuka.svc.json']);
  for (const f of recipes) {
    const r = read(`recipes/${f}`);
    t.same(validateRecipe(r), { valid: true, issues: [] }, f);
    t.equal(r.svc, '0.2.0', f);
    t.notOk('cookwala' in r, f);
    t.equal(r.license, 'CC-BY-4.0', f);
    t.equal(r.hash, documentHash(r), f);
  }
});

t.test('device documents and the fryer limits are valid', async (t) => {
  t.same(devices.sort(), ['demo-arm.json', 'demo-fryer-robot.json', 'demo-hob-robot-basic.json', 'demo-hob-robot.json', 'demo-oven.json']);
  for (const f of devices) t.same(validate.capabilities(read(`devices/${f}`)), { valid: true, issues: [] }, f);
  const limits = read('limits/demo-fryer.limits.json') as unknown as SafetyLimits;
  t.same(validate.safetyLimits(limits), { valid: true, issues: [] });
  t.equal(effectiveMaxTempC([defaultSafetyLimits(), limits], { op: 'cw.op.deep_fry', medium: 'oil' })?.maxC, 190, 'stricter than the pack');
});

t.test('koshari on the demo fryer: refused with nobody present, accepted with a person', async (t) => {
  const recipe = read('recipes/koshari.svc.json');
  const capabilities = read('devices/demo-fryer-robot.json');
  const limits = [defaultSafetyLimits(), read('limits/demo-fryer.limits.json') as unknown as SafetyLimits];
  const alone = dryRun({ recipe, capabilities, limits });
  t.equal(alone.state, 'refused');
  t.equal(alone.refusal?.reason, 'needs_human_present');
  t.equal(alone.refusal?.node, 'n7');
  const withPerson = dryRun({ recipe, capabilities, limits, humanPresent: true });
  t.equal(withPerson.state, 'accepted');
  t.equal(withPerson.plan.length, 20);
  const fry = withPerson.plan.find((p) => p.op === 'cw.op.deep_fry');
  t.same(fry && [fry.by, fry.verifiedBy, fry.rung, fry.targetC, fry.maxC], ['device', 'sensor', 'cw.sense.oil_temp', 175, 190]);
  // Without the oil thermometer the same robot can never deep-fry.
  const basic = dryRun({ recipe, capabilities: read('devices/demo-hob-robot-basic.json'), limits, humanPresent: true });
  t.same([basic.state, basic.refusal?.reason, basic.refusal?.node], ['refused', 'missing_sensor_no_fallback', 'n14']);
});
