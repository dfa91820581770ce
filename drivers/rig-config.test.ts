import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { loadRigConfig, parseRigConfig } from './rig-config.js';

const example = (name: string) => fileURLToPath(new URL(`./examples/${name}`, import.meta.url));

t.test('the example rig files load', async (t) => {
  const hw = loadRigConfig(example('rig.hardware.yaml'));
  t.equal(hw.kind, 'hardware');
  if (hw.kind !== 'hardware') return;
  t.equal(hw.sensors[0]?.address, 0x60, 'YAML hex addresses');
  t.equal(hw.heaters[1]?.driver, 'serial_appliance');
  const sim = loadRigConfig(example('rig.simulated.yaml'));
  t.same(sim.kind === 'simulated' && sim.faults?.[0], { kind: 'open_circuit', target: 'oil', atMs: 900000 });
});

t.test('errors name the file and the reason', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-rig-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  t.throws(() => loadRigConfig(join(dir, 'missing.yaml')), { message: `${join(dir, 'missing.yaml')}: cannot read rig config (ENOENT)` });
  const badJson = file('bad.json', '{"kind": ');
  t.throws(() => loadRigConfig(badJson), { message: new RegExp(`^${badJson}: not valid JSON`) });
  const badYaml = file('bad.yaml', 'kind: [simulated');
  t.throws(() => loadRigConfig(badYaml), { message: new RegExp(`^${badYaml}: not valid YAML`) });
  const typo = file('typo.yaml', 'kind: simulated\nsped: 60\n');
  t.throws(() => loadRigConfig(typo), { message: `${typo}: / must NOT have additional properties (sped)` });
  const kind = file('kind.yaml', 'kind: magic\n');
  t.throws(() => loadRigConfig(kind), { message: `${kind}: /kind must be "simulated" or "hardware"` });
});

t.test('hardware configs are checked field by field and for consistency', async (t) => {
  const base = {
    kind: 'hardware',
    sensors: [{ id: 'oil', driver: 'mcp9600', svcSensor: 'cw.sense.oil_temp', medium: 'oil', bus: '/dev/i2c-1', address: 0x60 }],
    heaters: [
      {
        id: 'fryer',
        driver: 'gpio_relay',
        medium: 'oil',
        sensors: ['oil'],
        maxPowerW: 2000,
        maxC: 230,
        heatCapacityJPerK: 6500,
        gpio: { line: 17 },
      },
    ],
  };
  t.equal(parseRigConfig(base).kind, 'hardware');
  t.throws(() => parseRigConfig({ ...base, sensors: [{ ...base.sensors[0], address: 0x20 }] }), /\/sensors\/0\/address must be >= 96/);
  t.throws(() => parseRigConfig({ ...base, sensors: [{ ...base.sensors[0], bus: 'i2c1' }] }), /\/sensors\/0\/bus must match pattern/);
  t.throws(
    () => parseRigConfig({ ...base, heaters: [{ ...base.heaters[0], sensors: ['pan'] }] }),
    /heater "fryer" names unknown sensor "pan"/,
  );
  t.throws(() => parseRigConfig({ ...base, sensors: [base.sensors[0], base.sensors[0]] }), /sensor ids must be unique/);
  t.throws(
    () => parseRigConfig({ kind: 'simulated', faults: [{ kind: 'gremlins', target: 'oil' }] }),
    /\/faults\/0\/kind must be equal to one of the allowed values/,
  );
  t.throws(() => parseRigConfig(null), /kind must be/);
});

t.test('a stall tolerance is a simulated rig setting only, within bounds', async (t) => {
  t.same(parseRigConfig({ kind: 'simulated', stallToleranceMs: 60_000 }), { kind: 'simulated', stallToleranceMs: 60_000 });
  t.throws(() => parseRigConfig({ kind: 'simulated', stallToleranceMs: 50 }), /\/stallToleranceMs must be >= 100/);
  t.throws(() => parseRigConfig({ kind: 'simulated', stallToleranceMs: 600_001 }), /\/stallToleranceMs must be <= 600000/);
  const hardware = {
    kind: 'hardware',
    sensors: [{ id: 'oil', driver: 'mcp9600', svcSensor: 'cw.sense.oil_temp', medium: 'oil', bus: '/dev/i2c-1', address: 0x60 }],
    heaters: [],
    stallToleranceMs: 60_000,
  };
  t.throws(() => parseRigConfig(hardware), /additional properties \(stallToleranceMs\)/, 'a real heater never gets a longer stall');
});

