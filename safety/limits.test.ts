import { readFileSync } from 'node:fs';
import t from 'tap';
import { hasShared, referenceDir } from '../test-support/shared.js';
import { checkLimitChange, defaultSafetyLimits, effectiveMaxTempC, effectivePressureMaxKPa, limitApplies, mergeLimits } from './limits.js';
import type { SafetyLimits } from './types.js';

const device: SafetyLimits = {
  core: '0.2.0',
  kind: 'SafetyLimits',
  id: 'demo-fryer',
  version: '1.0.0',
  limits: [{ id: 'oil.device', kind: 'max_temp', max: 190, unit: 'degC', action: 'cut_heat', appliesTo: { medium: 'oil' } }],
};

t.test('the default pack carries the documented limits', async (t) => {
  const d = defaultSafetyLimits();
  t.equal(d.kind, 'SafetyLimits');
  t.same(effectiveMaxTempC([d], { op: 'cw.op.deep_fry', medium: 'oil' }), { maxC: 200, limitId: 'oil.max_temp', action: 'cut_heat' });
  t.same(effectiveMaxTempC([d], { op: 'cw.op.saute', medium: 'pan_surface' }), {
    maxC: 280,
    limitId: 'pan.max_surface',
    action: 'cut_heat',
  });
  t.same(effectivePressureMaxKPa([d], { op: 'cw.op.pressure_cook', medium: 'pressure' }), { maxKPa: 110, limitId: 'pressure.max' });
  t.equal(effectiveMaxTempC([d], { op: 'cw.op.boil', medium: 'water' }), null);
  d.limits.length = 0;
  t.ok(defaultSafetyLimits().limits.length > 10, 'callers get a copy');
});

t.test('selectors: each one a limit has must match', async (t) => {
  const l = { id: 'x', kind: 'max_temp', max: 1, appliesTo: { medium: 'oil', ops: ['cw.op.fry'] } };
  t.ok(limitApplies(l, { op: 'cw.op.fry', medium: 'oil' }));
  t.notOk(limitApplies(l, { op: 'cw.op.deep_fry', medium: 'oil' }));
  t.notOk(limitApplies(l, { op: 'cw.op.fry', medium: 'water' }));
  t.ok(limitApplies({ id: 'all', kind: 'max_temp', max: 1 }, { op: 'anything' }));
  t.notOk(limitApplies({ id: 'f', kind: 'max_temp', max: 1, appliesTo: { foodClass: 'poultry' } }, { op: 'cw.op.bake' }));
});

t.test('the strictest always wins, whatever the order', async (t) => {
  const sel = { op: 'cw.op.deep_fry', medium: 'oil' };
  t.equal(effectiveMaxTempC([defaultSafetyLimits(), device], sel)?.maxC, 190);
  t.equal(effectiveMaxTempC([device, defaultSafetyLimits()], sel)?.maxC, 190);
  const looser: SafetyLimits = { limits: [{ id: 'oil.loose', kind: 'max_temp', max: 250, appliesTo: { medium: 'oil' } }] };
  t.equal(effectiveMaxTempC([defaultSafetyLimits(), device, looser], sel)?.limitId, 'oil.device', 'adding a looser pack raises nothing');
  const fahrenheit: SafetyLimits = { limits: [{ id: 'oil.f', kind: 'max_temp', max: 356, unit: 'degF', appliesTo: { medium: 'oil' } }] };
  t.equal(effectiveMaxTempC([device, fahrenheit], sel)?.maxC, 180);
  const merged = mergeLimits([defaultSafetyLimits(), device, looser]);
  t.equal(merged.kind, 'SafetyLimits');
  t.equal(merged.limits.length, defaultSafetyLimits().limits.length + 2);
  t.equal(effectiveMaxTempC([merged], sel)?.maxC, 190);
  t.equal(mergeLimits([]).limits.length, 0);
});

t.test('a change may tighten but never loosen', async (t) => {
  const cur = defaultSafetyLimits();
  const tighter = defaultSafetyLimits();
  const oil = tighter.limits.find((l) => l.id === 'oil.max_temp');
  if (oil) oil.max = 180;
  tighter.limits.push({ id: 'extra', kind: 'max_temp', max: 100 });
  t.same(checkLimitChange(cur, tighter), { ok: true, raised: [] });

  const raisedPack = defaultSafetyLimits();
  const r = raisedPack.limits.find((l) => l.id === 'oil.max_temp');
  if (r) r.max = 230;
  const res = checkLimitChange(cur, raisedPack);
  t.equal(res.ok, false);
  t.same(res.raised, [{ id: 'oil.max_temp', from: 200, to: 230, what: 'max' }]);

  const removed = defaultSafetyLimits();
  removed.limits = removed.limits.filter((l) => l.id !== 'pressure.max');
  t.same(checkLimitChange(cur, removed).raised, [{ id: 'pressure.max', from: 110, to: Number.POSITIVE_INFINITY, what: 'removed' }]);

  const lowerMin = defaultSafetyLimits();
  const p = lowerMin.limits.find((l) => l.id === 'core.poultry');
  if (p) p.min = 60;
  t.same(checkLimitChange(cur, lowerMin).raised, [{ id: 'core.poultry', from: 74, to: 60, what: 'min' }]);

  const weaker = defaultSafetyLimits();
  const s = weaker.limits.find((l) => l.id === 'smoke.fire');
  if (s) s.action = 'alert';
  t.equal(checkLimitChange(cur, weaker).raised[0]?.what, 'action');

  const narrower = defaultSafetyLimits();
  const pan = narrower.limits.find((l) => l.id === 'pan.max_surface');
  if (pan) pan.appliesTo = { medium: 'pan_surface', ops: ['cw.op.sear'] };
  t.equal(checkLimitChange(cur, narrower).raised[0]?.what, 'scope');

  const unit = defaultSafetyLimits();
  const u = unit.limits.find((l) => l.id === 'oil.max_temp');
  if (u) u.unit = 'degF';
  t.equal(checkLimitChange(cur, unit).ok, false);
});

if (hasShared) {
  t.test('the project pack carries the reference pack facts', async (t) => {
    const ref = JSON.parse(readFileSync(`${referenceDir}profiles/safety-limits.default.json`, 'utf8')) as SafetyLimits;
    const ours = defaultSafetyLimits();
    for (const l of ref.limits) {
      const o = ours.limits.find((x) => x.id === l.id);
      t.ok(o, l.id);
      t.same([o?.kind, o?.max, o?.min, o?.unit, o?.action, o?.appliesTo], [l.kind, l.max, l.min, l.unit, l.action, l.appliesTo], l.id);
    }
    t.same(checkLimitChange(ref, ours), { ok: true, raised: [] });
  });
}
