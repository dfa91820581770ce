import { readFileSync } from 'node:fs';
import t from 'tap';
import { hasShared, referenceDir } from '../test-support/shared.js';
import { deviceOps, dryRun } from './dry-run.js';
import { defaultSafetyLimits } from './limits.js';
import { device, fryer, NOW, recipeOf } from './test-fixtures.js';
import type { SafetyLimits } from './types.js';

const run = (recipe: unknown, extra: Record<string, unknown> = {}) =>
  dryRun({ recipe, capabilities: fryer, humanPresent: true, now: NOW, ...extra });

t.test('deep fry inside the envelope with an oil sensor and a person: accepted, verified by the oil sensor', async (t) => {
  const r = run(recipeOf({ op: 'cw.op.deep_fry', params: { oilTempC: 175 }, until: { minTime: 'PT5M' } }));
  t.equal(r.state, 'accepted');
  t.same(r.plan, [
    {
      node: 'n1',
      op: 'cw.op.deep_fry',
      by: 'device',
      verifiedBy: 'sensor',
      rung: 'cw.sense.oil_temp',
      medium: 'oil',
      unattended: false,
      targetC: 175,
      maxC: 190,
      durationS: 300,
    },
  ]);
});

t.test('parameters outside the band or not numbers are envelope_out_of_range', async (t) => {
  for (const params of [
    { oilTempC: 260 },
    { oilTempC: 150 },
    { oilTempC: '175' },
    { tempC: Number.NaN },
    { target: { value: '185', unit: 'degC' } },
    { target: { value: 400, unit: 'degF' } },
  ]) {
    const r = run(recipeOf({ op: 'cw.op.deep_fry', params }));
    t.equal(r.state, 'refused', JSON.stringify(params));
    t.equal(r.refusal?.reason, 'envelope_out_of_range', JSON.stringify(params));
    t.equal(r.refusal?.node, 'n1');
    t.same(r.plan, []);
  }
  // 350 °F is 176.7 °C: inside the deep-fry band.
  t.equal(run(recipeOf({ op: 'cw.op.deep_fry', params: { target: { value: 350, unit: 'degF' } } })).state, 'accepted');
  // A target that is not a temperature is not checked against the thermal band.
  t.equal(run(recipeOf({ op: 'cw.op.simmer', params: { target: { value: 0.2, unit: 'ratio' } } })).state, 'accepted');
});

t.test('heat levels on pan-surface ops must overlap the envelope', async (t) => {
  t.equal(run(recipeOf({ op: 'cw.op.saute', params: { heat: 'max' } })).refusal?.reason, 'envelope_out_of_range');
  t.equal(run(recipeOf({ op: 'cw.op.saute', params: { heat: 'very_low' } })).refusal?.reason, 'envelope_out_of_range');
  t.equal(run(recipeOf({ op: 'cw.op.saute', params: { heat: 'scorching' } })).refusal?.reason, 'envelope_out_of_range');
  t.equal(run(recipeOf({ op: 'cw.op.saute', params: { heat: 'medium' } })).state, 'accepted');
  // Heat levels on a water op say nothing about the water temperature.
  t.equal(run(recipeOf({ op: 'cw.op.boil', params: { heat: 'max' } })).state, 'accepted');
});

t.test('pressure parameters are checked against the envelope and the limits', async (t) => {
  t.equal(run(recipeOf({ op: 'cw.op.pressure_cook', params: { pressureKPa: 80 } })).state, 'accepted');
  t.equal(run(recipeOf({ op: 'cw.op.pressure_cook', params: { pressureKPa: 105 } })).refusal?.reason, 'envelope_out_of_range');
  t.equal(run(recipeOf({ op: 'cw.op.pressure_cook', params: { pressureKPa: '80' } })).refusal?.reason, 'envelope_out_of_range');
  const tight: SafetyLimits = { limits: [{ id: 'p.site', kind: 'pressure', max: 70, appliesTo: { ops: ['cw.op.pressure_cook'] } }] };
  const r = run(recipeOf({ op: 'cw.op.pressure_cook', params: { pressureKPa: 80 } }), { limits: [defaultSafetyLimits(), tight] });
  t.equal(r.refusal?.reason, 'safety_limit');
  t.match(r.refusal?.detail, /p\.site/);
});