t.test('the rig file shown in docs/hardware.md is the example file, and valid', async (t) => {
  const { readFileSync } = await import('node:fs');
  const { parse } = await import('yaml');
  const md = readFileSync(fileURLToPath(new URL('../docs/hardware.md', import.meta.url)), 'utf8');
  const block = /```yaml\n([\s\S]*?)```/.exec(md)?.[1];
  t.ok(block, 'docs/hardware.md has a yaml block');
  const documented = parseRigConfig(parse(block as string), 'docs/hardware.md');
  t.same(documented, loadRigConfig(example('rig.hardware.yaml')));
});

t.test('a heater output without its maximum temperature or thermal mass is refused, naming the file and the reason', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-rig-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const noMax = join(dir, 'no-max.yaml');
  writeFileSync(
    noMax,
    [
      'kind: hardware',
      'sensors: [{ id: oil, driver: mcp9600, svcSensor: cw.sense.oil_temp, medium: oil, bus: /dev/i2c-1, address: 0x60 }]',
      'heaters: [{ id: fryer, driver: gpio_relay, medium: oil, sensors: [oil], maxPowerW: 2000, heatCapacityJPerK: 6500, gpio: { line: 17 } }]',
    ].join('\n'),
  );
  t.throws(() => loadRigConfig(noMax), {
    message: `${noMax}: heater "fryer" does not name its maximum temperature (maxC, °C): every heater output must, so heat is cut above it whatever a recipe or pack says`,
  });
  const noMass = join(dir, 'no-mass.json');
  writeFileSync(
    noMass,
    JSON.stringify({
      kind: 'hardware',
      sensors: [],
      heaters: [
        {
          id: 'pan',
          driver: 'serial_appliance',
          medium: 'pan_surface',
          maxPowerW: 1800,
          maxC: 300,
          path: '/dev/ttyUSB0',
          sensor: { id: 'pan', svcSensor: 'x' },
        },
      ],
    }),
  );
  t.throws(() => loadRigConfig(noMass), {
    message: new RegExp(`^${noMass}: heater "pan" does not name the heat capacity of what it heats \\(heatCapacityJPerK`),
  });
});

t.test('a GPIO line is a header number, or a chip and an offset, never both', async (t) => {
  const rig = (gpio: unknown, extra: Record<string, unknown> = {}) => ({
    kind: 'hardware',
    ...extra,
    sensors: [{ id: 'oil', driver: 'mcp9600', svcSensor: 'cw.sense.oil_temp', medium: 'oil', bus: '/dev/i2c-1', address: 0x60 }],
    heaters: [
      { id: 'fryer', driver: 'gpio_relay', medium: 'oil', sensors: ['oil'], maxPowerW: 2000, maxC: 230, heatCapacityJPerK: 6500, gpio },
    ],
  });
  t.doesNotThrow(() => parseRigConfig(rig({ line: 17 }, { chip: 'pinctrl-bcm2711' })));
  t.doesNotThrow(() => parseRigConfig(rig({ line: 17 }, { chip: '/dev/gpiochip0' })));
  t.doesNotThrow(() => parseRigConfig(rig({ chip: 'raspberrypi-exp-gpio', offset: 2, activeLow: true })));
  t.doesNotThrow(() => parseRigConfig({ ...rig({ line: 17 }), presence: { chip: '/dev/gpiochip1', offset: 3 } }));
  const both = 'r.json: heater "fryer" gpio names both line and chip/offset: use line (the header GPIO number, e.g. 17) or chip and offset';
  t.throws(() => parseRigConfig(rig({ line: 17, chip: 'pinctrl-bcm2711' }), 'r.json'), { message: both });
  t.throws(() => parseRigConfig(rig({ line: 17, offset: 17 }), 'r.json'), { message: both });
  const neither = 'r.json: heater "fryer" gpio needs line (the header GPIO number, e.g. 17) or chip and offset (a line of another chip)';
  t.throws(() => parseRigConfig(rig({ offset: 17 }), 'r.json'), { message: neither });
  t.throws(() => parseRigConfig({ ...rig({ line: 17 }), estop: { chip: 'x' } }, 'r.json'), {
    message: 'r.json: estop needs line (the header GPIO number, e.g. 17) or chip and offset (a line of another chip)',
  });
  t.throws(() => parseRigConfig(rig({ chip: '', offset: 1 }), 'r.json'), /^r\.json: \/heaters\/0/);
  t.throws(() => parseRigConfig(rig({ activeLow: true }), 'r.json'), { message: neither });
  t.throws(() => parseRigConfig(rig({ line: 17 }, { chip: '' }), 'r.json'), /^r\.json: \/chip/);
});
