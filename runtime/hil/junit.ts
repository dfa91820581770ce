/**
 * HIL results as JUnit XML, the form Jenkins (junit step) and GitLab CI (`artifacts:reports:junit`) read: one
 * `<testcase>` per scenario with its wall time in seconds, a `<failure>` whose message names the bound missed
 * and the value measured (every failing check in its text), `<skipped>` with the reason. The structure is the
 * widely used Ant/Jenkins JUnit schema (hil-tests/junit/jenkins-junit.xsd; a test validates against it).
 */
import { hostname } from 'node:os';
import type { Bound } from './expect.js';
import type { ScenarioResult } from './runner.js';
import type { Scenario } from './scenario.js';

/** Characters XML 1.0 cannot carry at all: dropped. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly the characters to remove
const INVALID = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

export function xmlEscape(s: string): string {
  return s
    .replace(INVALID, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const attrs = (a: Record<string, string | number | undefined>) =>
  Object.entries(a)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${xmlEscape(String(v))}"`)
    .join('');

const seconds = (ms: number | undefined) => ((ms ?? 0) / 1000).toFixed(3);

/** The failure's one-line message: the first missed bound with what was measured, else the first failure. */
export function failureMessage(r: ScenarioResult): { type: string; message: string } {
  const missed: Bound | undefined = r.bounds?.find((b) => !b.ok);
  if (missed) return { type: missed.check, message: `${missed.check}: bound ${missed.bound}; measured ${missed.measured ?? 'nothing'}` };
  const first = r.failures[0] ?? 'failed';
  return { type: first.split(':')[0] || 'failure', message: first };
}

export interface JunitOptions {
  suite: string;
  /** Suite properties (rig, version, …). */
  properties?: Record<string, string>;
  timestamp?: Date;
}

export function junitXml(pairs: readonly { result: ScenarioResult; scenario: Scenario }[], o: JunitOptions): string {
  const results = pairs.map((p) => p.result);
  const failures = results.filter((r) => !r.ok).length;
  const skipped = results.filter((r) => r.skipped).length;
  const time = seconds(results.reduce((a, r) => a + (r.ms ?? 0), 0));
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  lines.push(`<testsuites${attrs({ name: o.suite, tests: results.length, failures, errors: 0, time })}>`);
  lines.push(
    `  <testsuite${attrs({
      name: o.suite,
      tests: results.length,
      failures,
      errors: 0,
      skipped,
      time,
      timestamp: (o.timestamp ?? new Date()).toISOString().slice(0, 19),
      hostname: hostname(),
    })}>`,
  );
  const props = Object.entries(o.properties ?? {});
  if (props.length > 0) {
    lines.push('    <properties>');
    for (const [name, value] of props) lines.push(`      <property${attrs({ name, value })}/>`);
    lines.push('    </properties>');
  }
  for (const { result: r, scenario: s } of pairs) {
    const head = `    <testcase${attrs({ name: r.name, classname: `hil.${s.hardware}`, time: seconds(r.ms) })}`;
    const body: string[] = [];
    if (r.skipped) body.push(`      <skipped${attrs({ message: r.skipped })}/>`);
    else if (!r.ok) {
      const { type, message } = failureMessage(r);
      body.push(`      <failure${attrs({ type, message })}>${xmlEscape(r.failures.join('\n'))}</failure>`);
    }
    const checked = (r.bounds ?? []).map(
      (b) => `${b.ok ? 'ok' : 'MISSED'} ${b.check}: bound ${b.bound}; measured ${b.measured ?? 'nothing'}`,
    );
    if (checked.length > 0) body.push(`      <system-out>${xmlEscape(checked.join('\n'))}</system-out>`);
    lines.push(body.length === 0 ? `${head}/>` : `${head}>\n${body.join('\n')}\n    </testcase>`);
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}
