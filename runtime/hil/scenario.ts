/**
 * Hardware-in-the-loop scenarios as data: one YAML (or JSON) file per scenario, validated against the JSON
 * Schema below. A scenario names the rig options, the recipe (derived from a project recipe or written
 * inline), the device's capabilities and limits, a timeline (presence, faults, stalls, heat requests, a
 * person's resume, reset or stop, a limit change, a recall arriving by sync) and the expected outcome with
 * timing bounds. See docs/hil.md.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { Ajv } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { FAULT_KINDS, type FaultKind } from '../../drivers/sim/faults.js';
import { packageRoot } from '../../platform/paths.js';

/** The package root (the repository, or the installed package): scenario paths are relative to it. */
export const repoDir = packageRoot();
/** The scenario data (scenarios/, limits/), shipped in the package. */
export const hilDir = join(repoDir, 'hil-tests');
export const scenarioDir = join(hilDir, 'scenarios');

/** `250ms`, `30s`, `2m`, `1h` or a number of ms. */
export type Duration = string | number;

export type At = Duration | { step: string; after?: Duration } | { label: string; after?: Duration };

export interface TimelineEntry {
  at: At;
  /** Names this moment for `noHeatBetween`, `stopWithin` and `heatOff` (also set: `start`, `fault`, `reset`, `final`). */
  label?: string;
  /** What a person does on a real rig instead (the runner prints it and waits for Enter). */
  manual?: string;
  presence?: boolean;
  fault?: { kind: FaultKind; target: string; value?: number };
  clearFaults?: true;
  temperature?: { sensor: string; tempC: number };
  heat?: { heater: string; power: number; op: string; medium?: string; targetC?: number; recipeMaxC?: number; renewMs?: Duration };
  /** Block the main thread for this long (real time): the watchdog must cut the outputs. */
  stall?: Duration;
  resume?: true;
  reset?: true;
  stop?: true;
  /** Propose a limits pack over HTTP (PUT /v1/safety-limits): path relative to hil-tests/, or inline. */
  proposeLimits?: string | Record<string, unknown>;
  /**
   * The index publishes a signed recall of the scenario's recipe revision and the device syncs
   * (POST /svc/v1/sync against a real index served on 127.0.0.1). Labels the moment `recall` once the sync answered.
   */
  recall?: { id?: string; action: 'block' | 'block_and_stop_running' | 'warn' };
}

export interface Expectation {
  state?: string;
  outcome?: string;
  refusal?: Record<string, unknown>;
  /** The first trip (null: none may happen). */
  trip?: Record<string, unknown> | null;
  /** Every heater off within `withinMs` of the moment `from` (default: the first fault), and off until `until` (default: a reset, else the end). */
  heatOff?: { from?: string; withinMs: number; heaters?: string[]; until?: string };
  /** The first trip within this simulated time of `from` (default the first fault). */
  tripWithin?: { from?: string; within: Duration };
  /** The execution reaches a final state within this simulated time of `from` (default the first fault). */
  stopWithin?: { from?: string; within: Duration };
  /** No heater on between two labelled moments (plus `graceMs` after the first). */
  noHeatBetween?: { from: string; to?: string; graceMs?: number }[];
  maxTempC?: Record<string, number>;
  /** Highest TRUE temperature of a vessel or sensor's vessel (the simulated rig's physics, not a reading). */
  trueMaxTempC?: Record<string, number>;
  status?: Record<string, unknown>;
  log?: Record<string, unknown>;
  safety?: Record<string, unknown>;
  bus?: Record<string, unknown>[];
  grants?: Record<string, unknown>[];
  http?: Record<string, unknown>[];
  /** Stall → every output physically off (as the rig's outputs carry it), within this many real ms. */
  watchdog?: { offWithinMs: number };
  /** From the first sample of `sensor` above `aboveC` to every heater off (device-clock ms). */
  crossing?: { sensor: string; aboveC: number; heatOffWithinMs: number };
  /** Issues validation reports on the scenario's recipe. */
  validation?: Record<string, unknown>[];
  /** GET /v1/safety-limits at the end. */
  limitsInForce?: Record<string, unknown>;
}

