/**
 * Rig configuration: a JSON or YAML file validated against a JSON Schema at start-up, with errors that name
 * the file and the offending field. See docs/hardware.md.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { type AjvRecipe, ajvFor, validatorOf } from '../platform/prebuilt-validators.js';
import { FAULT_KINDS, type FaultSpec } from './sim/faults.js';

/** YAML support (about 70 modules) is loaded only when a YAML file is read; JSON files and defaults never pay for it. */
function parseYaml(text: string): unknown {
  return (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(text);
}

/**
 * A GPIO line: `line`, the SoC's GPIO number as Raspberry Pi pinout diagrams print it (GPIO17 is header pin
 * 11), on the header chip; or `chip` (a label or `/dev/gpiochipN`) and `offset`, a line of any other chip.
 * Never the kernel's sysfs number: drivers/buses/gpio-resolve.ts adds the chip's base at run time.
 */
export interface GpioLineConfig {
  line?: number;
  chip?: string;
  offset?: number;
  activeLow?: boolean;
}

export interface Mcp9600SensorConfig {
  id: string;
  driver: 'mcp9600';
  svcSensor: string;
  medium: string;
  bus: string;
  address: number;
  thermocouple?: 'K' | 'J' | 'T' | 'N' | 'S' | 'E' | 'B' | 'R';
  accuracyC?: number;
  rangeC?: { min: number; max: number };
}

interface HeaterBase {
  id: string;
  medium: string;
  maxPowerW: number;
  /** The device's own hard maximum for what this heater heats (°C); it joins the limit sets. Required. */
  maxC: number;
  /** Heat capacity of what it heats, contents plus vessel (J/K): the plausibility detectors check readings against it. Required. */
  heatCapacityJPerK: number;
  /** Heat lost to the room per kelvin above it (W/K); default: the most that still lets the heater reach maxC at full power. */
  lossWPerK?: number;
}

export interface GpioRelayHeaterConfig extends HeaterBase {
  driver: 'gpio_relay';
  sensors: string[];
  gpio: GpioLineConfig;
  /** Time-proportioning window for fractional power (ms, default 2000). */
  windowMs?: number;
}

export interface SerialApplianceHeaterConfig extends HeaterBase {
  driver: 'serial_appliance';
  path: string;
  baudRate?: number;
  /** The appliance's own temperature probe, exposed as a rig sensor. */
  sensor: { id: string; svcSensor: string; accuracyC?: number; rangeC?: { min: number; max: number } };
}

export interface HardwareRigConfig {
  kind: 'hardware';
  device?: string;
  sensors: Mcp9600SensorConfig[];
  heaters: Array<GpioRelayHeaterConfig | SerialApplianceHeaterConfig>;
  presence?: GpioLineConfig;
  estop?: GpioLineConfig;
  /** Where sysfs GPIO lives (default /sys/class/gpio); the watchdog worker writes line values there. */
  gpioSysfsRoot?: string;
  /** The chip `line:` numbers are on, by label or `/dev/gpiochipN` (default: the Pi's header chip, found by label). */
  chip?: string;
  /** The hardware watchdog device the heat guard feeds while leases are healthy (e.g. /dev/watchdog). */
  watchdogDevice?: string;
}

export interface SimulatedRigConfig {
  kind: 'simulated';
  device?: string;
  seed?: number;
  speed?: number;
  ambientC?: number;
  altitudeM?: number;
  redundantOilSensor?: boolean;
  /** `serial`: the pan's hob is a serial appliance (line protocol over serialport's mock binding). */
  hob?: 'ssr' | 'serial';
  /** The simulated relay boards are active-low: their wire is HIGH when off (exercises the polarity paths). */
  activeLowOutputs?: boolean;
  faults?: FaultSpec[];
  /**
   * How long (real ms) hearth may stall, or go unscheduled, with a simulated heater on before the loop watchdog
   * and the heat guard cut it: both thresholds at once (default: the watchdog's 700 ms, the guard's 600 ms lease).
   * For a test on a loaded machine that is not about those two (docs/safety.md); a hardware rig has no such key.
   */
  stallToleranceMs?: number;
}

export type RigConfig = SimulatedRigConfig | HardwareRigConfig;

const id = { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,31}$' };
const range = {
  type: 'object',
  additionalProperties: false,
  required: ['min', 'max'],
  properties: { min: { type: 'number' }, max: { type: 'number' } },
};
const chipName = { type: 'string', minLength: 1, maxLength: 64 };
const gpioLine = {
  type: 'object',
  additionalProperties: false,
  properties: {
    line: { type: 'integer', minimum: 0, maximum: 4095 },
    chip: chipName,
    offset: { type: 'integer', minimum: 0, maximum: 4095 },
    activeLow: { type: 'boolean' },
  },
  // A header number alone, or a chip and an offset on it.
  oneOf: [
    { required: ['line'], not: { anyOf: [{ required: ['chip'] }, { required: ['offset'] }] } },
    { required: ['chip', 'offset'], not: { required: ['line'] } },
  ],
};
const heaterBase = {
  id,
  medium: { type: 'string', minLength: 1 },
  maxPowerW: { type: 'number', exclusiveMinimum: 0 },
  maxC: { type: 'number' },
  heatCapacityJPerK: { type: 'number', exclusiveMinimum: 0 },
  lossWPerK: { type: 'number', exclusiveMinimum: 0 },
};

export const rigConfigSchema = {
  $id: 'https://hearth.invalid/schemas/rig-config.json',
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['kind'],
      properties: {
        kind: { const: 'simulated' },
        device: { type: 'string', minLength: 1 },
        seed: { type: 'integer' },
        speed: { type: 'number', exclusiveMinimum: 0, maximum: 10000 },
        ambientC: { type: 'number', minimum: -40, maximum: 60 },
        altitudeM: { type: 'number', minimum: -500, maximum: 9000 },
        redundantOilSensor: { type: 'boolean' },
        hob: { enum: ['ssr', 'serial'] },
        activeLowOutputs: { type: 'boolean' },
        stallToleranceMs: { type: 'integer', minimum: 100, maximum: 600_000 },
        faults: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['kind', 'target'],
            properties: {
              kind: { enum: [...FAULT_KINDS] },
              target: { type: 'string', minLength: 1 },
              atMs: { type: 'number', minimum: 0 },
              value: { type: 'number' },
            },
          },
        },
      },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'sensors', 'heaters'],
      properties: {
        kind: { const: 'hardware' },
        device: { type: 'string', minLength: 1 },
        gpioSysfsRoot: { type: 'string', minLength: 1 },
        chip: chipName,
        watchdogDevice: { type: 'string', pattern: '^/' },
        presence: gpioLine,
        estop: gpioLine,
        sensors: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['id', 'driver', 'svcSensor', 'medium', 'bus', 'address'],
            properties: {
              id,
              driver: { const: 'mcp9600' },
              svcSensor: { type: 'string', minLength: 1 },
              medium: { type: 'string', minLength: 1 },
              bus: { type: 'string', pattern: '^/dev/i2c-[0-9]+$' },
              address: { type: 'integer', minimum: 0x60, maximum: 0x67 },
              thermocouple: { enum: ['K', 'J', 'T', 'N', 'S', 'E', 'B', 'R'] },
              accuracyC: { type: 'number', exclusiveMinimum: 0 },
              rangeC: range,
            },
          },
        },
        heaters: {
          type: 'array',
          minItems: 1,
          items: {
            oneOf: [
              {
                type: 'object',
                additionalProperties: false,
                required: ['id', 'driver', 'medium', 'maxPowerW', 'maxC', 'heatCapacityJPerK', 'sensors', 'gpio'],
                properties: {
                  ...heaterBase,
                  driver: { const: 'gpio_relay' },
                  sensors: { type: 'array', minItems: 1, items: id },
                  gpio: gpioLine,
                  windowMs: { type: 'integer', minimum: 100, maximum: 60000 },
                },
              },
              {
                type: 'object',
                additionalProperties: false,
                required: ['id', 'driver', 'medium', 'maxPowerW', 'maxC', 'heatCapacityJPerK', 'path', 'sensor'],
                properties: {
                  ...heaterBase,
                  driver: { const: 'serial_appliance' },
                  path: { type: 'string', minLength: 1 },
                  baudRate: { type: 'integer', minimum: 1200 },
                  sensor: {
                    type: 'object',
                    additionalProperties: false,
                    required: ['id', 'svcSensor'],
                    properties: {
                      id,
                      svcSensor: { type: 'string', minLength: 1 },
                      accuracyC: { type: 'number', exclusiveMinimum: 0 },
                      rangeC: range,
                    },
                  },
                },
              },
            ],
          },
        },
      },
    },
  ],
} as const;

