/**
 * `hearth hil [--rig FILE] [--json] [--junit FILE] [--report DIR] [scenario…]`: run hardware-in-the-loop
 * scenarios (every one, or those named by name or path) and print one line per scenario, then
 * `N passed, N failed`. `--junit` writes JUnit XML (one testcase per scenario), `--report` a folder with
 * index.html and one SVG chart per scenario. Exit 1 when a scenario failed, 2 on bad input (CliError). See
 * docs/hil.md.
 */
import { writeFileSync } from 'node:fs';
import { junitXml } from './junit.js';
import { firstTrip } from './observe.js';
import { writeReport } from './report.js';
import { loadScenarios, runAll, totals } from './run-all.js';
import type { ScenarioResult } from './runner.js';
import type { Scenario } from './scenario.js';
import { type Staged, stageDir, stageFile } from './staged.js';

export interface HilOptions {
  rig?: string;
  json?: boolean;
  junit?: string;
  report?: string;
}

export function figures(r: ScenarioResult): string {
  const f = r.figures;
  const parts = [
    f.heatOffMs !== undefined ? `heat off +${f.heatOffMs} ms` : '',
    f.tripMs !== undefined ? `trip +${(f.tripMs / 1000).toFixed(2)} s` : '',
    f.stopMs !== undefined ? `final +${(f.stopMs / 1000).toFixed(2)} s` : '',
    f.watchdogOffMs !== undefined ? `watchdog cut +${Math.round(f.watchdogOffMs)} ms (real)` : '',
    f.crossingOffMs !== undefined ? `limit crossed → heat off +${f.crossingOffMs} ms` : '',
  ].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

/** For a scenario asked for by name: the trip it caused, what to check, and the true peak temperatures. */
function tripDetail(r: ScenarioResult): string[] {
  const trip = r.obs ? firstTrip(r.obs) : undefined;
  if (!trip || !r.obs) return [];
  const peak = r.obs.trueMaxC[String(trip.subject)];
  return [
    `trip: ${String(trip.reason)} on ${String(trip.subject)}: ${String(trip.message)}`,
    `hint: ${String(trip.hint)}`,
    ...(peak !== undefined
      ? [`true peak of ${String(trip.subject)} (the simulated rig's physics, not a reading): ${peak.toFixed(1)} °C`]
      : []),
  ];
}

export async function hilCommand(names: string[], o: HilOptions): Promise<number> {
  const scenarios = loadScenarios(names);
  const staged: Staged[] = [];
  try {
    const junit = o.junit !== undefined ? stageFile(o.junit, 'JUnit file') : undefined;
    if (junit) staged.push(junit);
    const report = o.report !== undefined ? stageDir(o.report, 'report folder') : undefined;
    if (report) staged.push(report);
    const out = (line: string) => process.stdout.write(`${line}\n`);
    const results = await runAll(scenarios, {
      ...(o.rig !== undefined ? { rigFile: o.rig } : {}),
      onResult: (r) => {
        if (o.json) return;
        const head = r.skipped ? 'skip' : r.ok ? 'pass' : 'FAIL';
        out(`${head} ${r.name}${r.skipped ? ` (${r.skipped})` : figures(r)}`);
        for (const f of r.failures) out(`     ${f}`);
        if (names.length > 0) for (const line of tripDetail(r)) out(`     ${line}`);
      },
    });
    const { passed, failed, skipped } = totals(results);
    const pairs = results.map((r, i) => ({ result: r, scenario: scenarios[i] as Scenario }));
    if (junit) {
      writeFileSync(junit.path, junitXml(pairs, { suite: 'hearth hil' }));
      junit.commit();
    }
    if (report) {
      writeReport(report.path, pairs, {
        title: 'Hearth HIL report',
        facts: [
          ['rig', o.rig ?? 'simulated (each scenario’s options)'],
          ['run at', new Date().toISOString()],
        ],
      });
      report.commit();
    }
    if (o.json) {
      const list = results.map(({ obs: _o, ...r }) => r);
      out(JSON.stringify({ passed, failed, skipped, results: list }, null, 2));
    } else out(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
    return failed > 0 ? 1 : 0;
  } finally {
    for (const s of staged) s.discard();
  }
}
