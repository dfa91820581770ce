/**
 * `hearth safety-report [--rig FILE] --key KEYFILE --out DIR`: evidence for an appliance's technical file. Runs
 * every HIL scenario on the rig (the simulated one without --rig; on a hardware rig, what needs a person asks
 * for one, see run-all.ts) and the HIL mutation run (always on the simulated rig, mutation.ts), then writes
 * into DIR, staged beside it and renamed into place once complete:
 *
 * - report.json: hazard → control → scenario → documented bound → measured → killed by mutation (from
 *   hil-tests/hazards.yaml, the source of docs/safety-case.md's table), each scenario's bounds and results, the
 *   mutation rows, Hearth's version and commit, the rig file's SHA-256, the limits in force, the machine, the
 *   date and the load average; signed with the operator's Ed25519 key (kind `SafetyReport`, as a conformance
 *   report is signed), in canonical JSON, so `hearth verify report.json --keys KEYS` accepts it and any edit
 *   of a byte breaks it;
 * - report.html: the same, readable, with every scenario's chart (chart.ts).
 *
 * Exit 0 when every scenario passed and every mutant was killed, 1 otherwise (the report is written either way:
 * a failure is evidence too), 2 on bad input.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, hostname, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { canonicalize } from '../../core/canonical.js';
import { sha256Hex } from '../../core/hash.js';
import { type KeyFile, parseKeyFile } from '../../core/keys.js';
import { signDocument } from '../../core/signature.js';
import { toRfc3339Seconds } from '../../core/time.js';
import { CliError } from '../../platform/cli-error.js';
import { packageRoot } from '../../platform/paths.js';
import { readJsonFile } from '../cli/commands/documents-io.js';
import { loadHazards } from './hazards.js';
import { hilMutationRun } from './mutation.js';
import { reportHtml } from './report.js';
import { isHardwareRig, loadScenarios, runAll, totals } from './run-all.js';
import { safetyReportHtml } from './safety-report-html.js';
import { stageDir } from './staged.js';

export interface SafetyReportOptions {
  rig?: string;
  key: string;
  out: string;
}

function readKey(file: string): KeyFile {
  const json = readJsonFile(file, 'key file');
  try {
    return parseKeyFile(json);
  } catch (err) {
    throw new CliError(`${file} is not an Ed25519 key file as hearth keygen writes it: ${(err as Error).message}`);
  }
}

function hearthBuild(): { version: string; commit: string } {
  const root = packageRoot();
  const version = String((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown }).version ?? 'unknown');
  let commit = 'unknown (not run from a git checkout)';
  try {
    commit = execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['-C', root, 'status', '--porcelain', '--untracked-files=no'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    if (dirty.trim() !== '') commit += ' (with uncommitted changes)';
  } catch {
    // not a checkout, or no git: the version alone names the build
  }
  return { version, commit };
}

const load = () => loadavg().map((l) => Math.round(l * 100) / 100);

export async function safetyReportCommand(o: SafetyReportOptions): Promise<number> {
  const key = readKey(o.key);
  const hardware = isHardwareRig(o.rig);
  const rigBytes = o.rig !== undefined ? readFileSync(o.rig) : undefined;
  const hazards = loadHazards();
  const scenarios = loadScenarios([]);
  const staged = stageDir(o.out, 'report folder');
  try {
    const loadAtStart = load();
    const began = new Date();
    const say = (line: string) => process.stderr.write(`${line}\n`);
    const results = await runAll(scenarios, {
      ...(o.rig !== undefined ? { rigFile: o.rig } : {}),
      onResult: (r) => say(`${r.skipped ? 'skip' : r.ok ? 'pass' : 'FAIL'} ${r.name}${r.skipped ? ` (${r.skipped})` : ''}`),
    });
    const byName = new Map(results.map((r) => [r.name, r]));
    // The mutants run on the simulated rig: the report's own run is their base when it ran there too.
    const mutants = await hilMutationRun(scenarios, hardware ? undefined : (name) => byName.get(name)?.ok === true, (m) =>
      say(`${m.control} → ${m.scenario} → ${m.verdict}`),
    );
    const hil = new Set(scenarios.map((s) => s.name));
    const { passed, failed, skipped } = totals(results);
    const killed = mutants.filter((m) => m.verdict === 'killed').length;
    const limits = results.find((r, i) => r.obs?.limits && !scenarios[i]?.device?.limits)?.obs?.limits;
    const doc = {
      kind: 'SafetyReport',
      format: 'hearth.safety-report/1',
      hearth: hearthBuild(),
      date: began.toISOString(),
      finishedAt: new Date().toISOString(),
      machine: {
        hostname: hostname(),
        platform: process.platform,
        arch: process.arch,
        cpus: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}`,
        memoryMiB: Math.round(totalmem() / 2 ** 20),
        node: process.version,
        loadAverageAtStart: loadAtStart,
        loadAverageAtEnd: load(),
      },
      rig:
        o.rig !== undefined
          ? { file: resolve(o.rig), sha256: sha256Hex(rigBytes as Buffer), kind: hardware ? 'hardware' : 'simulated' }
          : { file: null, sha256: null, kind: 'simulated', note: "the simulated rig, with each scenario's options" },
      mutationRig: 'simulated: a safety control is never switched off with real heaters',
      limitsInForce: limits ?? null,
      hazards: hazards.map((h) => ({
        hazard: h.hazard,
        documentedBound: h.bound,
        proofs: h.controls.flatMap((control) =>
          h.scenarios.map((scenario) => {
            if (!hil.has(scenario))
              return {
                control,
                scenario,
                kind: 'process-level',
                result: 'not run here',
                killedByMutation: 'not run by hearth safety-report: a process-level scenario of the test suite (npm run hil:mutants)',
              };
            const r = byName.get(scenario);
            const m = mutants.find((x) => x.control === control && x.scenario === scenario);
            return {
              control,
              scenario,
              kind: 'hil',
              result: r?.skipped ? 'skip' : r?.ok ? 'pass' : 'FAIL',
              ...(r?.skipped ? { skipped: r.skipped } : {}),
              measured: (r?.bounds ?? []).map((b) => ({ check: b.check, bound: b.bound, measured: b.measured ?? null, ok: b.ok })),
              killedByMutation: m?.verdict ?? 'no mutant: the scenario does not name this control',
            };
          }),
        ),
      })),
      scenarios: results.map((r, i) => ({
        name: r.name,
        hardware: scenarios[i]?.hardware,
        controls: scenarios[i]?.controls ?? [],
        result: r.skipped ? 'skip' : r.ok ? 'pass' : 'FAIL',
        ...(r.skipped ? { skipped: r.skipped } : {}),
        failures: r.failures,
        bounds: (r.bounds ?? []).map((b) => ({ ...b, measured: b.measured ?? null })),
        figures: r.figures,
        wallMs: r.ms ?? 0,
        limits: r.obs?.limits ? { id: r.obs.limits.id ?? null, version: r.obs.limits.version ?? null } : null,
      })),
      mutation: {
        rows: mutants.map((m) => ({ control: m.control, scenario: m.scenario, verdict: m.verdict, why: m.why, ms: m.ms })),
        killed,
        survived: mutants.filter((m) => m.verdict === 'SURVIVED').length,
        failingWithEveryControlOn: mutants.filter((m) => m.verdict === 'FAILS WITH EVERY CONTROL ON').length,
      },
      summary: { passed, failed, skipped, mutants: mutants.length, killed },
    };
    // Through JSON once: drop undefined members and anything canonical JSON cannot carry.
    const plain = JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
    const signed = signDocument(plain, key, { kind: 'SafetyReport', signedAt: toRfc3339Seconds(new Date()) });
    writeFileSync(join(staged.path, 'report.json'), `${canonicalize(signed)}\n`);
    const pairs = results.map((r, i) => ({ result: r, scenario: scenarios[i] as (typeof scenarios)[number] }));
    writeFileSync(join(staged.path, 'report.html'), reportHtml(pairs, safetyReportHtml(signed)));
    staged.commit();
    say(`${passed} passed, ${failed} failed, ${skipped} skipped; ${killed} of ${mutants.length} mutants killed; report in ${o.out}`);
    return failed === 0 && killed === mutants.length ? 0 : 1;
  } finally {
    staged.discard();
  }
}
