/** `hearth validate`, `dry-run` and `check-temperature`: the safety kernel on documents from files. */
import { dryRun } from '../../../safety/dry-run.js';
import { checkTemperature, thermalBand } from '../../../safety/envelope-check.js';
import { defaultSafetyLimits } from '../../../safety/limits.js';
import type { DryRunResult, PlanItem, SafetyLimits } from '../../../safety/types.js';
import { validateRecipe } from '../../../safety/validate-recipe.js';
import { type SchemaName, type ValidationOutcome, validate } from '../../../schemas/index.js';
import { getOp } from '../../../schemas/vocab.js';
import { CliError } from '../errors.js';
import { issueLine, json, print, readJsonFile, readJsonObject } from './documents-io.js';

/** Document types `hearth validate --as` accepts, and the validator of each. */
export const documentTypes: Record<string, SchemaName> = {
  recipe: 'recipe',
  capabilities: 'capabilities',
  'safety-limits': 'safetyLimits',
  'execute-request': 'executeRequest',
  'execution-status': 'executionStatus',
  'execution-log': 'executionLog',
  'dry-run-result': 'dryRunResult',
  'envelope-check-result': 'envelopeCheckResult',
  problem: 'problem',
  'validation-result': 'validationResult',
  'registry-entry': 'registryEntry',
  'directory-entry': 'directoryEntry',
  'conformance-report': 'conformanceReport',
};

const byKind: Record<string, string> = {
  SafetyLimits: 'safety-limits',
  ExecuteRequest: 'execute-request',
  ExecutionStatus: 'execution-status',
  ExecutionLog: 'execution-log',
  DirectoryEntry: 'directory-entry',
  ConformanceReport: 'conformance-report',
};

/** The document type of `doc`, from its `kind` or its shape; undefined when it cannot be told. */
export function detectType(doc: unknown): string | undefined {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return undefined;
  const d = doc as Record<string, unknown>;
  if (typeof d.kind === 'string' && byKind[d.kind]) return byKind[d.kind];
  if ('process' in d) return 'recipe';
  if ('capabilities' in d) return 'capabilities';
  if ('envelopeOk' in d) return 'envelope-check-result';
  if ('state' in d && 'plan' in d) return 'dry-run-result';
  if ('valid' in d && 'issues' in d) return 'validation-result';
  if (typeof d.kind === 'string' && 'url' in d) return 'registry-entry';
  if ('type' in d && 'title' in d) return 'problem';
  return undefined;
}

export function validateCommand(file: string, opts: { as?: string; json?: boolean }): number {
  const doc = readJsonFile(file, 'document');
  if (opts.as !== undefined && !documentTypes[opts.as])
    throw new CliError(`unknown document type ${opts.as}; one of ${Object.keys(documentTypes).join(', ')}`);
  const type = opts.as ?? detectType(doc);
  if (type === undefined)
    throw new CliError(`cannot tell what kind of document ${file} is; name it with --as (${Object.keys(documentTypes).join(', ')})`);
  const name = documentTypes[type] as SchemaName;
  const result: ValidationOutcome = name === 'recipe' ? validateRecipe(doc) : validate[name](doc);
  if (opts.json) {
    print(json(result));
  } else if (result.valid) {
    print(`valid ${type}: ${file}`);
  } else {
    print(`invalid ${type}: ${file} (${result.issues.length} issue${result.issues.length === 1 ? '' : 's'})`);
    const width = Math.min(48, Math.max(...result.issues.map((i) => (i.path || '/').length)));
    for (const i of result.issues) print(`  ${(i.path || '/').padEnd(width)}  ${i.code.padEnd(9)}  ${i.message}`);
  }
  return result.valid ? 0 : 1;
}

function readChecked(file: string, what: string, name: SchemaName): Record<string, unknown> {
  const doc = readJsonObject(file, what);
  const outcome = name === 'recipe' ? validateRecipe(doc) : validate[name](doc);
  // A recipe with semantic issues still gets a dry run: the dry run refuses it with its own reason.
  const blocking = outcome.issues.filter((i) => i.code === 'schema');
  if (blocking.length > 0) throw new CliError(issueLine(file, what, blocking));
  return doc;
}

function parseNow(now: string | undefined): Date {
  if (now === undefined) return new Date();
  const d = new Date(now);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(now) || Number.isNaN(d.getTime())) throw new CliError(`--now ${now} is not an RFC 3339 date-time`);
  return d;
}

function band(item: PlanItem): string {
  const b = thermalBand(item.op);
  if (!b) return '—';
  const top = item.maxC !== undefined && item.maxC < b.max ? item.maxC : b.max;
  return `${b.min}–${top} °C`;
}

