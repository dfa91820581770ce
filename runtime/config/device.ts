/**
 * The device's configuration: its capabilities document and its own SafetyLimits, joined by the default pack
 * from safety/. The strictest applicable limit always wins (safety/limits.ts); nothing received over any
 * interface can raise them.
 */
import { readFileSync } from 'node:fs';
import { parseJson } from '../../core/canonical.js';
import { documentHash } from '../../core/hash.js';
import { defaultSafetyLimits, mergeLimits } from '../../safety/limits.js';
import type { Capabilities, SafetyLimits } from '../../safety/types.js';
import { ConfigError } from './config.js';

export interface DeviceConfig {
  capabilities: Capabilities;
  capabilitiesHash: string;
  /** The device's own limits, then the default pack. */
  limitSets: SafetyLimits[];
  /** One SafetyLimits document of every limit in force (GET /v1/safety-limits). */
  limitsInForce: SafetyLimits & { disclaimer: string };
  vendor: string;
  model: string;
}

function readJsonFile(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`${path}: cannot read the ${what} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  try {
    return parseJson(text);
  } catch (err) {
    throw new ConfigError(`${path}: the ${what} is not valid JSON (${(err as Error).message})`);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function parseCapabilities(doc: unknown, where: string): Capabilities {
  if (!isObject(doc)) throw new ConfigError(`${where}: / must be a capabilities object`);
  if (!isObject(doc.capabilities)) throw new ConfigError(`${where}: /capabilities must be an object`);
  const ops = doc.capabilities.ops;
  if (!Array.isArray(ops)) throw new ConfigError(`${where}: /capabilities/ops must be an array`);
  ops.forEach((o, i) => {
    if (!isObject(o) || typeof o.op !== 'string') throw new ConfigError(`${where}: /capabilities/ops/${i}/op must be a string`);
  });
  const sensors = doc.capabilities.sensors;
  if (sensors !== undefined && !Array.isArray(sensors)) throw new ConfigError(`${where}: /capabilities/sensors must be an array`);
  return doc as unknown as Capabilities;
}

export function parseLimits(doc: unknown, where: string): SafetyLimits {
  if (!isObject(doc)) throw new ConfigError(`${where}: / must be a SafetyLimits object`);
  if (doc.kind !== undefined && doc.kind !== 'SafetyLimits') throw new ConfigError(`${where}: /kind must be "SafetyLimits"`);
  if (!Array.isArray(doc.limits)) throw new ConfigError(`${where}: /limits must be an array`);
  doc.limits.forEach((l, i) => {
    if (!isObject(l) || typeof l.id !== 'string' || typeof l.kind !== 'string')
      throw new ConfigError(`${where}: /limits/${i} needs a string id and kind`);
    for (const k of ['min', 'max'] as const) {
      if (l[k] !== undefined && (typeof l[k] !== 'number' || !Number.isFinite(l[k])))
        throw new ConfigError(`${where}: /limits/${i}/${k} must be a number`);
    }
  });
  return doc as unknown as SafetyLimits;
}

export function loadDevice(capabilitiesPath: string, limitsPath: string): DeviceConfig {
  const capabilities = parseCapabilities(readJsonFile(capabilitiesPath, 'capabilities document'), capabilitiesPath);
  const own = parseLimits(readJsonFile(limitsPath, 'device limits'), limitsPath);
  return deviceFrom(capabilities, own);
}

export function deviceFrom(capabilities: Capabilities, own: SafetyLimits): DeviceConfig {
  const limitSets = [own, defaultSafetyLimits()];
  const merged = mergeLimits(limitSets);
  const actor = isObject(capabilities.actor) ? capabilities.actor : {};
  return {
    capabilities,
    capabilitiesHash: documentHash(capabilities as unknown as Record<string, unknown>),
    limitSets,
    limitsInForce: {
      ...merged,
      core: '0.2.0',
      disclaimer:
        'Every limit listed is enforced on this device whatever a request says; where several apply to one quantity the strictest wins. No request, recipe or message can raise them.',
    },
    vendor: typeof actor.vendor === 'string' ? actor.vendor : 'unknown',
    model: typeof actor.model === 'string' ? actor.model : 'unknown',
  };
}
