/**
 * `hearth start` configuration: command-line options over a config file (`--config FILE`, JSON or YAML) over
 * defaults. The file is validated against a JSON Schema; an error names the file, the JSON path and the reason
 * (the CLI turns it into one line and exit code 2). Relative paths in a file are relative to the file.
 * See docs/configuration.md.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { FaultSpec } from '../../drivers/sim/faults.js';
import { AllowList } from '../../platform/net/outbound.js';
import { type AjvRecipe, ajvFor, validatorOf } from '../../platform/prebuilt-validators.js';
import { type EventsConfig, eventsConfigSchema } from '../events/options.js';
import { parseFaultSpec } from './faults.js';
import { packageRoot } from './paths.js';

/** YAML support (about 70 modules) is loaded only when a YAML file is read; JSON files and defaults never pay for it. */
function parseYaml(text: string): unknown {
  return (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(text);
}

export type SimSpeed = number | 'manual';

/** Event transport keys (kitchenId, mqtt*) come from EventsConfig: runtime/events/options.ts, docs/events.md. */
export interface HearthConfig extends EventsConfig {
  /** Interface to listen on (default 127.0.0.1). */
  host: string;
  /** HTTP port (default 8080; 0 picks a free one). */
  httpPort: number;
  /** Where the SQLite store lives (default ./var). */
  dataDir: string;
  /** `simulated` (the demo fryer robot) or the path of a rig file (drivers/rig-config.ts). */
  rig: string;
  /** Folder of .svc.json recipes the device may cook. */
  recipes: string;
  /** Simulated clock speed-up, or `manual` (time moves only through POST /sim/v1/clock). */
  simSpeed: SimSpeed;
  /** The device's capabilities document. */
  device: string;
  /** The device's own SafetyLimits (they join the default pack; the strictest wins). */
  limits: string;
  /** Public base URL (problem types, links); default http://HOST:PORT. */
  publicUrl?: string;
  /** Log level of the JSON log on stderr (default info). */
  logLevel: 'silent' | 'fatal' | 'error' | 'warn' | 'info' | 'debug';
  /** Static indexes to sync recipes and recalls from (runtime/sync, docs/sync.md). */
  index?: string[];
  /** Key records whose signatures sync accepts (manifest, recalls); needed with `index`. */
  trust?: string;
  /** Seconds between scheduled syncs (default 900, ±10 % jitter). */
  syncInterval: number;
  /** Folder of market documents (Provider, OfferFeed) the hub searches and prices quotes from (docs/hub.md#market). */
  market?: string;
  /** Relief: `coordinator` makes this hub keep open needs, pledges and allocations (docs/hub.md#relief). */
  relief?: { coordinator?: boolean };
  /**
   * Host names and addresses the HTTP server answers to besides localhost, this machine's names and addresses
   * and the public URL's host (DNS-rebinding protection, platform/http/host-guard.ts); `*` turns the check off.
   */
  allowedHosts?: string[];
  /** Faults scheduled on the simulated rig (`--fault oil-open-at=60s`; runtime/config/faults.ts). */
  faults?: FaultSpec[];
  /**
   * Webhook and A2A push destinations opened beyond the default (public addresses only): addresses, networks
   * (`10.0.0.0/24`) and host names (platform/net/outbound.ts; `--webhooks-allow`).
   */
  webhooks?: { allow?: string[] };
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS = ['silent', 'fatal', 'error', 'warn', 'info', 'debug'];

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    host: { type: 'string', minLength: 1, maxLength: 255 },
    httpPort: { type: 'integer', minimum: 0, maximum: 65535 },
    dataDir: { type: 'string', minLength: 1 },
    rig: { type: 'string', minLength: 1 },
    recipes: { type: 'string', minLength: 1 },
    simSpeed: { anyOf: [{ type: 'number', exclusiveMinimum: 0, maximum: 10000 }, { const: 'manual' }] },
    device: { type: 'string', minLength: 1 },
    limits: { type: 'string', minLength: 1 },
    publicUrl: { type: 'string', pattern: '^https?://[^\\s/]+(/[^\\s]*)?$' },
    logLevel: { enum: LOG_LEVELS },
    index: { type: 'array', maxItems: 10, items: { type: 'string', pattern: '^https?://[^\\s]+$' } },
    trust: { type: 'string', minLength: 1 },
    market: { type: 'string', minLength: 1 },
    relief: { type: 'object', additionalProperties: false, properties: { coordinator: { type: 'boolean' } } },
    syncInterval: { type: 'integer', minimum: 1, maximum: 604800 },
    allowedHosts: {
      type: 'array',
      maxItems: 50,
      items: { type: 'string', pattern: '^(\\*|\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9][A-Za-z0-9.-]{0,252})$' },
    },
    faults: { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 120 } },
    webhooks: {
      type: 'object',
      additionalProperties: false,
      properties: { allow: { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 300 } } },
    },
    ...eventsConfigSchema,
  },
} as const;

