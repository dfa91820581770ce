import t from 'tap';
import { resolveConfig } from './config.js';
import { parseFaultSpec } from './faults.js';

t.test('fault specs: short and full names, a time, a value', async (t) => {
  t.same(parseFaultSpec('oil-open-at=60s'), { kind: 'open_circuit', target: 'oil', atMs: 60_000 });
  t.same(parseFaultSpec('fryer-welded-at=2m'), { kind: 'relay_welded', target: 'fryer', atMs: 120_000 });
  t.same(parseFaultSpec('fryer-dead'), { kind: 'heater_dead', target: 'fryer' });
  t.same(parseFaultSpec('oil-stuck-at=5m,value=120'), { kind: 'stuck', target: 'oil', atMs: 300_000, value: 120 });
  t.same(parseFaultSpec('liquid-i2c_error-at=1h'), { kind: 'i2c_error', target: 'liquid', atMs: 3_600_000 });
  t.same(parseFaultSpec('pan-serial-lost-at=500ms'), { kind: 'serial_lost', target: 'pan', atMs: 500 });
  t.same(
    parseFaultSpec('my-oil-open-circuit-at=90'),
    { kind: 'open_circuit', target: 'my-oil', atMs: 90_000 },
    'bare seconds, ids with dashes',
  );
});

t.test('bad specs say what is wrong', async (t) => {
  t.throws(() => parseFaultSpec('oil-melt-at=60s'), /unknown fault "melt"/);
  t.throws(() => parseFaultSpec('oil-open-at=soon'), /"soon" is not a time/);
  t.throws(() => parseFaultSpec('oil-open-at=30d'), /not a time/);
  t.throws(() => parseFaultSpec('open'), /unknown fault/);
  t.throws(() => parseFaultSpec('Oil-open'), /not a sensor or heater id/);
  t.throws(() => parseFaultSpec('oil-open,colour=red'), /only ",value=N"/);
});

t.test('--fault and a config file list reach the configuration; a bad one names the option', async (t) => {
  const c = resolveConfig({ fault: ['oil-open-at=60s', 'fryer-welded'] });
  t.same(c.faults, [
    { kind: 'open_circuit', target: 'oil', atMs: 60_000 },
    { kind: 'relay_welded', target: 'fryer' },
  ]);
  t.throws(() => resolveConfig({ fault: ['oil-explode'] }), /^--fault "oil-explode": unknown fault "explode"/);
  t.equal(resolveConfig({}).faults, undefined);
});
