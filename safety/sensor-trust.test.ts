import { readFileSync } from 'node:fs';
import t from 'tap';
import { hasShared, referenceDir } from '../test-support/shared.js';
import { ladderChoice, parseInstant, plausibility, trustedSensors } from './sensor-trust.js';
import { device, NOW } from './test-fixtures.js';

t.test('trusted sensors: healthy, calibrated, with their vision cues', async (t) => {
  const caps = device(
    [],
    [
      { sensor: 'cw.sense.oil_temp', state: 'ok', calibration: { validUntil: '2027-01-01T00:00:00Z' } },
      { sensor: 'cw.sense.liquid_temp', state: 'degraded' },
      { sensor: 'cw.sense.core_temp', calibration: { validUntil: '2026-10-01T00:00:00Z' } },
      { sensor: 'cw.sense.pan_surface_temp', calibration: { validUntil: 'next year' } },
      { sensor: 'cw.sense.chamber_temp', calibration: { validUntil: '2026-10-05' } },
      { sensor: 'cw.sense.vision', visionCues: ['cw.sense.color_golden'] },
    ],
  );
  t.same([...trustedSensors(caps, NOW)].sort(), ['cw.sense.chamber_temp', 'cw.sense.color_golden', 'cw.sense.oil_temp', 'cw.sense.vision']);
  t.same(trustedSensors(null, NOW), new Set());
  t.same(trustedSensors({ capabilities: { sensors: [null, 3, { sensor: '' }] } }, NOW), new Set());
});

t.test('RFC 3339 instants: an offset is required on date-times', async (t) => {
  t.equal(parseInstant('2026-10-05T00:00:00Z'), Date.UTC(2026, 9, 5));
  t.equal(parseInstant('2026-10-05T02:00:00+02:00'), Date.UTC(2026, 9, 5));
  t.ok(Number.isNaN(parseInstant('2026-10-05T00:00:00')));
  t.ok(Number.isNaN(parseInstant(12)));
});

t.test('ladder choice', async (t) => {
  const none = device([]);
  const base = { capabilities: none, humanPresent: false, allowModel: true, now: NOW };
  t.equal(ladderChoice({ ...base, op: 'cw.op.simmer' }), 'model');
  t.equal(ladderChoice({ ...base, op: 'cw.op.simmer', allowModel: false }), 'time');
  t.equal(ladderChoice({ ...base, op: 'cw.op.saute', allowModel: false }), null);
  t.equal(ladderChoice({ ...base, op: 'cw.op.saute', allowModel: false, humanPresent: true }), 'human');
  t.equal(ladderChoice({ ...base, op: 'cw.op.deep_fry', humanPresent: true }), null);
  t.equal(
    ladderChoice({ ...base, op: 'cw.op.deep_fry', capabilities: device([], [{ sensor: 'cw.sense.oil_temp' }]) }),
    'cw.sense.oil_temp',
  );
  t.equal(ladderChoice({ ...base, op: 'cw.op.mix' }), 'time');
});

t.test('plausibility', async (t) => {
  t.equal(plausibility({ tempC: 175, accuracyC: 1 }, { tempC: 187, accuracyC: 1 }), 'implausible');
  t.equal(plausibility({ tempC: 175, accuracyC: 1 }, { tempC: 178, accuracyC: 1 }), 'ok');
  t.equal(plausibility({ tempC: 175 }, { tempC: 180 }), 'ok', 'default accuracy 2 °C each: 5 °C allowed');
  t.equal(plausibility({ tempC: 175 }, { tempC: 180.5 }), 'implausible');
  t.equal(plausibility({ tempC: '175' }, { tempC: 176 }), 'non_numeric_reading');
  t.equal(plausibility({ tempC: 175 }, { tempC: Number.POSITIVE_INFINITY }), 'non_numeric_reading');
});

if (hasShared) {
  t.test('reference sensor-trust and ladder vectors', async (t) => {
    type V = { id: string; kind: string; input: Record<string, unknown>; expected: Record<string, unknown> };
    const trust = JSON.parse(readFileSync(`${referenceDir}conformance/profiles/sensor_trust.json`, 'utf8')) as V[];
    const env = JSON.parse(readFileSync(`${referenceDir}conformance/envelope.json`, 'utf8')) as V[];
    let n = 0;
    for (const v of trust) {
      const i = v.input;
      if (v.kind === 'sensor_trust') {
        const choice = ladderChoice({
          capabilities: i.capabilities,
          op: i.op as string,
          humanPresent: i.humanPresent === true,
          allowModel: i.allowModel !== false,
          now: new Date(i.now as string),
        });
        t.equal(choice, v.expected.choice, v.id);
      } else {
        const [a, b] = i.readings as { sensor: string; tempC: unknown }[];
        const acc = (s: string) => (i.sensors as { sensor: string; accuracy?: number }[]).find((x) => x.sensor === s)?.accuracy;
        const r = plausibility({ tempC: a?.tempC, accuracyC: acc(a?.sensor ?? '') }, { tempC: b?.tempC, accuracyC: acc(b?.sensor ?? '') });
        t.same({ ok: r === 'ok', reason: r === 'ok' ? null : r }, { ok: v.expected.ok, reason: v.expected.reason ?? null }, v.id);
      }
      n++;
    }
    for (const v of env.filter((x) => Array.isArray(x.input.sensors))) {
      const caps = device(
        [],
        (v.input.sensors as string[]).map((sensor) => ({ sensor })),
      );
      const choice = ladderChoice({
        capabilities: caps,
        op: v.input.op as string,
        humanPresent: v.input.humanPresent === true,
        allowModel: v.input.allowModel !== false,
        now: NOW,
      });
      t.equal(choice, v.expected.choice, v.id);
      n++;
    }
    t.ok(n >= 10);
  });
}
