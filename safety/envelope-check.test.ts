import { readFileSync } from 'node:fs';
import t from 'tap';
import { hasShared, referenceDir } from '../test-support/shared.js';
import { checkTemperature, thermalBand } from './envelope-check.js';

const trace = (...temps: number[]) => temps.map((tempC, i) => ({ t: i * 30, tempC }));

t.test('a simmer that settles in band and on target is ok', async (t) => {
  t.same(checkTemperature({ op: 'cw.op.simmer', readings: trace(40, 70, 88, 92, 94, 93, 95), target: { value: 94, tolerance: 3 } }), {
    envelopeOk: true,
    targetOk: true,
    reason: 'ok',
  });
});

t.test('a simmer that reaches 99 °C boils: left_envelope', async (t) => {
  t.same(checkTemperature({ op: 'cw.op.simmer', readings: trace(60, 90, 94, 99, 100) }), {
    envelopeOk: false,
    targetOk: null,
    reason: 'left_envelope',
  });
});

t.test('missed target: in band throughout but never settles within tolerance', async (t) => {
  t.same(checkTemperature({ op: 'cw.op.simmer', readings: trace(60, 86, 87, 86, 94, 86), target: { value: 94, tolerance: 2 } }), {
    envelopeOk: true,
    targetOk: false,
    reason: 'missed_target',
  });
});

t.test('warm-up readings before the band are not counted; never reaching it is a failure', async (t) => {
  t.equal(checkTemperature({ op: 'cw.op.deep_fry', readings: trace(20, 80, 150, 170, 180) }).reason, 'ok');
  t.same(checkTemperature({ op: 'cw.op.deep_fry', readings: trace(20, 80, 150) }), {
    envelopeOk: false,
    targetOk: null,
    reason: 'never_reached_envelope',
  });
  t.same(checkTemperature({ op: 'cw.op.deep_fry', readings: [], target: { value: 175, tolerance: 5 } }), {
    envelopeOk: false,
    targetOk: false,
    reason: 'never_reached_envelope',
  });
});

t.test('altitude moves water and steam bands down, not oil', async (t) => {
  t.same(thermalBand('cw.op.boil', 2400), { min: 90, max: 94 });
  t.same(thermalBand('cw.op.deep_fry', 2400), { min: 160, max: 190 });
  t.equal(checkTemperature({ op: 'cw.op.boil', readings: trace(60, 85, 93, 93), altitudeM: 2400 }).reason, 'ok');
  t.equal(checkTemperature({ op: 'cw.op.boil', readings: trace(60, 85, 93, 93), altitudeM: 0 }).reason, 'never_reached_envelope');
});

t.test('targets outside the band, ops without an envelope, unknown ops, non-numeric readings', async (t) => {
  t.same(checkTemperature({ op: 'cw.op.deep_fry', readings: trace(175), target: { value: 230, tolerance: 5 } }), {
    envelopeOk: false,
    targetOk: false,
    reason: 'target_outside_envelope',
  });
  t.same(checkTemperature({ op: 'cw.op.mix', readings: trace(300) }), { envelopeOk: true, targetOk: null, reason: 'no_thermal_envelope' });
  t.equal(checkTemperature({ op: 'cw.op.nope', readings: trace(20) }).reason, 'unknown_op');
  const bad = [
    { t: 0, tempC: 170 },
    { t: 1, tempC: '175' as unknown as number },
  ];
  t.equal(checkTemperature({ op: 'cw.op.deep_fry', readings: bad }).reason, 'left_envelope');
});

if (hasShared) {
  t.test('reference envelope vectors (trace checks)', async (t) => {
    const vectors = JSON.parse(readFileSync(`${referenceDir}conformance/envelope.json`, 'utf8')) as {
      id: string;
      input: {
        op: string;
        readings?: { t: number; tempC: number }[];
        target?: { value: number; tolerance: number } | null;
        altitudeM?: number;
      };
      expected: { envelopeOk?: boolean; targetOk?: boolean | null; reason?: string };
    }[];
    const traces = vectors.filter((v) => Array.isArray(v.input.readings));
    t.ok(traces.length >= 6);
    for (const v of traces) {
      t.same(
        checkTemperature({ op: v.input.op, readings: v.input.readings ?? [], target: v.input.target, altitudeM: v.input.altitudeM }),
        v.expected,
        v.id,
      );
    }
  });
}

t.test('readings are taken in time order', async (t) => {
  const shuffled = [
    { t: 60, tempC: 99 },
    { t: 0, tempC: 60 },
    { t: 30, tempC: 90 },
  ];
  t.equal(checkTemperature({ op: 'cw.op.simmer', readings: shuffled }).reason, 'left_envelope', 'sorted: 90 then 99 leaves the band');
  const iso = [
    { t: '2026-10-05T12:01:00Z', tempC: 90 },
    { t: '2026-10-05T12:00:00Z', tempC: 99 },
  ];
  // In time order the 99 °C reading comes first, before the band is reached, so it is warm-up; in the order given
  // it would have left the band.
  t.equal(checkTemperature({ op: 'cw.op.simmer', readings: iso }).reason, 'ok');
  t.equal(checkTemperature({ op: 'cw.op.simmer', readings: [iso[1], iso[0]] as typeof iso }).reason, 'ok');
  const mixed = [
    { t: 'later', tempC: 90 },
    { t: 0, tempC: 99 },
  ];
  t.equal(checkTemperature({ op: 'cw.op.simmer', readings: mixed }).reason, 'left_envelope', 'unreadable times keep the given order');
});