export interface Scenario {
  name: string;
  description: string;
  /** On a real rig: `safe`, `estop` (a person at the e-stop) or `simulated-only` (skipped there). */
  hardware: 'safe' | 'estop' | 'simulated-only';
  /**
   * The safety controls (safety/controls.ts) this scenario proves: `npm run hil:mutants` switches each off in
   * turn and requires the scenario to fail then.
   */
  controls?: string[];
  rig?: { seed?: number; ambientC?: number; altitudeM?: number; redundantOilSensor?: boolean };
  supervisor?: { watchdogStallMs?: number };
  device?: { capabilities?: string; limits?: string };
  recipe?: {
    id: string;
    from?: string;
    nodes?: string[] | Record<string, unknown>[];
  };
  presentAtStart?: boolean;
  timeline?: TimelineEntry[];
  /** Longest simulated run (default 30m); the run ends earlier once the execution is final and the timeline done. */
  runFor?: Duration;
  /** Keep running this long after the execution ended (to watch outputs stay off). */
  settle?: Duration;
  expect: Expectation;
  file: string;
}

const duration = {
  anyOf: [
    { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?(ms|s|m|h)$' },
    { type: 'number', minimum: 0 },
  ],
};
const label = { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,40}$' };
const obj = { type: 'object' };

export const scenarioSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'description', 'hardware', 'expect'],
  properties: {
    name: label,
    description: { type: 'string', minLength: 1 },
    hardware: { enum: ['safe', 'estop', 'simulated-only'] },
    controls: { type: 'array', minItems: 1, items: { type: 'string', pattern: '^[a-z][a-z0-9-]*$' } },
    rig: {
      type: 'object',
      additionalProperties: false,
      properties: {
        seed: { type: 'integer' },
        ambientC: { type: 'number' },
        altitudeM: { type: 'number' },
        redundantOilSensor: { type: 'boolean' },
      },
    },
    supervisor: { type: 'object', additionalProperties: false, properties: { watchdogStallMs: { type: 'integer', minimum: 50 } } },
    device: { type: 'object', additionalProperties: false, properties: { capabilities: { type: 'string' }, limits: { type: 'string' } } },
    recipe: {
      type: 'object',
      additionalProperties: false,
      required: ['id'],
      properties: {
        id: { type: 'string', minLength: 1 },
        from: { type: 'string' },
        nodes: { type: 'array', minItems: 1, items: { anyOf: [{ type: 'string' }, obj] } },
      },
    },
    presentAtStart: { type: 'boolean' },
    runFor: duration,
    settle: duration,
    timeline: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['at'],
        minProperties: 2,
        properties: {
          at: {
            anyOf: [
              duration,
              {
                type: 'object',
                additionalProperties: false,
                required: ['step'],
                properties: { step: { type: 'string' }, after: duration },
              },
              { type: 'object', additionalProperties: false, required: ['label'], properties: { label, after: duration } },
            ],
          },
          label,
          manual: { type: 'string' },
          presence: { type: 'boolean' },
          fault: {
            type: 'object',
            additionalProperties: false,
            required: ['kind', 'target'],
            properties: { kind: { enum: [...FAULT_KINDS] }, target: { type: 'string' }, value: { type: 'number' } },
          },
          clearFaults: { const: true },
          temperature: {
            type: 'object',
            additionalProperties: false,
            required: ['sensor', 'tempC'],
            properties: { sensor: { type: 'string' }, tempC: { type: 'number' } },
          },
          heat: {
            type: 'object',
            additionalProperties: false,
            required: ['heater', 'power', 'op'],
            properties: {
              heater: { type: 'string' },
              power: { type: 'number', minimum: 0, maximum: 1 },
              op: { type: 'string' },
              medium: { type: 'string' },
              targetC: { type: 'number' },
              recipeMaxC: { type: 'number' },
              renewMs: duration,
            },
          },
          stall: duration,
          resume: { const: true },
          reset: { const: true },
          stop: { const: true },
          proposeLimits: { anyOf: [{ type: 'string' }, obj] },
          recall: {
            type: 'object',
            additionalProperties: false,
            required: ['action'],
            properties: {
              id: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,60}$' },
              action: { enum: ['block', 'block_and_stop_running', 'warn'] },
            },
          },
        },
      },
    },
    expect: {
      type: 'object',
      additionalProperties: false,
      properties: {
        state: { type: 'string' },
        outcome: { type: 'string' },
        refusal: obj,
        trip: { anyOf: [obj, { type: 'null' }] },
        heatOff: {
          type: 'object',
          additionalProperties: false,
          required: ['withinMs'],
          properties: {
            from: label,
            until: label,
            withinMs: { type: 'number', minimum: 0 },
            heaters: { type: 'array', items: { type: 'string' } },
          },
        },
        tripWithin: { type: 'object', additionalProperties: false, required: ['within'], properties: { from: label, within: duration } },
        stopWithin: { type: 'object', additionalProperties: false, required: ['within'], properties: { from: label, within: duration } },
        noHeatBetween: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['from'],
            properties: { from: label, to: label, graceMs: { type: 'number', minimum: 0 } },
          },
        },
        maxTempC: { type: 'object', additionalProperties: { type: 'number' } },
        trueMaxTempC: { type: 'object', additionalProperties: { type: 'number' } },
        status: obj,
        log: obj,
        safety: obj,
        bus: { type: 'array', items: obj },
        grants: { type: 'array', items: obj },
        http: { type: 'array', items: obj },
        crossing: {
          type: 'object',
          additionalProperties: false,
          required: ['sensor', 'aboveC', 'heatOffWithinMs'],
          properties: { sensor: { type: 'string' }, aboveC: { type: 'number' }, heatOffWithinMs: { type: 'number', minimum: 0 } },
        },
        validation: { type: 'array', items: obj },
        limitsInForce: obj,
        watchdog: {
          type: 'object',
          additionalProperties: false,
          required: ['offWithinMs'],
          properties: { offWithinMs: { type: 'number', minimum: 0 } },
        },
      },
    },
  },
} as const;

