/** The heat guard's spec for a rig (guardSpecFor): which lines it holds and its lease. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { fakeGpioSysfs } from '../../test-support/fake-gpio-sysfs.js';
import { guardSpecFor } from './client.js';
import { GUARD_TIMING } from './spec.js';

t.test('the lease is the default, or a simulated rig its own stall tolerance', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-guard-spec-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const sim = guardSpecFor({ kind: 'simulated' }, dir);
  t.equal(sim?.leaseMs, GUARD_TIMING.leaseMs);
  t.same(
    sim?.lines.map((l) => l.heater),
    ['fryer', 'pot', 'pan'],
  );
  t.equal(guardSpecFor({ kind: 'simulated', stallToleranceMs: 60_000 }, dir)?.leaseMs, 60_000);
  // A Pi 4 on kernel 6.6: the guard holds GPIO17 by its sysfs number, 529.
  const fake = await fakeGpioSysfs(t, 'pi4-6.6', { kernel: false });
  const hardware = guardSpecFor(
    {
      kind: 'hardware',
      gpioSysfsRoot: fake.root,
      sensors: [],
      heaters: [
        {
          id: 'fryer',
          driver: 'gpio_relay',
          medium: 'oil',
          sensors: [],
          maxPowerW: 2000,
          maxC: 230,
          heatCapacityJPerK: 6500,
          gpio: { line: 17 },
        },
      ],
    },
    dir,
  );
  t.equal(hardware?.leaseMs, GUARD_TIMING.leaseMs);
  t.same(hardware?.lines, [{ heater: 'fryer', line: 529, activeLow: false }]);
  t.equal(hardware?.root, fake.root);
});
