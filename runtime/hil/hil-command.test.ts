/**
 * `hearth hil` (and `npm run hil`, its alias) as a user runs it: one line per scenario, the totals, exit 1 on a
 * failure, 2 on bad input; on a hardware rig without a terminal, what needs a person is skipped with the reason.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { childEnv, hearthArgv, repoRoot, runCli } from '../../test-support/cli.js';

const hil = (args: string[]) => runCli(['hil', ...args]);

t.test('a passing scenario by name: one line, totals, exit 0', async (t) => {
  const r = await hil(['recipe-widens-envelope']);
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stdout, 'pass recipe-widens-envelope\n1 passed, 0 failed\n');
});

t.test('a scenario whose expectation does not hold: FAIL with the reason, exit 1', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-hil-run-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'wrong.yaml');
  writeFileSync(
    file,
    [
      'name: wrong',
      'description: a deep fry at 200 °C expected to be served, which it never is',
      'hardware: safe',
      'recipe: { id: hil-wrong, nodes: [{ id: n1, op: cw.op.deep_fry, params: { oilTempC: 200 } }] }',
      'presentAtStart: true',
      'runFor: 5s',
      'expect: { state: completed }',
    ].join('\n'),
  );
  const r = await hil([file]);
  t.equal(r.code, 1);
  t.match(r.stdout, /^FAIL wrong\n {5}state: expected "completed", got "refused"\n0 passed, 1 failed\n$/);
});

t.test('bad input: exit 2 with one line', async (t) => {
  const r = await hil(['no-such-scenario']);
  t.equal(r.code, 2);
  t.match(r.stderr, /^hearth: no scenario "no-such-scenario": neither a scenario name \(.*koshari-fry-served.*\) nor a file\n$/);
  const dir = mkdtempSync(join(tmpdir(), 'hearth-hil-run-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'bad.yaml'), 'name: bad\nhardware: safe\nexpect: {}\n');
  const bad = await hil([join(dir, 'bad.yaml')]);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /bad\.yaml: \/ must have required property 'description'/);
});

t.test('on a hardware rig file, simulated-only scenarios are skipped without opening the rig', async (t) => {
  const r = await hil(['--rig', 'drivers/examples/rig.hardware.yaml', 'welded-relay', 'limit-clamped-at-run-time']);
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stdout, 'skip welded-relay (simulated only)\nskip limit-clamped-at-run-time (simulated only)\n0 passed, 0 failed, 2 skipped\n');
});

t.test('on a hardware rig without a terminal, a scenario that needs a person is skipped with the reason', async (t) => {
  const r = await hil(['--rig', 'drivers/examples/rig.hardware.yaml', 'koshari-fry-served', 'presence-lost-mid-fry']);
  t.equal(r.code, 0, r.stderr);
  const why = 'needs a person at the rig, and this run is not interactive: no terminal, or CI';
  t.equal(r.stdout, `skip koshari-fry-served (${why})\nskip presence-lost-mid-fry (${why})\n0 passed, 0 failed, 2 skipped\n`);
});

t.test('on a hardware rig at a terminal, an estop scenario asks for a person and waits for Enter', async (t) => {
  // A terminal from util-linux's script(1); CI unset, so the run counts as interactive. This machine has no I2C
  // bus and no GPIO chips, so once the person has answered the scenario fails opening the rig (at its GPIO lines
  // or, where /sys/class/gpio exists, at its I2C sensors): what matters is the wait before it.
  const [node, args] = hearthArgv(['hil', '--rig', 'drivers/examples/rig.hardware.yaml', 'dead-heater']);
  const quote = (a: string) => `'${a.replace(/'/g, "'\\''")}'`;
  const child = spawn('script', ['-qec', [node, ...args].map(quote).join(' '), '/dev/null'], {
    cwd: repoRoot,
    env: { ...childEnv(), CI: '' },
  });
  t.teardown(() => child.kill('SIGKILL'));
  let out = '';
  const seen = (re: RegExp) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (re.test(out)) {
          child.stdout.off('data', on);
          resolve();
        }
      };
      const on = (d: Buffer) => {
        out += d.toString();
        check();
      };
      child.stdout.on('data', on);
      child.once('close', () => resolve());
      check();
    });
  const prompt = /dead-heater: stand at the emergency stop, with a lid and a fire blanket at hand; press Enter when done/;
  await seen(prompt);
  t.match(out, prompt, 'the prompt');
  t.notMatch(out, /FAIL|pass|skip/, 'nothing ran before the person answered');
  child.stdin.write('\n');
  await seen(/0 passed, 1 failed/);
  t.match(
    out,
    /FAIL dead-heater\r?\n {5}(sensor "oil": no MCP9600 answering|heater "fryer", presence, estop: \/sys\/class\/gpio does not exist)/,
  );
});

t.test('a rig file that fails validation, an unwritable output: one line, exit 2, nothing written', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-hil-run-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'rig.yaml'), 'kind: hardware\nsensors: 3\n');
  const rig = await hil(['--rig', join(dir, 'rig.yaml'), 'recipe-widens-envelope']);
  t.equal(rig.code, 2);
  t.match(rig.stderr, /^hearth: .*rig\.yaml: .*\n$/);
  t.equal(rig.stdout, '');
  const missing = await hil(['--junit', join(dir, 'no/such/out.xml'), 'recipe-widens-envelope']);
  t.equal(missing.code, 2);
  t.equal(missing.stderr, `hearth: cannot write JUnit file ${join(dir, 'no/such/out.xml')}: its parent folder does not exist\n`);
  writeFileSync(join(dir, 'a-file'), 'x');
  const notDir = await hil(['--report', join(dir, 'a-file'), 'recipe-widens-envelope']);
  t.equal(notDir.code, 2);
  t.match(notDir.stderr, /^hearth: cannot write report folder .*a-file: it exists and is not a folder\n$/);
  t.same(readdirSync(dir).sort(), ['a-file', 'rig.yaml'], 'nothing half-written beside them');
});

t.test("README's frozen-sensor command prints what the README shows", async (t) => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const m = /```sh\nnpm run hil -- frozen-oil-below-target\n```\n\n```\n([\s\S]*?)```/.exec(readme);
  t.ok(m, 'the README shows the command and its output');
  const r = await hil(['frozen-oil-below-target']);
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stdout, m?.[1], 'the output, line for line');
});
