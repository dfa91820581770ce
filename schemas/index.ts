/**
 * The project's JSON Schemas (schemas/json/*.schema.json, draft 2020-12), compiled once with ajv and exposed as
 * typed validators. Each validator returns every issue with a JSON pointer to the offending member.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { dataPath, readData } from './data.js';

export interface ValidationIssue {
  code: string;
  /** JSON pointer (RFC 6901) of the member at fault; '' is the whole document. */
  path: string;
  message: string;
}

export interface ValidationOutcome {
  valid: boolean;
  issues: ValidationIssue[];
}

export const SCHEMA_BASE = 'https://schemas.hearth.dev/svc/0.2/';

/** Which schema (and `$defs` entry) each validator uses. */
const targets = {
  recipe: 'recipe.schema.json',
  capabilities: 'capabilities.schema.json',
  safetyLimits: 'safety-limits.schema.json',
  executeRequest: 'execution.schema.json#/$defs/ExecuteRequest',
  executionStatus: 'execution.schema.json#/$defs/ExecutionStatus',
  executionLog: 'execution.schema.json#/$defs/ExecutionLog',
  dryRunResult: 'results.schema.json#/$defs/DryRunResult',
  envelopeCheckResult: 'results.schema.json#/$defs/EnvelopeCheckResult',
  problem: 'results.schema.json#/$defs/Problem',
  validationResult: 'results.schema.json#/$defs/ValidationResult',
  registryEntry: 'registry.schema.json#/$defs/RegistryEntry',
  directoryEntry: 'registry.schema.json#/$defs/DirectoryEntry',
  conformanceReport: 'conformance-report.schema.json',
  adviceRequest: 'advice.schema.json#/$defs/AdviceRequest',
  adviceResponse: 'advice.schema.json#/$defs/AdviceResponse',
  provider: 'market.schema.json#/$defs/Provider',
  offer: 'market.schema.json#/$defs/Offer',
  offerFeed: 'market.schema.json#/$defs/OfferFeed',
  quoteRequest: 'market.schema.json#/$defs/QuoteRequest',
  quoteRequestRecord: 'market.schema.json#/$defs/QuoteRequestRecord',
  teamPlan: 'team-plan.schema.json',
  teamPlanBody: 'team-plan.schema.json#/$defs/Plan',
  session: 'session.schema.json#/$defs/Session',
  task: 'session.schema.json#/$defs/Task',
  reliefProgram: 'relief.schema.json#/$defs/Program',
  reliefNeed: 'relief.schema.json#/$defs/Need',
  reliefPledge: 'relief.schema.json#/$defs/Pledge',
  reliefAllocation: 'relief.schema.json#/$defs/Allocation',
  reliefImpact: 'relief.schema.json#/$defs/ImpactReport',
  reliefNeedRecord: 'relief.schema.json#/$defs/NeedRecord',
  reliefPledgeRecord: 'relief.schema.json#/$defs/PledgeRecord',
  reliefAllocationRecord: 'relief.schema.json#/$defs/AllocationRecord',
} as const;

export type SchemaName = keyof typeof targets;

let ajv: Ajv2020 | undefined;
const compiled = new Map<SchemaName, ValidateFunction>();