t.test('the strictest limit wins; a limit applies only when every selector matches', async (t) => {
  const site: SafetyLimits = {
    limits: [{ id: 'oil.site', kind: 'max_temp', max: 170, unit: 'degC', appliesTo: { ops: ['cw.op.deep_fry'] } }],
  };
  const r = run(recipeOf({ op: 'cw.op.deep_fry', params: { oilTempC: 175 } }), { limits: [defaultSafetyLimits(), site] });
  t.equal(r.refusal?.reason, 'safety_limit');
  t.match(r.refusal?.detail, /oil\.site/);
  // A limit for another medium does not apply.
  const water: SafetyLimits = {
    limits: [{ id: 'w', kind: 'max_temp', max: 100, appliesTo: { medium: 'water', ops: ['cw.op.deep_fry'] } }],
  };
  t.equal(run(recipeOf({ op: 'cw.op.deep_fry', params: { oilTempC: 175 } }), { limits: water }).state, 'accepted');
  // The plan's maxC is lowered by the limit.
  const loose: SafetyLimits = { limits: [{ id: 'oil.180', kind: 'max_temp', max: 180, appliesTo: { medium: 'oil' } }] };
  const ok = run(recipeOf({ op: 'cw.op.deep_fry', params: { oilTempC: 175 } }), { limits: loose });
  t.equal(ok.plan[0]?.maxC, 180);
  // A heat level whose whole band lies above a pan limit is refused.
  const pan: SafetyLimits = { limits: [{ id: 'pan.site', kind: 'max_temp', max: 200, appliesTo: { medium: 'pan_surface' } }] };
  t.equal(run(recipeOf({ op: 'cw.op.saute', params: { heat: 'high' } }), { limits: pan }).refusal?.reason, 'safety_limit');
});

t.test('presence: unattended:false needs a person; the first failure refuses the whole recipe', async (t) => {
  const recipe = recipeOf({ op: 'cw.op.boil' }, { op: 'cw.op.saute', params: { heat: 'medium' } }, { op: 'cw.op.mix' });
  const alone = run(recipe, { humanPresent: false });
  t.equal(alone.state, 'refused');
  t.same(alone.refusal && { reason: alone.refusal.reason, node: alone.refusal.node }, { reason: 'needs_human_present', node: 'n2' });
  t.equal(alone.plan.length, 1, 'the plan so far is kept');
  t.equal(run(recipe).state, 'accepted');
});

t.test('ops not on the device go to a present person, else missing_capability', async (t) => {
  const recipe = recipeOf({ op: 'cw.op.peel' });
  t.same(run(recipe).plan, [{ node: 'n1', op: 'cw.op.peel', by: 'human', verifiedBy: 'human' }]);
  t.equal(run(recipe, { humanPresent: false }).refusal?.reason, 'missing_capability');
  const deviceOnly = recipeOf({ op: 'cw.op.peel', assignment: { allowed: ['device'] } });
  t.equal(run(deviceOnly).refusal?.reason, 'missing_capability');
  t.equal(run(recipeOf({ op: 'cw.op.peel', assignment: { allowed: ['human'] } })).plan[0]?.by, 'human');
  // legacy_step is never executable, even when a device claims it.
  const legacy = recipeOf({ op: 'cw.op.legacy_step', params: { sourceStep: 1 } });
  const caps = device(['cw.op.legacy_step']);
  t.same(deviceOps(caps), new Set());
  t.equal(dryRun({ recipe: legacy, capabilities: caps, humanPresent: true }).plan[0]?.by, 'human');
  t.equal(dryRun({ recipe: legacy, capabilities: caps, humanPresent: false }).refusal?.reason, 'missing_capability');
});

t.test('ladder: deep frying needs a trusted oil sensor; model and human rungs follow the inputs', async (t) => {
  const fry = recipeOf({ op: 'cw.op.deep_fry', params: { oilTempC: 175 } });
  const noOil = device(['cw.op.deep_fry'], [{ sensor: 'cw.sense.pan_surface_temp' }]);
  t.equal(dryRun({ recipe: fry, capabilities: noOil, humanPresent: true }).refusal?.reason, 'missing_sensor_no_fallback');
  const expired = device(['cw.op.deep_fry'], [{ sensor: 'cw.sense.oil_temp', calibration: { validUntil: '2026-01-01T00:00:00Z' } }]);
  t.equal(dryRun({ recipe: fry, capabilities: expired, humanPresent: true, now: NOW }).refusal?.reason, 'missing_sensor_no_fallback');
  const saute = recipeOf({ op: 'cw.op.saute' });
  const bare = device(['cw.op.saute']);
  t.equal(dryRun({ recipe: saute, capabilities: bare, humanPresent: true }).plan[0]?.verifiedBy, 'model');
  const human = dryRun({ recipe: saute, capabilities: bare, humanPresent: true, allowModel: false });
  t.same([human.plan[0]?.verifiedBy, human.plan[0]?.rung, human.plan[0]?.by], ['human', 'human', 'device']);
  t.equal(
    dryRun({ recipe: recipeOf({ op: 'cw.op.simmer' }), capabilities: device(['cw.op.simmer']), allowModel: false }).plan[0]?.verifiedBy,
    'time',
  );
  // A node without an envelope is verified by time.
  t.equal(run(recipeOf({ op: 'cw.op.mix' })).plan[0]?.verifiedBy, 'time');
  // A vision cue counts as a trusted rung.
  t.equal(run(recipeOf({ op: 'cw.op.cut' })).plan[0]?.rung, 'cw.sense.vision');
});

