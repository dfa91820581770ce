// @slow: runs hearth safe-off as processes (npm run test:fast skips this file; npm test runs it)
/**
 * `hearth safe-off` and the same step at the start of `hearth start`: every heater output named by the rig
 * file is driven to the wire level that de-energizes it, read back from sysfs-like value files, with no
 * database and no network; a corrupt database cannot keep heat on.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCli } from '../test-support/cli.js';
import { fakeGpioSysfs } from '../test-support/fake-gpio-sysfs.js';
import { parseRigConfig } from './rig-config.js';
import { safeOff } from './safe-off.js';

/**
 * A rig file with two relays (GPIO17 active-low, GPIO18 active-high) on a Pi 4 with kernel 6.6, whose sysfs is a
 * fake that behaves as the kernel's (test-support/fake-gpio-sysfs.ts): GPIO17 is sysfs 529, GPIO18 is 530.
 */
async function setup(t: { teardown(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-safe-off-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const fake = await fakeGpioSysfs(t, 'pi4-6.6');
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
  const doc = {
    kind: 'hardware',
    gpioSysfsRoot: fake.root,
    sensors: [{ id: 'oil', driver: 'mcp9600', svcSensor: 'cw.sense.oil_temp', medium: 'oil', bus: '/dev/i2c-1', address: 0x60 }],
    heaters: [relay('fryer', 17, true), relay('pot', 18, false)],
  };
  const rigFile = join(dir, 'rig.json');
  writeFileSync(rigFile, JSON.stringify(doc));
  // A process that died with both relays energized left the wires at their on levels.
  fake.leave(529, 0);
  fake.leave(530, 1);
  const polarity: Record<number, boolean> = { 17: true, 18: false };
  const level = (line: number) => fake.level(fake.sysfsOf(line));
  /** Whether the relay on a header line energizes its load at the level its wire carries (the relay's physics). */
  const energized = (line: number) => (polarity[line] ? level(line) === 0 : level(line) === 1);
  return { dir, fake, sysfs: fake.root, rigFile, level, energized, config: parseRigConfig(doc, rigFile) };
}

t.test('safeOff drives every relay to its off wire level, active-low included', async (t) => {
  const s = await setup(t);
  t.same([s.energized(17), s.energized(18)], [true, true], 'left on by a dead process');
  const results = await safeOff(s.config);
  t.same(
    results.map((r) => [r.heater, r.ok, r.target]),
    [
      ['fryer', true, 'GPIO17 (sysfs 529) -> 1 (active-low)'],
      ['pot', true, 'GPIO18 (sysfs 530) -> 0'],
    ],
  );
  t.same([s.level(17), s.level(18)], [1, 0], 'the wires carry the off levels');
  t.same([s.energized(17), s.energized(18)], [false, false], 'both loads de-energized');
});

t.test('a line that is not exported yet is exported, cleared of kernel inversion and driven off', async (t) => {
  const s = await setup(t);
  const line = join(s.sysfs, 'gpio529');
  writeFileSync(join(line, 'active_low'), '1');
  writeFileSync(join(line, 'direction'), 'in');
  s.fake.unexport(530);
  t.same(s.fake.exported(), [529], 'GPIO18 is not exported');
  const r = await safeOff(s.config);
  t.same(
    r.map((x) => x.ok),
    [true, true],
  );
  t.equal(readFileSync(join(line, 'active_low'), 'utf8'), '0');
  t.equal(readFileSync(join(line, 'direction'), 'utf8'), 'high', 'set as an output already at the off level');
  t.same(s.fake.exported(), [529, 530], 'exported by its sysfs number, nothing else');
  t.equal(s.level(18), 0);
});

t.test('hearth safe-off: one line per output, no database, exit 0', async (t) => {
  const s = await setup(t);
  const r = await runCli(['safe-off', '--rig', s.rigFile], { timeoutMs: 60_000 });
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stdout, 'fryer: off (GPIO17 (sysfs 529) -> 1 (active-low))\npot: off (GPIO18 (sysfs 530) -> 0)\n');
  t.same([s.energized(17), s.energized(18)], [false, false]);
  const bad = await runCli(['safe-off', '--rig', join(s.dir, 'missing.yaml')], { timeoutMs: 60_000 });
  t.equal(bad.code, 2);
  t.match(bad.stderr, /^hearth: .*missing\.yaml/);
  t.equal(bad.stderr.split('\n').length, 2, 'one readable line');
});

t.test('hearth start switches the outputs off before it opens the database: a corrupt one keeps no heat on', async (t) => {
  const s = await setup(t);
  const data = join(s.dir, 'var');
  mkdirSync(data);
  writeFileSync(join(data, 'hearth.db'), 'this is not an SQLite database, it is a torn write'.repeat(200));
  const r = await runCli(['start', '--rig', s.rigFile, '--data-dir', data, '--http-port', '0', '--log-level', 'silent'], {
    timeoutMs: 90_000,
  });
  t.not(r.code, 0, 'start fails on the corrupt database');
  t.notMatch(r.stdout, /hearth ready/);
  t.same([s.level(17), s.level(18)], [1, 0], 'but the wires were driven off first');
  t.same([s.energized(17), s.energized(18)], [false, false]);
});

t.test('a rig file invalid for reasons unrelated to its outputs: every output is still cut, then the problem is reported', async (t) => {
  const s = await setup(t);
  const doc = JSON.parse(readFileSync(s.rigFile, 'utf8')) as { heaters: Record<string, unknown>[]; sensors: unknown[] };
  delete doc.heaters[0]?.heatCapacityJPerK; // the fryer no longer names its thermal mass
  doc.heaters.push({ id: 'mystery', driver: 'gpio_relay', medium: 'oil', gpio: { line: 19, activeLow: 'maybe' } });
  const bad = join(s.dir, 'bad-rig.json');
  writeFileSync(bad, JSON.stringify(doc));
  t.same([s.energized(17), s.energized(18)], [true, true], 'left on by a dead process');
  const r = await runCli(['safe-off', '--rig', bad], { timeoutMs: 60_000 });
  t.equal(r.code, 1, 'non-zero: the file is not valid');
  t.same([s.level(17), s.level(18)], [1, 0], 'the wires carry the off levels (17 is active-low)');
  t.same([s.energized(17), s.energized(18)], [false, false], 'both loads de-energized');
  t.equal(
    r.stdout,
    'fryer: off (GPIO17 (sysfs 529) -> 1 (active-low))\npot: off (GPIO18 (sysfs 530) -> 0)\nmystery: NOT OFF (output unknown): gpio.activeLow is "maybe", so its off level is unknown\n',
  );
  t.match(r.stderr, /could not be switched off: mystery/);
  t.match(
    r.stderr,
    /the rig file is not valid \(2 output\(s\) it names were switched off anyway\): .*bad-rig\.json: heater "fryer" does not name the heat capacity/,
  );
});

t.test('hearth start on such a rig file cuts its outputs, then refuses to start with the reason', async (t) => {
  const s = await setup(t);
  const doc = JSON.parse(readFileSync(s.rigFile, 'utf8')) as { heaters: Record<string, unknown>[] };
  delete doc.heaters[1]?.maxC;
  writeFileSync(s.rigFile, JSON.stringify(doc));
  const data = join(s.dir, 'var');
  const r = await runCli(['start', '--rig', s.rigFile, '--data-dir', data, '--http-port', '0', '--log-level', 'silent'], {
    timeoutMs: 90_000,
  });
  t.equal(r.code, 2, r.stderr);
  t.match(r.stderr, /heater "pot" does not name its maximum temperature/);
  t.same([s.energized(17), s.energized(18)], [false, false], 'both loads de-energized before the refusal');
});