const configRecipe: AjvRecipe = { options: { allErrors: true, strict: false }, formats: false };
let compiledConfig: ValidateFunction | undefined;
/** The configuration's validator: built ahead of time (platform/prebuilt-validators.ts), else compiled once. */
function configValidator(): ValidateFunction {
  compiledConfig ??= validatorOf(configRecipe, configSchema, () => ajvFor(configRecipe));
  return compiledConfig;
}

function describe(errors: ErrorObject[] | null | undefined): string {
  const e = errors?.find((x) => x.keyword !== 'anyOf') ?? errors?.[0];
  if (!e) return 'is invalid';
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties') return `/${String(params.additionalProperty)} is not a known option`;
  if (e.instancePath === '/syncInterval') return '/syncInterval must be a duration like 900, 30s, 15m or 1h (1 s to 7 days)';
  if (e.instancePath === '/kitchenId') return '/kitchenId must be 1-64 letters, digits, - or _ (it is an MQTT topic level)';
  if (e.instancePath === '/mqttUrl') return '/mqttUrl must be a broker URL like mqtt://host:1883 (mqtt, mqtts, ws or wss)';
  if (e.instancePath === '/bridgeUrl') return '/bridgeUrl must be a broker URL like mqtt://host:1883 (mqtt, mqtts, ws or wss)';
  if (e.instancePath.startsWith('/allowedHosts/'))
    return `${e.instancePath} must be a host name, an IPv4 address, an IPv6 address in brackets, or *`;
  if (e.instancePath === '/simSpeed') return '/simSpeed must be a number above 0 (at most 10000) or "manual"';
  const extra = e.keyword === 'enum' ? ` (${(params.allowedValues as string[]).join(', ')})` : '';
  return `${e.instancePath || '/'} ${e.message}${extra}`;
}

/** Defaults, with the package's example device, limits and recipes. */
export function defaultConfig(): HearthConfig {
  const root = packageRoot();
  return {
    host: '127.0.0.1',
    httpPort: 8080,
    dataDir: resolve('var'),
    rig: 'simulated',
    recipes: resolve(root, 'examples/recipes'),
    simSpeed: 1,
    device: resolve(root, 'examples/devices/demo-fryer-robot.json'),
    limits: resolve(root, 'examples/limits/demo-fryer.limits.json'),
    logLevel: 'info',
    syncInterval: 900,
  };
}

const PATH_KEYS = ['dataDir', 'recipes', 'device', 'limits', 'trust', 'market', 'bridgeCa', 'bridgeCert', 'bridgeKey'] as const;

/** Validate a parsed config document. `where` names it in errors; `baseDir` resolves relative paths. */
export function parseConfig(doc: unknown, where: string, baseDir: string): Partial<HearthConfig> {
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new ConfigError(`${where}: / must be an object of options`);
  const validate = configValidator();
  if (!validate(doc)) throw new ConfigError(`${where}: ${describe(validate.errors)}`);
  const out = { ...(doc as Partial<HearthConfig>) };
  for (const k of PATH_KEYS) if (out[k] !== undefined) out[k] = resolve(baseDir, out[k] as string);
  if (out.rig !== undefined && out.rig !== 'simulated') out.rig = resolve(baseDir, out.rig);
  const allow = out.webhooks?.allow;
  if (allow !== undefined) {
    try {
      new AllowList(allow);
    } catch (err) {
      const what = where === 'command line' ? '--webhooks-allow' : `${where}: /webhooks/allow`;
      throw new ConfigError(`${what}: ${(err as Error).message}`);
    }
  }
  if (out.faults !== undefined) {
    out.faults = (out.faults as unknown as string[]).map((spec, i) => {
      try {
        return parseFaultSpec(spec);
      } catch (err) {
        const what = where === 'command line' ? `--fault ${JSON.stringify(spec)}` : `${where}: /faults/${i} ${JSON.stringify(spec)}`;
        throw new ConfigError(`${what}: ${(err as Error).message}`);
      }
    });
  }
  return out;
}

/** Read a config file (JSON when it ends in .json, else YAML). */
export function loadConfigFile(path: string): Partial<HearthConfig> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`${path}: cannot read the config file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let doc: unknown;
  try {
    doc = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new ConfigError(`${path}: not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'} (${(err as Error).message.split('\n')[0]})`);
  }
  return parseConfig(doc, path, dirname(resolve(path)));
}

