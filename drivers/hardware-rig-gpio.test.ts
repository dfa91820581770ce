// @slow: runs the heat guard, hearth safe-off, hearth start and hearth rig check as processes on fake sysfs GPIO
/**
 * On the sysfs GPIO of each Raspberry Pi board and kernel users run (test-support/fake-gpio-sysfs.ts: laid out as
 * the kernel lays it out, `export` served as the kernel serves it, so a line appears only when a chip owns its
 * number), a rig file's GPIO17 and GPIO27 are driven through the value files of their resolved sysfs numbers:
 * by `hearth safe-off`, by the heat guard that holds them for a started hub, by the hub's rig through the guard,
 * and by the loop watchdog's worker. The levels asserted are what the value files hold (the wire), read through
 * each relay's own polarity: GPIO17 drives an active-low relay board, GPIO27 an active-high one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { guardSpecFor, startHeatGuard } from '../runtime/guard/client.js';
import { createWatchdog } from '../runtime/supervisor/watchdog.js';
import { runCli } from '../test-support/cli.js';
import { type FakeGpioSysfs, fakeGpioSysfs, PI_LAYOUTS, type PiLayoutName } from '../test-support/fake-gpio-sysfs.js';
import { SimI2cBus } from './buses/sim-i2c.js';
import { systemClock } from './clock.js';
import { HardwareRig, linuxBackends } from './hardware-rig.js';
import { type HardwareRigConfig, parseRigConfig } from './rig-config.js';
import { safeOff } from './safe-off.js';
import { SimMcp9600 } from './sim/sim-mcp9600.js';

const realSleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Block the event loop for at least `minMs`, then until `done()` or `maxMs` (a bound on a starved worker, not a timing). */
function blockFor(minMs: number, done: () => boolean, maxMs = 5000): void {
  const start = Date.now();
  while (Date.now() - start < minMs || (!done() && Date.now() - start < maxMs)) {
    // busy: the event loop cannot run
  }
}
async function until(cond: () => boolean, ms = 30_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end && !cond()) await realSleep(10);
  return cond();
}

function rigDoc(root: string, lines: { fryer: number; pot: number } = { fryer: 17, pot: 27 }) {
  const relay = (id: string, line: number, activeLow: boolean) => ({
    id,
    driver: 'gpio_relay',
    medium: 'oil',
    sensors: ['oil'],
    maxPowerW: 2000,
    maxC: 230,
    heatCapacityJPerK: 6000,
    gpio: { line, activeLow },
  });
  return {
    kind: 'hardware',
    gpioSysfsRoot: root,
    sensors: [{ id: 'oil', driver: 'mcp9600', svcSensor: 'cw.sense.oil_temp', medium: 'oil', bus: '/dev/i2c-1', address: 0x60 }],
    heaters: [relay('fryer', lines.fryer, true), relay('pot', lines.pot, false)],
  };
}

/** The physics of the two relays: the active-low board (GPIO17) conducts at LOW, the active-high one (GPIO27) at HIGH. */
function loads(fake: FakeGpioSysfs) {
  const fryer = fake.sysfsOf(17);
  const pot = fake.sysfsOf(27);
  return {
    fryer,
    pot,
    levels: () => [fake.level(fryer), fake.level(pot)],
    energized: () => [fake.level(fryer) === 0, fake.level(pot) === 1],
  };
}

for (const name of Object.keys(PI_LAYOUTS) as PiLayoutName[]) {
  t.test(`${PI_LAYOUTS[name].what}: safe-off, the heat guard, the rig and the loop watchdog drive the resolved value files`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-gpio-layout-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const fake = await fakeGpioSysfs(t, name);
    const config = parseRigConfig(rigDoc(fake.root), 'rig.json') as HardwareRigConfig;
    const w = loads(fake);
    // A process that died with both relays energized.
    fake.leave(w.fryer, 0);
    fake.leave(w.pot, 1);
    t.same(w.energized(), [true, true], 'left on');

    const results = await safeOff(config);
    t.same(
      results.map((r) => [r.ok, r.target]),
      [
        [true, `GPIO17 (sysfs ${w.fryer}) -> 1 (active-low)`],
        [true, `GPIO27 (sysfs ${w.pot}) -> 0`],
      ],
    );
    t.same(w.energized(), [false, false], 'safe-off de-energized both loads');
    t.same(fake.exported(), [w.fryer, w.pot], 'only the resolved lines were exported');

    // As hearth start runs them: the guard holds the lines, the rig drives them through it.
    const spec = guardSpecFor(config, dir);
    if (!spec) throw new Error('no guard spec');
    t.same(
      spec.lines.map((l) => l.line),
      [w.fryer, w.pot],
      'the guard is given the sysfs numbers',
    );
    // A lease long enough that only the loop watchdog below can cut.
    const guard = await startHeatGuard({ ...spec, leaseMs: 120_000 }, { log: () => {} });
    t.teardown(() => guard.close());
    const bus = new SimI2cBus('/dev/i2c-1');
    bus.attach(0x60, new SimMcp9600(() => ({ hotC: 25, coldC: 22 })));
    const rig = new HardwareRig(config, systemClock, { ...linuxBackends(fake.root), i2c: async () => bus }, guard);
    await rig.open();
    t.teardown(() => rig.close());
    await rig.heaters.get('fryer')?.set(1);
    await rig.heaters.get('pot')?.set(1);
    await guard.settled();
    t.same(w.levels(), [0, 1], 'on: the active-low wire LOW, the active-high HIGH');
    t.same(w.energized(), [true, true]);
    t.same(
      rig.watchdogTargets().map((x) => (x.kind === 'sysfs' ? [x.valuePath, x.offValue] : x.kind)),
      [
        [join(fake.root, `gpio${w.fryer}`, 'value'), '1'],
        [join(fake.root, `gpio${w.pot}`, 'value'), '0'],
      ],
    );

    // The loop blocks: the watchdog's worker writes the off levels into those files.
    const wd = createWatchdog({ targets: rig.watchdogTargets(), stallMs: 150, onFired: () => {} });
    await wd.start();
    await realSleep(60);
    blockFor(300, () => w.energized().every((e) => !e));
    t.same(w.levels(), [1, 0], 'the watchdog cut: the active-low wire HIGH, the active-high LOW');
    t.same(w.energized(), [false, false]);
    t.ok(wd.lastOffAt() > 0, 'the worker recorded its cut');
    await wd.stop();

    // On again (the rig still believed them on: the worker wrote behind its back), then the guard is told to
    // stop: it drives its lines off before it exits.
    rig.allHeatOff();
    await rig.heaters.get('fryer')?.set(1);
    await rig.heaters.get('pot')?.set(1);
    await guard.settled();
    t.same(w.energized(), [true, true]);
    await guard.close();
    t.ok(await until(() => w.energized().every((e) => !e)), 'the guard left both off');
    t.same(w.levels(), [1, 0]);
    t.same(fake.exported(), [w.fryer, w.pot], 'nothing else was ever exported');
  });
}