t.test('unusable documents are refused with a clear detail, never thrown', async (t) => {
  for (const recipe of [
    null,
    'x',
    [],
    {},
    { process: {} },
    { process: { nodes: [{ id: 1, op: 'cw.op.mix' }] } },
    { process: { nodes: [{ id: 'a', op: 'cw.op.mix', params: 3 }] } },
  ]) {
    const r = dryRun({ recipe, capabilities: fryer });
    t.equal(r.state, 'refused');
    t.equal(r.refusal?.reason, 'invalid_input');
    t.type(r.refusal?.detail, 'string');
  }
  // Bad capabilities mean no device ops at all.
  t.equal(dryRun({ recipe: recipeOf({ op: 'cw.op.mix' }), capabilities: 'nope' }).refusal?.reason, 'missing_capability');
});

if (hasShared)
  t.test('reference dry-run vectors', async (t) => {
    const vectors = JSON.parse(readFileSync(`${referenceDir}conformance/dryrun.json`, 'utf8')) as {
      id: string;
      input: { recipe: unknown; capabilities: unknown; humanPresent: boolean; allowModel: boolean; limits?: SafetyLimits };
      expected: { state: string; reason: string | null; by: string[] };
    }[];
    t.ok(vectors.length >= 5);
    for (const v of vectors) {
      const r = dryRun({ ...v.input, now: NOW });
      t.equal(r.state, v.expected.state, v.id);
      t.equal(r.refusal?.reason ?? null, v.expected.reason, v.id);
      if (r.state === 'accepted') t.same([...new Set(r.plan.map((p) => p.by))], v.expected.by, v.id);
    }
  });

t.test('an unusable limit pack refuses the run instead of being skipped', async (t) => {
  const fry = recipeOf({ op: 'cw.op.deep_fry', params: { oilTempC: 175 } });
  const bad: unknown[] = [
    { limits: [{ id: 'oil', kind: 'max_temp', max: '170', appliesTo: { medium: 'oil' } }] },
    { limits: [{ id: 'p', kind: 'pressure' }] },
    { limits: 'none' },
    { limits: [null] },
    [defaultSafetyLimits(), 7],
  ];
  for (const limits of bad) {
    const r = run(fry, { limits });
    t.same([r.state, r.refusal?.reason, r.refusal?.node], ['refused', 'invalid_input', ''], JSON.stringify(limits));
  }
  // Limits without a max of other kinds are fine.
  t.equal(run(fry, { limits: { limits: [{ id: 'smoke', kind: 'smoke_or_fire', action: 'stop_all' }] } }).state, 'accepted');
});

t.test('a plan item lists the fallback rungs that also hold, best first (and none when the ladder has no more)', async (t) => {
  const boil = run(recipeOf({ op: 'cw.op.boil', params: { tempC: 100 } }));
  t.equal(boil.plan[0]?.rung, 'cw.sense.liquid_temp');
  t.same(boil.plan[0]?.fallbacks, ['model', 'time'], 'boil_detect is not on this device; model and time hold');
  const noModel = run(recipeOf({ op: 'cw.op.boil', params: { tempC: 100 } }), { allowModel: false });
  t.same(noModel.plan[0]?.fallbacks, ['time']);
  const saute = run(recipeOf({ op: 'cw.op.saute', params: { tempC: 170 } }));
  t.same(saute.plan[0]?.fallbacks, ['model', 'human'], 'human holds because a person is present');
  const fry = run(recipeOf({ op: 'cw.op.deep_fry', params: { oilTempC: 175 } }));
  t.equal(fry.plan[0]?.fallbacks, undefined, 'deep frying has no rung after the oil sensor');
});
