/**
 * `npm run hil [-- --rig FILE] [--json] [scenario…]`: run hardware-in-the-loop scenarios (all of them, or the
 * ones named by name or path) and print one line per scenario, then `N passed, N failed`. Exit 1 when any
 * failed, 2 on bad input. With `--rig FILE` naming a hardware rig, time is real and the runner asks the person
 * at the rig to make each fault (press Enter when done); scenarios marked simulated-only are skipped.
 */
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { firstTrip } from './observe.js';
import { runScenario, type ScenarioResult } from './runner.js';
import { loadScenario, resolveScenario, ScenarioError, scenarioFiles } from './scenario.js';

function figures(r: ScenarioResult): string {
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

async function main(): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse();
  } catch (err) {
    process.stderr.write(`hil: ${(err as Error).message}\n`);
    return 2;
  }
  if (args.values.help) {
    process.stdout.write('usage: npm run hil [-- --rig FILE] [--json] [scenario…]\n  see docs/hil.md\n');
    return 0;
  }
  let scenarios: ReturnType<typeof loadScenario>[];
  try {
    const files = args.positionals.length > 0 ? args.positionals.map(resolveScenario) : scenarioFiles();
    scenarios = files.map(loadScenario);
  } catch (err) {
    if (err instanceof ScenarioError) {
      process.stderr.write(`hil: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const rl = args.values.rig ? createInterface({ input: process.stdin, output: process.stdout }) : undefined;
  const ask = async (instruction: string) => {
    await rl?.question(`  → ${instruction}; press Enter when done `);
  };
  const results: ScenarioResult[] = [];
  for (const s of scenarios) {
    let r: ScenarioResult;
    try {
      r = await runScenario(s, { rigFile: args.values.rig, ask });
    } catch (err) {
      r = { name: s.name, ok: false, failures: [(err as Error).message], figures: {} };
    }
    results.push(r);
    if (args.values.json) continue;
    const head = r.skipped ? 'skip' : r.ok ? 'pass' : 'FAIL';
    process.stdout.write(`${head} ${r.name}${r.skipped ? ` (${r.skipped})` : figures(r)}\n`);
    for (const f of r.failures) process.stdout.write(`     ${f}\n`);
    if (args.positionals.length > 0) for (const line of tripDetail(r)) process.stdout.write(`     ${line}\n`);
  }
  rl?.close();
  const passed = results.filter((r) => r.ok && !r.skipped).length;
  const failed = results.filter((r) => !r.ok).length;
  const skipped = results.filter((r) => r.skipped).length;
  if (args.values.json) {
    const out = results.map(({ obs: _o, ...r }) => r);
    process.stdout.write(`${JSON.stringify({ passed, failed, skipped, results: out }, null, 2)}\n`);
  } else process.stdout.write(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`);
  return failed > 0 ? 1 : 0;
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

function parse() {
  return parseArgs({
    allowPositionals: true,
    options: { rig: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`hil: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