t.test('hearth safe-off and hearth rig check --probe on a Raspberry Pi 5 (pinctrl-rp1, base 571)', async (t) => {
  const fake = await fakeGpioSysfs(t, 'pi5-6.6.47');
  const dir = mkdtempSync(join(tmpdir(), 'hearth-gpio-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const rigFile = join(dir, 'rig.json');
  writeFileSync(rigFile, JSON.stringify(rigDoc(fake.root)));
  const w = loads(fake);
  fake.leave(w.fryer, 0);
  fake.leave(w.pot, 1);
  const r = await runCli(['safe-off', '--rig', rigFile], { timeoutMs: 60_000 });
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stdout, 'fryer: off (GPIO17 (sysfs 588) -> 1 (active-low))\npot: off (GPIO27 (sysfs 598) -> 0)\n');
  t.same(w.energized(), [false, false]);
  const probe = await runCli(['rig', 'check', rigFile, '--probe'], { timeoutMs: 60_000 });
  // The mapping is printed before any device is opened (no I2C bus here: the sensor's probe may fail after it).
  t.match(
    probe.stdout,
    'heater "fryer": GPIO17 → gpiochip0 line 17 (pinctrl-rp1), sysfs 588\n  heater "pot": GPIO27 → gpiochip0 line 27 (pinctrl-rp1), sysfs 598\n',
  );
  t.same(w.energized(), [false, false], 'the probe left both off');
});

t.test('a line that cannot be resolved: safe-off and start cut every other output, then stop with one line', async (t) => {
  const fake = await fakeGpioSysfs(t, 'pi4-6.6');
  const dir = mkdtempSync(join(tmpdir(), 'hearth-gpio-bad-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const rigFile = join(dir, 'rig.json');
  // GPIO58 does not exist on a Pi 4 (pinctrl-bcm2711 has 58 lines, 0-57): a pin number, perhaps.
  writeFileSync(rigFile, JSON.stringify(rigDoc(fake.root, { fryer: 17, pot: 58 })));
  fake.leave(fake.sysfsOf(17), 0);
  const line =
    'heater "pot": GPIO58: pinctrl-bcm2711 has lines 0-57 only (found: pinctrl-bcm2711 (gpiochip0, base 512, 58 lines), raspberrypi-exp-gpio (gpiochip1, base 570, 8 lines)); use the header GPIO number (not the pin number), or {chip, offset} for another chip';
  const r = await runCli(['safe-off', '--rig', rigFile], { timeoutMs: 60_000 });
  t.equal(r.code, 1);
  t.equal(r.stderr, `hearth: ${rigFile}: ${line}\n`, 'one line');
  t.match(r.stdout, 'fryer: off (GPIO17 (sysfs 529) -> 1 (active-low))\n');
  t.equal(fake.level(529), 1, 'the resolvable active-low output is off');

  fake.leave(529, 0);
  const data = join(dir, 'var');
  const s = await runCli(['start', '--rig', rigFile, '--data-dir', data, '--http-port', '0', '--log-level', 'silent'], {
    timeoutMs: 90_000,
  });
  t.equal(s.code, 2);
  t.equal(s.stderr, `hearth: ${rigFile}: ${line}\n`, 'one line');
  t.notMatch(s.stdout, /hearth ready/);
  t.equal(fake.level(529), 1, 'start cut the resolvable output before it stopped');
  t.same(fake.exported(), [529]);

  // No sysfs GPIO at all: the same, naming what is missing.
  const gone = join(dir, 'no-gpio', 'class', 'gpio');
  writeFileSync(rigFile, JSON.stringify(rigDoc(gone)));
  const n = await runCli(['safe-off', '--rig', rigFile], { timeoutMs: 60_000 });
  t.equal(n.code, 1);
  t.equal(
    n.stderr,
    `hearth: ${rigFile}: heater "fryer", heater "pot": ${gone} does not exist: this kernel has no sysfs GPIO (CONFIG_GPIO_SYSFS) or this is not the board; run hearth on the Raspberry Pi, or set gpioSysfsRoot in the rig file\n`,
  );
});
