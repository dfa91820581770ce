import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { runCli, scratchFiles } from '../../../test-support/cli.js';

const { dir, file } = scratchFiles(t, 'hearth-check-');
const koshari = 'examples/recipes/koshari.svc.json';
const fryer = 'examples/devices/demo-fryer-robot.json';
const fryerLimits = 'examples/limits/demo-fryer.limits.json';

t.test('dry-run: koshari on the demo fryer', async (t) => {
  const alone = await runCli(['dry-run', koshari, '--device', fryer]);
  t.equal(alone.code, 1);
  t.match(alone.stdout, /refused: needs_human_present at n7: cw\.op\.heat may not run unattended/);
  const withPerson = await runCli(['dry-run', koshari, '--device', fryer, '--human-present', '--limits', fryerLimits]);
  t.equal(withPerson.code, 0, withPerson.stderr);
  t.match(withPerson.stdout, /step\s+op\s+band\s+target\s+who\s+verified by/);
  t.match(withPerson.stdout, /n14\s+cw\.op\.deep_fry\s+160–190 °C\s+175 °C\s+device\s+sensor cw\.sense\.oil_temp/);
  t.match(withPerson.stdout, /accepted: 20 steps/);
  const j = await runCli(['dry-run', koshari, '--device', fryer, '--human-present', '--no-model', '--json']);
  const result = JSON.parse(j.stdout) as { state: string; plan: { by: string }[] };
  t.equal(result.state, 'accepted');
  t.equal(result.plan.length, 20);
  // The device's own stricter limits win over the recipe's 175 °C deep fry.
  const tight = JSON.parse(readFileSync(fryerLimits, 'utf8')) as { limits: { max?: number }[] };
  tight.limits[0] = { ...tight.limits[0], max: 170 };
  const lim = await runCli(['dry-run', koshari, '--device', fryer, '--human-present', '--limits', file('tight.json', tight), '--json']);
  t.equal(lim.code, 1);
  t.same([JSON.parse(lim.stdout).refusal.reason, JSON.parse(lim.stdout).refusal.node], ['safety_limit', 'n14']);
  // No oil thermometer: never deep-fries, even with a person.
  const basic = await runCli(['dry-run', koshari, '--device', 'examples/devices/demo-hob-robot-basic.json', '--human-present']);
  t.match(basic.stdout, /refused: missing_sensor_no_fallback at n14/);
});

t.test('dry-run: bad inputs are one line and exit 2', async (t) => {
  const cases: [string[], RegExp][] = [
    [['dry-run', join(dir, 'none.json'), '--device', fryer], /cannot read recipe/],
    [['dry-run', koshari, '--device', file('notjson.json', 'nope')], /capabilities document .* is not valid JSON/],
    [
      ['dry-run', file('schema-bad.json', { svc: '0.2.0', id: 'x1', revision: 1, process: { nodes: [] } }), '--device', fryer],
      /is not a valid recipe: \/process\/nodes: /,
    ],
    [['dry-run', koshari, '--device', koshari], /is not a valid capabilities document/],
    [
      ['dry-run', koshari, '--device', fryer, '--limits', file('badlimits.json', { kind: 'SafetyLimits', limits: [] })],
      /is not a valid SafetyLimits pack/,
    ],
    [['dry-run', koshari, '--device', fryer, '--now', 'tomorrow'], /--now tomorrow/],
    [['dry-run', koshari], /required option '--device <file>'/],
  ];
  for (const [args, re] of cases) {
    const r = await runCli(args);
    t.equal(r.code, args.length === 2 ? 1 : 2, args.join(' '));
    t.match(r.stderr, re, args.join(' '));
    t.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
});