// Compiled on first use: the simulated rig (the default) never reads a rig file.
let compiled: ValidateFunction<RigConfig> | undefined;
const validator = (): ValidateFunction<RigConfig> => {
  const recipe: AjvRecipe = { options: { allErrors: true, strict: false }, formats: false };
  compiled ??= validatorOf<RigConfig>(recipe, rigConfigSchema, () => ajvFor(recipe));
  return compiled;
};

function describe(errors: ErrorObject[] | null | undefined, doc: unknown): string {
  const kind = (doc as { kind?: unknown } | null)?.kind;
  if (kind !== 'simulated' && kind !== 'hardware') return '/kind must be "simulated" or "hardware"';
  // oneOf reports the failures of every branch; show those of the branch the document chose.
  const branch = kind === 'simulated' ? '/oneOf/0/' : '/oneOf/1/';
  const relevant = (errors ?? []).filter((e) => e.schemaPath.startsWith(`#${branch}`) && e.keyword !== 'oneOf' && e.keyword !== 'const');
  const picked = relevant.length > 0 ? relevant : (errors ?? []);
  return picked
    .slice(0, 3)
    .map((e) => {
      const extra = e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : '';
      return `${e.instancePath || '/'} ${e.message}${extra}`;
    })
    .join('; ');
}