function planTable(plan: readonly PlanItem[]): string[] {
  const rows = plan.map((p) => [
    p.node,
    p.op,
    band(p),
    p.targetC !== undefined ? `${p.targetC} °C` : '',
    p.by === 'human' ? 'person' : 'device',
    p.verifiedBy === 'sensor' ? `sensor ${p.rung ?? ''}`.trim() : p.verifiedBy,
  ]);
  const head = ['step', 'op', 'band', 'target', 'who', 'verified by'];
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] as string).length)));
  const line = (r: string[]) =>
    r
      .map((cell, c) => cell.padEnd(widths[c] as number))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)];
}

export function dryRunCommand(
  recipeFile: string,
  opts: { device: string; humanPresent?: boolean; model?: boolean; limits?: string; now?: string; json?: boolean },
): number {
  const recipe = readChecked(recipeFile, 'recipe', 'recipe');
  const capabilities = readChecked(opts.device, 'capabilities document', 'capabilities');
  const limits: SafetyLimits[] = [defaultSafetyLimits()];
  if (opts.limits !== undefined) limits.push(readChecked(opts.limits, 'SafetyLimits pack', 'safetyLimits') as unknown as SafetyLimits);
  const humanPresent = opts.humanPresent === true;
  const allowModel = opts.model !== false;
  const result: DryRunResult = dryRun({ recipe, capabilities, humanPresent, allowModel, limits, now: parseNow(opts.now) });
  if (opts.json) {
    print(json(result));
    return result.state === 'accepted' ? 0 : 1;
  }
  const actor = (capabilities.actor as { id?: unknown } | undefined)?.id;
  const who = `${humanPresent ? 'a person present' : 'nobody present'}${allowModel ? '' : ', no model estimates'}`;
  print(`recipe ${String(recipe.id)} on ${typeof actor === 'string' ? actor : opts.device} (${who})`);
  if (result.plan.length > 0) for (const l of planTable(result.plan)) print(`  ${l}`);
  if (result.state === 'accepted') {
    print(`accepted: ${result.plan.length} steps`);
    return 0;
  }
  const r = result.refusal;
  print(`refused: ${r?.reason} at ${r?.node || '(document)'}: ${r?.detail}`);
  return 1;
}

function num(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new CliError(`${flag} ${v} is not a number`);
  return n;
}

/** Readings from a trace file: an array of {t, tempC} or an object with `readings`. */
function readTrace(file: string): { t: number | string; tempC: number }[] {
  const raw = readJsonFile(file, 'trace');
  const list = Array.isArray(raw) ? raw : typeof raw === 'object' && raw !== null ? (raw as { readings?: unknown }).readings : undefined;
  if (!Array.isArray(list)) throw new CliError(`trace ${file} must hold an array of {t, tempC} readings or {"readings": [...]}`);
  list.forEach((r, i) => {
    const ok =
      typeof r === 'object' &&
      r !== null &&
      (typeof r.t === 'number' || typeof r.t === 'string') &&
      typeof r.tempC === 'number' &&
      Number.isFinite(r.tempC);
    if (!ok) throw new CliError(`trace ${file}: reading ${i} must be {t, tempC} with tempC a number (got ${JSON.stringify(r)})`);
  });
  return list as { t: number | string; tempC: number }[];
}

export function checkTemperatureCommand(opts: {
  op: string;
  trace: string;
  target?: string;
  tolerance?: string;
  altitude?: string;
  json?: boolean;
}): number {
  if (!getOp(opts.op)) throw new CliError(`unknown operation ${opts.op}`);
  const readings = readTrace(opts.trace);
  const value = num(opts.target, '--target');
  const tolerance = num(opts.tolerance, '--tolerance');
  if ((value === undefined) !== (tolerance === undefined)) throw new CliError('--target and --tolerance go together');
  if (tolerance !== undefined && tolerance < 0) throw new CliError('--tolerance must not be negative');
  const altitudeM = num(opts.altitude, '--altitude') ?? 0;
  const target = value !== undefined && tolerance !== undefined ? { value, tolerance } : undefined;
  const r = checkTemperature({ op: opts.op, readings, target, altitudeM });
  const ok = r.envelopeOk && r.targetOk !== false;
  if (opts.json) {
    print(json(r));
    return ok ? 0 : 1;
  }
  const b = thermalBand(opts.op, altitudeM);
  const bandText = b ? ` (band ${+b.min.toFixed(1)}–${+b.max.toFixed(1)} °C${altitudeM ? ` at ${altitudeM} m` : ''})` : '';
  const targetText = r.targetOk === null ? 'no target' : r.targetOk ? 'target met' : 'target missed';
  print(`${r.reason}: ${opts.op}${bandText}, envelope ${r.envelopeOk ? 'kept' : 'not kept'}, ${targetText}, ${readings.length} readings`);
  return ok ? 0 : 1;
}
