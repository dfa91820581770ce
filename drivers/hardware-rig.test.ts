import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { SimGpio } from './buses/gpio.js';
import { SimI2cBus } from './buses/sim-i2c.js';
import { ManualClock, systemClock } from './clock.js';
import { SerialApplianceClient } from './devices/serial-appliance.js';
import { type HardwareBackends, HardwareRig } from './hardware-rig.js';
import { loadRigConfig } from './rig-config.js';
import { openMockApplianceLink } from './sim/serial-links.js';
import { SimAppliance } from './sim/sim-appliance.js';
import { SimMcp9600 } from './sim/sim-mcp9600.js';

const exampleFile = fileURLToPath(new URL('./examples/rig.hardware.yaml', import.meta.url));
let mockPorts = 0;

/** The example configuration on simulated backends: the same rig code, no hardware. */
function backends(o: { chips?: number[] } = {}) {
  const bus = new SimI2cBus('/dev/i2c-1');
  const probes = new Map<number, { hotC: number; coldC: number; open?: boolean }>();
  for (const addr of o.chips ?? [0x60, 0x61]) {
    const p = { hotC: 20 + addr - 0x60, coldC: 22 };
    probes.set(addr, p);
    bus.attach(addr, new SimMcp9600(() => p));
  }
  const gpio = new SimGpio();
  const appliance = new SimAppliance({ clock: new ManualClock(0), ambientC: 21 });
  const b: HardwareBackends = {
    i2c: async (path) => {
      if (path !== '/dev/i2c-1') throw new Error(`unexpected bus ${path}`);
      return bus;
    },
    gpio: async () => gpio,
    serial: async (path, _baud, clock) => {
      const link = await openMockApplianceLink(`${path}-${++mockPorts}`, appliance);
      return new SerialApplianceClient({ path, link, clock, timeoutMs: 200 });
    },
  };
  return { b, bus, gpio, appliance, probes };
}

t.test('the example hardware rig on simulated backends', async (t) => {
  const config = loadRigConfig(exampleFile);
  if (config.kind !== 'hardware') throw new Error('expected a hardware config');
  const s = backends();
  const rig = new HardwareRig(config, systemClock, s.b);
  t.teardown(() => rig.close());
  await rig.open();
  t.same([...rig.sensors.keys()], ['oil', 'liquid', 'pan']);
  t.same([...rig.heaters.keys()], ['fryer', 'pan']);
  t.equal((await rig.sensors.get('liquid')!.read()).tempC, 21);
  t.equal((await rig.sensors.get('pan')!.read()).tempC, 21, 'the hob probe over serial');
  await rig.heaters.get('fryer')!.set(1);
  t.equal(s.gpio.energized(17), true, 'relay on GPIO 17');
  await rig.heaters.get('pan')!.set(0.4);
  t.equal(s.appliance.permille, 400);
  rig.allHeatOff();
  t.equal(s.gpio.energized(17), false);
  const seen: boolean[] = [];
  rig.estop!.watch((v) => seen.push(v));
  s.gpio.setInput(22, true);
  t.same(seen, [true]);
  t.equal(await rig.estop!.read(), true);
  t.same(
    rig.watchdogTargets().map((x) => x.kind),
    ['none', 'none'],
    'the simulated GPIO backend has no sysfs file; the serial hob has its own timeout',
  );
});

t.test('an absent chip fails open() clearly and leaves nothing on', async (t) => {
  const config = loadRigConfig(exampleFile);
  if (config.kind !== 'hardware') throw new Error('expected a hardware config');
  const s = backends({ chips: [0x60] });
  const rig = new HardwareRig(config, systemClock, s.b);
  await t.rejects(rig.open(), /sensor "liquid": no MCP9600 answering at 0x61 on \/dev\/i2c-1/);
});

t.test('the simulated rig never loads the native hardware modules', async (t) => {
  const script = `
    import { createRequire } from 'node:module';
    const { createRig } = await import(${JSON.stringify(new URL('./rig.ts', import.meta.url).href)});
    const rig = await createRig({ kind: 'simulated' });
    await rig.open();
    await rig.close();
    const cache = Object.keys(createRequire(import.meta.url).cache);
    console.log(JSON.stringify(cache.filter((k) => /i2c-bus|onoff|bindings-cpp|serialport/.test(k))));
  `;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  t.equal(r.status, 0, r.stderr);
  t.same(JSON.parse(r.stdout.trim().split('\n').at(-1) as string), []);
});
