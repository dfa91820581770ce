import { readFileSync } from 'node:fs';
import t from 'tap';
import { hasShared, referenceDir } from '../test-support/shared.js';
import { allOps, getOp, heatLevelBand, heatLevels, heatLevelsFromUnits, isNonExecutable, opEnvelope } from './vocab.js';

t.test('operations and envelopes', async (t) => {
  t.equal(allOps().length, 57);
  t.equal(getOp('cw.op.deep_fry')?.label, 'Deep-fry');
  t.same(opEnvelope('cw.op.deep_fry')?.tempC, { min: 160, max: 190 });
  t.same(opEnvelope('cw.op.deep_fry')?.sensorLadder, ['cw.sense.oil_temp']);
  t.equal(opEnvelope('cw.op.deep_fry')?.unattended, false);
  t.same(opEnvelope('cw.op.pressure_cook')?.pressureKPa, { min: 50, max: 100 });
  t.equal(opEnvelope('cw.op.mix'), undefined);
  t.equal(getOp('cw.op.unknown'), undefined);
  t.ok(isNonExecutable('cw.op.legacy_step'));
  t.notOk(isNonExecutable('cw.op.mix'));
  for (const op of allOps()) {
    const e = op.envelope;
    if (!e) continue;
    t.type(e.unattended, 'boolean', op.id);
    t.ok(Array.isArray(e.sensorLadder) && e.sensorLadder.length > 0, op.id);
    if (e.tempC) t.ok(e.tempC.min <= e.tempC.max, op.id);
  }
});

t.test('heat levels are pan-surface bands', async (t) => {
  t.same(heatLevelBand('very_low'), { min: 90, max: 120 });
  t.same(heatLevelBand('cw.heat.max'), { min: 240, max: 280 });
  t.same(heatLevelBand('medium'), { min: 170, max: 190 });
  t.equal(heatLevelBand('nuclear'), undefined);
  t.equal(heatLevels().length, 7);
  const own = JSON.parse(readFileSync(new URL('./vocab/heat-levels.json', import.meta.url), 'utf8')) as { levels: Record<string, unknown> };
  for (const [k, v] of Object.entries(own.levels)) t.same(heatLevelBand(k), v, `${k} agrees with the project table`);
});

t.test('reading heat levels out of a units vocabulary', async (t) => {
  const bands = heatLevelsFromUnits({
    entries: [
      { id: 'cw.unit.tsp', convert: { to: 'ml', factor: 5 } },
      { id: 'cw.heat.low', surfaceTempC: { min: 120, max: 150 } },
      { id: 'cw.heat.bad', surfaceTempC: { min: 'x', max: 3 } },
    ],
    heatLevels: { high: { min: 210, max: 240 } },
  });
  t.same(
    [...bands.entries()],
    [
      ['low', { min: 120, max: 150 }],
      ['high', { min: 210, max: 240 }],
    ],
  );
  t.equal(heatLevelsFromUnits(null).size, 0);
});

if (hasShared) {
  t.test('the project vocabulary carries the reference facts', async (t) => {
    const ref = JSON.parse(readFileSync(`${referenceDir}vocab/ops.json`, 'utf8')) as {
      entries: {
        id: string;
        executable?: boolean;
        envelope?: { medium: string; tempC?: unknown; pressureKPa?: unknown; unattended: boolean; sensorLadder?: string[] };
      }[];
    };
    t.equal(ref.entries.length, allOps().length);
    for (const e of ref.entries) {
      const o = getOp(e.id);
      t.ok(o, e.id);
      t.equal(o?.executable, e.executable, `${e.id} executable`);
      if (e.envelope) {
        const env = o?.envelope;
        t.same(
          [env?.medium, env?.tempC, env?.pressureKPa, env?.unattended, env?.sensorLadder],
          [e.envelope.medium, e.envelope.tempC, e.envelope.pressureKPa, e.envelope.unattended, e.envelope.sensorLadder],
          e.id,
        );
      } else t.equal(o?.envelope, undefined, e.id);
    }
  });
}