/** Raw command-line values (strings as commander gives them). */
export interface CliOptions {
  config?: string;
  host?: string;
  httpPort?: string;
  dataDir?: string;
  rig?: string;
  recipes?: string;
  simSpeed?: string;
  device?: string;
  limits?: string;
  publicUrl?: string;
  logLevel?: string;
  index?: string[];
  trust?: string;
  market?: string;
  /** `--relief-coordinator` (commander gives true). */
  reliefCoordinator?: boolean | string;
  syncInterval?: string;
  fault?: string[];
  kitchenId?: string;
  mqttPort?: string;
  mqttWsPort?: string;
  mqttUrl?: string;
  mqttUsername?: string;
  bridgeUrl?: string;
  bridgeUsername?: string;
  bridgePrefix?: string;
  bridgeCa?: string;
  bridgeCert?: string;
  bridgeKey?: string;
  bridgeQueue?: string;
  allowedHosts?: string;
  webhooksAllow?: string;
}

/** `900`, `30s`, `15m`, `1h` → seconds; anything else is returned as given (the schema then names it). */
export function durationSeconds(v: string): number | string {
  const m = /^([0-9]{1,7})(s|m|h)?$/.exec(v.trim());
  if (!m) return v;
  return Number(m[1]) * (m[2] === 'h' ? 3600 : m[2] === 'm' ? 60 : 1);
}

function cliValues(o: CliOptions): Record<string, unknown> {
  const v: Record<string, unknown> = {};
  if (o.host !== undefined) v.host = o.host;
  if (o.httpPort !== undefined) v.httpPort = /^[0-9]+$/.test(o.httpPort) ? Number(o.httpPort) : o.httpPort;
  if (o.simSpeed !== undefined)
    v.simSpeed = o.simSpeed === 'manual' ? 'manual' : /^[0-9]*\.?[0-9]+$/.test(o.simSpeed) ? Number(o.simSpeed) : o.simSpeed;
  for (const k of ['dataDir', 'rig', 'recipes', 'device', 'limits', 'publicUrl', 'logLevel', 'index', 'trust', 'market'] as const)
    if (o[k] !== undefined) v[k] = o[k];
  if (o.syncInterval !== undefined) v.syncInterval = durationSeconds(o.syncInterval);
  if (o.reliefCoordinator === true) v.relief = { coordinator: true };
  if (o.fault !== undefined) v.faults = o.fault;
  if (o.allowedHosts !== undefined)
    v.allowedHosts = o.allowedHosts
      .split(',')
      .map((h) => h.trim())
      .filter((h) => h !== '');
  if (o.webhooksAllow !== undefined)
    v.webhooks = {
      allow: o.webhooksAllow
        .split(',')
        .map((h) => h.trim())
        .filter((h) => h !== ''),
    };
  for (const k of ['mqttPort', 'mqttWsPort'] as const) if (o[k] !== undefined) v[k] = /^[0-9]+$/.test(o[k]) ? Number(o[k]) : o[k];
  for (const k of ['kitchenId', 'mqttUrl', 'mqttUsername'] as const) if (o[k] !== undefined) v[k] = o[k];
  for (const k of ['bridgeUrl', 'bridgeUsername', 'bridgePrefix', 'bridgeCa', 'bridgeCert', 'bridgeKey'] as const)
    if (o[k] !== undefined) v[k] = o[k];
  if (o.bridgeQueue !== undefined) v.bridgeQueue = /^[0-9]+$/.test(o.bridgeQueue) ? Number(o.bridgeQueue) : o.bridgeQueue;
  return v;
}

/** The effective configuration: command line over file over defaults. */
export function resolveConfig(o: CliOptions, cwd = process.cwd()): HearthConfig {
  const file = o.config ? loadConfigFile(resolve(cwd, o.config)) : {};
  let cli: Partial<HearthConfig>;
  try {
    cli = parseConfig(cliValues(o), 'command line', cwd);
  } catch (err) {
    // Name the option as it was typed: `/httpPort` → `--http-port`.
    const msg = (err as Error).message.replace(
      /^command line: \/([A-Za-z]+)/,
      (_m, k: string) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
    );
    throw new ConfigError(msg);
  }
  const merged: HearthConfig = { ...defaultConfig(), ...file, ...cli };
  if (isAbsolute(merged.dataDir) === false) merged.dataDir = resolve(cwd, merged.dataDir);
  return merged;
}
