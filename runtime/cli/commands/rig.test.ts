import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCli } from '../../../test-support/cli.js';

t.test('hearth rig check validates the example hardware rig without touching hardware', async (t) => {
  const r = await runCli(['rig', 'check', 'drivers/examples/rig.hardware.yaml']);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /hardware rig "kitchen-1" is valid\n/);
  t.match(r.stdout, /sensor pan \(cw\.sense\.pan_surface_temp, pan_surface\)/);
  t.match(r.stdout, /heater fryer \(oil\) watched by oil/);
  t.match(r.stdout, /input estop\n/);
});

t.test('hearth rig check --probe --json opens a simulated rig and reads every sensor', async (t) => {
  const r = await runCli(['rig', 'check', 'drivers/examples/rig.simulated.yaml', '--probe', '--json']);
  t.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  t.equal(out.kind, 'simulated');
  t.equal(out.probed, true);
  t.same(
    out.sensors.map((s: { id: string }) => s.id),
    ['oil', 'liquid', 'pan'],
  );
  for (const s of out.sensors) t.ok(Math.abs(s.tempC - 21) < 0.2, `${s.id} reads ambient`);
  t.same(out.inputs, { presence: false, estop: false });
});

t.test('a bad rig file is one line on stderr and exit 2', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-rigcli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const bad = join(dir, 'rig.yaml');
  writeFileSync(bad, 'kind: hardware\nsensors: []\nheaters: []\n');
  const r = await runCli(['rig', 'check', bad]);
  t.equal(r.code, 2);
  t.equal(r.stderr, `hearth: ${bad}: /heaters must NOT have fewer than 1 items\n`);
  t.equal(r.stdout, '');
  const help = await runCli(['rig', 'check', '--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /--probe/);
});
