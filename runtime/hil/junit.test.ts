/**
 * `hearth hil --junit FILE`: JUnit XML that the Jenkins/Ant JUnit schema accepts (validated with xmllint, from
 * Debian's libxml2-utils, against hil-tests/junit/jenkins-junit.xsd), one testcase per scenario, a failure
 * carrying the bound missed and the value measured, a skipped case carrying its reason.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { repoRoot, runCli, scratchFiles } from '../../test-support/cli.js';
import { junitXml } from './junit.js';
import type { ScenarioResult } from './runner.js';
import { parseScenario } from './scenario.js';

const XSD = join(repoRoot, 'hil-tests/junit/jenkins-junit.xsd');

function validate(file: string): { ok: boolean; out: string } {
  const r = spawnSync('xmllint', ['--noout', '--schema', XSD, file], { encoding: 'utf8' });
  return { ok: r.status === 0, out: `${r.stdout}${r.stderr}` };
}

const scenario = (name: string, hardware: 'safe' | 'estop' = 'safe') =>
  parseScenario({ name, description: 'x', hardware, expect: {} }, `${name}.yaml`);

t.test('a pass, a failure with its bound and measurement, and a skip validate against the schema', async (t) => {
  const { dir } = scratchFiles(t, 'hearth-junit-');
  const failed: ScenarioResult = {
    name: 'oil-open-circuit-mid-fry',
    ok: false,
    failures: ['heatOff: heat went off 750 ms after "fault", bound 250 ms', 'state: expected "stopped", got "running" <&>'],
    figures: { heatOffMs: 750 },
    bounds: [
      { check: 'heatOff', bound: 'heat off ≤ 250 ms after "fault"', measured: '750 ms', ok: false },
      { check: 'state', bound: '"stopped"', measured: '"running"', ok: false },
    ],
    ms: 2500,
  };
  const xml = junitXml(
    [
      {
        result: { name: 'koshari-fry-served', ok: true, failures: [], figures: {}, bounds: [], ms: 1234 },
        scenario: scenario('koshari-fry-served'),
      },
      { result: failed, scenario: scenario('oil-open-circuit-mid-fry', 'estop') },
      {
        result: { name: 'dead-heater', ok: true, skipped: 'needs a person at the rig', failures: [], figures: {}, ms: 0 },
        scenario: scenario('dead-heater', 'estop'),
      },
    ],
    { suite: 'hearth hil', properties: { rig: 'simulated', version: '0.1.0' } },
  );
  const file = join(dir, 'out.xml');
  writeFileSync(file, xml);
  const v = validate(file);
  t.ok(v.ok, v.out);
  t.match(xml, /<testsuite name="hearth hil" tests="3" failures="1" errors="0" skipped="1" time="3\.734"/);
  t.match(xml, /<testcase name="koshari-fry-served" classname="hil\.safe" time="1\.234"\/>/);
  t.match(
    xml,
    /<failure type="heatOff" message="heatOff: bound heat off ≤ 250 ms after &quot;fault&quot;; measured 750 ms">heatOff: heat went off 750 ms after &quot;fault&quot;, bound 250 ms\nstate: expected &quot;stopped&quot;, got &quot;running&quot; &lt;&amp;&gt;<\/failure>/,
  );
  t.match(xml, /<testcase name="dead-heater" classname="hil\.estop" time="0\.000">\n {6}<skipped message="needs a person at the rig"\/>/);
  t.match(xml, /<property name="rig" value="simulated"\/>/);
});

t.test('the schema check is real: it refuses a testcase with no name and a failure before a skip', async (t) => {
  const { dir } = scratchFiles(t, 'hearth-junit-');
  const bad = join(dir, 'bad.xml');
  writeFileSync(bad, '<testsuites><testsuite name="s" tests="1"><testcase time="1"/></testsuite></testsuites>');
  t.notOk(validate(bad).ok, 'no name');
  writeFileSync(
    bad,
    '<testsuites><testsuite name="s" tests="1"><testcase name="a"><failure/><skipped/></testcase></testsuite></testsuites>',
  );
  t.notOk(validate(bad).ok, 'order');
});

t.test('hearth hil --junit: one testcase per scenario, the failing one names its bound and what was measured', async (t) => {
  const { dir, file } = scratchFiles(t, 'hearth-junit-');
  const scenarioFile = file(
    'slow-off.yaml',
    [
      'name: slow-off',
      'description: the open circuit of oil-open-circuit-mid-fry, with a bound of 0 ms',
      'hardware: estop',
      'recipe: { id: hil-slow-off, from: examples/recipes/koshari.svc.json, nodes: [n13, n14] }',
      'presentAtStart: true',
      'timeline: [{ at: { step: n14, after: 10m }, fault: { kind: open_circuit, target: oil } }]',
      'runFor: 40m',
      'expect: { heatOff: { withinMs: 0 } }',
    ].join('\n'),
  );
  const out = join(dir, 'results.xml');
  const r = await runCli(['hil', '--junit', out, 'recipe-widens-envelope', scenarioFile]);
  t.equal(r.code, 1, r.stderr);
  const v = validate(out);
  t.ok(v.ok, v.out);
  const xml = readFileSync(out, 'utf8');
  t.equal(xml.match(/<testcase /g)?.length, 2, 'one testcase per scenario');
  t.match(xml, /<testcase name="recipe-widens-envelope" classname="hil\.safe" time="\d+\.\d{3}">/);
  t.match(xml, /<failure type="heatOff" message="heatOff: bound heat off ≤ 0 ms after &quot;fault&quot;; measured [1-9]\d* ms">/);
});