function instance(): Ajv2020 {
  if (ajv) return ajv;
  // ajv loads only here: with the validators compiled at build time (below) a process never needs it.
  const require = createRequire(import.meta.url);
  const { Ajv2020: AjvClass } = require('ajv/dist/2020.js') as { Ajv2020: new (o: object) => Ajv2020 };
  const a = new AjvClass({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
  // ajv-formats is CommonJS: its default export arrives either as the plugin or as a namespace holding it.
  const mod = require('ajv-formats') as { default?: unknown };
  const plugin = (typeof mod === 'function' ? mod : mod.default) as (ajv: Ajv2020) => Ajv2020;
  plugin(a);
  const dir = dataPath('json/common.schema.json');
  if (dir === undefined) throw new Error('schemas/json is missing');
  for (const f of readdirSync(dir.slice(0, -'common.schema.json'.length))) {
    if (f.endsWith('.schema.json')) a.addSchema(readData(`json/${f}`) as object);
  }
  ajv = a;
  return a;
}

/** Where `npm run build` writes the validators compiled ahead of time (scripts/build-validators.mjs). */
const PRECOMPILED_NAME = 'schemas-validators.cjs';
const places = (name: string) => [new URL(`../dist/${name}`, import.meta.url), new URL(`../${name}`, import.meta.url)];

/**
 * Validators the build also writes alone, each in a file of its own: a process that needs only these (a recipe
 * catalog's load) then compiles ~60 KiB of code instead of every schema's 1.3 MiB (~35 ms of a start).
 */
const SINGLE: Partial<Record<SchemaName, string>> = { recipe: 'schemas-validators-recipe.cjs' };

interface Precompiled {
  keys: Record<string, string>;
  sourceHash: string;
  [fn: string]: unknown;
}

/** The hash scripts/build-validators.mjs records: schema file names and bytes, in name order. */
export function schemaSourceHash(dir: string): string {
  const h = createHash('sha256');
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.schema.json'))
    .sort())
    h.update(`${f}\u0000${readFileSync(`${dir}/${f}`)}\u0000`);
  return h.digest('hex');
}

let currentHash: string | null | undefined;

/** `schemaSourceHash` of the schemas this process validates with (null when they cannot be found). */
export function schemasHash(): string | null {
  if (currentHash === undefined) {
    const common = dataPath('json/common.schema.json');
    currentHash = common === undefined ? null : schemaSourceHash(common.slice(0, -'common.schema.json'.length));
  }
  return currentHash;
}

/** The built file `name` when it was built from exactly these schemas; null otherwise. */
function builtFile(name: string): Precompiled | null {
  const file = places(name)
    .map((u) => fileURLToPath(u))
    .find((f) => existsSync(f));
  if (file === undefined) return null;
  const hash = schemasHash();
  if (hash === null) return null;
  try {
    const mod = createRequire(import.meta.url)(file) as Precompiled;
    return mod.sourceHash === hash ? mod : null;
  } catch {
    // A damaged or foreign file: compile at run time instead.
    return null;
  }
}

let precompiled: Precompiled | null | undefined;

/** The ahead-of-time validators, when built from exactly these schemas; null otherwise (then ajv compiles). */
export function precompiledValidators(): Precompiled | null {
  if (precompiled === undefined) precompiled = builtFile(PRECOMPILED_NAME);
  return precompiled;
}

/** The function `mod` holds for schema `name`, if any. */
function builtFunction(mod: Precompiled | null, name: SchemaName): ValidateFunction | undefined {
  const key = mod?.keys[targets[name]];
  const candidate = key !== undefined ? mod?.[key] : undefined;
  return typeof candidate === 'function' ? (candidate as ValidateFunction) : undefined;
}

/** The compiled validator of one schema: the precompiled one when current, else compiled on first use; kept. */
export function validatorFor(name: SchemaName): ValidateFunction {
  let fn = compiled.get(name);
  if (!fn) {
    const single = SINGLE[name];
    fn =
      (precompiled === undefined && single !== undefined ? builtFunction(builtFile(single), name) : undefined) ??
      builtFunction(precompiledValidators(), name);
    if (fn) {
      compiled.set(name, fn);
      return fn;
    }
    const a = instance();
    fn = a.getSchema(`${SCHEMA_BASE}${targets[name]}`);
    if (!fn) throw new Error(`schema ${targets[name]} not found`);
    compiled.set(name, fn);
  }
  return fn;
}

function escapePointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

function describe(e: ErrorObject): { path: string; message: string } {
  const at = e.instancePath;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { path: `${at}/${escapePointer(String(p.missingProperty))}`, message: `${String(p.missingProperty)} is required` };
    case 'additionalProperties':
      return { path: `${at}/${escapePointer(String(p.additionalProperty))}`, message: `unknown member ${String(p.additionalProperty)}` };
    case 'enum':
      return { path: at, message: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'const':
      return { path: at, message: `must be ${JSON.stringify(p.allowedValue)}` };
    default:
      return { path: at, message: e.message ?? `fails ${e.keyword}` };
  }
}

/** Turn ajv errors into issues: one per member and message, without the noise of combinator keywords. */
export function issuesFromErrors(errors: readonly ErrorObject[] | null | undefined, code = 'schema'): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const seen = new Set<string>();
  const push = (path: string, message: string) => {
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ code, path, message });
  };
  for (const e of errors ?? []) {
    if (e.keyword === 'if') continue;
    // The spec version may be written `svc` or, read leniently, `cookwala`: one issue, not three.
    if (e.schemaPath.startsWith('#/anyOf') && e.instancePath === '') {
      push('/svc', 'svc (the spec version) is required; cookwala is accepted in its place');
      continue;
    }
    const d = describe(e);
    push(d.path, d.message);
  }
  return out;
}

function run(name: SchemaName, doc: unknown): ValidationOutcome {
  const fn = validatorFor(name);
  if (fn(doc)) return { valid: true, issues: [] };
  return { valid: false, issues: issuesFromErrors(fn.errors) };
}

type Validators = { [K in SchemaName]: (doc: unknown) => ValidationOutcome };

export const validate: Validators = Object.fromEntries(
  (Object.keys(targets) as SchemaName[]).map((name) => [name, (doc: unknown) => run(name, doc)]),
) as Validators;

/** The names of every validator. */
export const schemaNames = Object.keys(targets) as SchemaName[];