/** Validate a parsed rig configuration. Throws an Error whose message starts with `where`. */
export function parseRigConfig(doc: unknown, where = 'rig config'): RigConfig {
  requireHeaterSafety(doc, where);
  requireLineShape(doc, where);
  const validate = validator();
  if (!validate(doc)) throw new Error(`${where}: ${describe(validate.errors, doc)}`);
  if (doc.kind === 'hardware') {
    const sensorIds = new Set<string>();
    for (const s of doc.sensors) sensorIds.add(s.id);
    for (const h of doc.heaters) if (h.driver === 'serial_appliance') sensorIds.add(h.sensor.id);
    if (sensorIds.size !== doc.sensors.length + doc.heaters.filter((h) => h.driver === 'serial_appliance').length) {
      throw new Error(`${where}: sensor ids must be unique`);
    }
    for (const h of doc.heaters) {
      if (h.driver !== 'gpio_relay') continue;
      for (const s of h.sensors) if (!sensorIds.has(s)) throw new Error(`${where}: heater "${h.id}" names unknown sensor "${s}"`);
    }
  }
  return doc;
}

/**
 * Every heater output must name its maximum temperature and the thermal mass it heats: without them the
 * device cannot cut heat at its own limit nor tell a frozen or misplaced sensor. Checked before the schema so
 * the refusal says exactly this.
 */
function requireHeaterSafety(doc: unknown, where: string): void {
  const d = doc as { kind?: unknown; heaters?: unknown } | null;
  if (d?.kind !== 'hardware' || !Array.isArray(d.heaters)) return;
  d.heaters.forEach((h: unknown, i: number) => {
    if (typeof h !== 'object' || h === null) return;
    const heater = h as Record<string, unknown>;
    const name = typeof heater.id === 'string' ? `heater "${heater.id}"` : `heater ${i}`;
    if (typeof heater.maxC !== 'number' || !Number.isFinite(heater.maxC))
      throw new Error(
        `${where}: ${name} does not name its maximum temperature (maxC, °C): every heater output must, so heat is cut above it whatever a recipe or pack says`,
      );
    if (typeof heater.heatCapacityJPerK !== 'number' || !(heater.heatCapacityJPerK > 0))
      throw new Error(
        `${where}: ${name} does not name the heat capacity of what it heats (heatCapacityJPerK, J/K, contents plus vessel): the frozen-sensor and heat-response checks need it`,
      );
  });
}

/** A GPIO line is `line` (a header number) or `chip` and `offset`: said plainly, before the schema's oneOf would. */
function requireLineShape(doc: unknown, where: string): void {
  const d = doc as { kind?: unknown; heaters?: unknown; presence?: unknown; estop?: unknown } | null;
  if (d?.kind !== 'hardware') return;
  const lines: Array<[string, unknown]> = [
    ['presence', d.presence],
    ['estop', d.estop],
  ];
  if (Array.isArray(d.heaters))
    d.heaters.forEach((h: unknown, i: number) => {
      const heater = (typeof h === 'object' && h !== null ? h : {}) as Record<string, unknown>;
      if (heater.driver === 'gpio_relay') lines.push([`heater "${typeof heater.id === 'string' ? heater.id : i}" gpio`, heater.gpio]);
    });
  for (const [name, g] of lines) {
    if (typeof g !== 'object' || g === null) continue;
    const has = (k: string) => (g as Record<string, unknown>)[k] !== undefined;
    if (has('line') && (has('chip') || has('offset')))
      throw new Error(`${where}: ${name} names both line and chip/offset: use line (the header GPIO number, e.g. 17) or chip and offset`);
    if (!has('line') && !(has('chip') && has('offset')))
      throw new Error(`${where}: ${name} needs line (the header GPIO number, e.g. 17) or chip and offset (a line of another chip)`);
  }
}

/** Read a rig file (JSON or YAML) into a document, not yet validated. Errors name the path and the reason. */
export function readRigDocument(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`${path}: cannot read rig config (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let doc: unknown;
  try {
    doc = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new Error(`${path}: not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'} (${(err as Error).message.split('\n')[0]})`);
  }
  return doc;
}

/** Read a rig file (JSON or YAML) and validate it. Errors name the path and the reason. */
export function loadRigConfig(path: string): RigConfig {
  return parseRigConfig(readRigDocument(path), path);
}