const validate = new Ajv({ allErrors: false, strict: false }).compile(scenarioSchema);

export class ScenarioError extends Error {}

/** Milliseconds of a duration. */
export function ms(d: Duration | undefined, fallback = 0): number {
  if (d === undefined) return fallback;
  if (typeof d === 'number') return d;
  const m = /^([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)$/.exec(d);
  if (!m) throw new ScenarioError(`not a duration: ${JSON.stringify(d)} (use 250ms, 30s, 2m, 1h)`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
  return Number(m[1]) * unit;
}

/** Parse and validate one scenario document; `file` names it in errors. */
export function parseScenario(doc: unknown, file: string): Scenario {
  if (!validate(doc)) {
    const e = validate.errors?.[0];
    const extra =
      e?.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty: string }).additionalProperty)})` : '';
    throw new ScenarioError(`${file}: ${e?.instancePath || '/'} ${e?.message ?? 'is invalid'}${extra}`);
  }
  const s = { ...(doc as Omit<Scenario, 'file'>), file };
  for (const entry of s.timeline ?? []) {
    const actions = Object.keys(entry).filter((k) => !['at', 'label', 'manual'].includes(k));
    if (actions.length !== 1)
      throw new ScenarioError(`${file}: a timeline entry does exactly one thing, not ${actions.join(', ') || 'nothing'}`);
  }
  return s;
}

export function loadScenario(path: string): Scenario {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ScenarioError(`${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let doc: unknown;
  try {
    doc = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new ScenarioError(`${path}: not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'} (${(err as Error).message.split('\n')[0]})`);
  }
  return parseScenario(doc, path);
}

/** Every scenario file, sorted by name. */
export function scenarioFiles(dir = scenarioDir): string[] {
  return readdirSync(dir)
    .filter((n) => /\.(ya?ml|json)$/.test(n))
    .sort()
    .map((n) => join(dir, n));
}

/** Find scenarios by name or path. */
export function resolveScenario(arg: string): string {
  const names = scenarioFiles().map((f) => [basename(f).replace(/\.(ya?ml|json)$/, ''), f] as const);
  const byName = names.find(([n]) => n === arg);
  if (byName) return byName[1];
  if (existsSync(arg)) return resolve(arg);
  throw new ScenarioError(`no scenario "${arg}": neither a scenario name (${names.map(([n]) => n).join(', ')}) nor a file`);
}
