/**
 * The operation vocabulary (schemas/vocab/ops.json) and the hob heat levels, loaded once on first use.
 * Heat levels are pan-surface bands; they come from schemas/vocab/units.json when that file carries them,
 * else from the small table schemas/vocab/heat-levels.json.
 */

import { dataPath, readData } from './data.js';
import type { Band, Envelope } from './envelope-types.js';

export interface OpEntry {
  id: string;
  label: string;
  family?: string;
  sensors?: string[];
  /** false: no device can claim the op (cw.op.legacy_step). */
  executable?: boolean;
  envelope?: Envelope;
}

let ops: Map<string, OpEntry> | undefined;
let heat: Map<string, Band> | undefined;

function loadOps(): Map<string, OpEntry> {
  if (ops) return ops;
  const doc = readData('vocab/ops.json') as { ops: OpEntry[] };
  ops = new Map(doc.ops.map((o) => [o.id, Object.freeze(o)]));
  return ops;
}

/** Every operation of the vocabulary, in file order. */
export function allOps(): OpEntry[] {
  return [...loadOps().values()];
}

export function getOp(id: string): OpEntry | undefined {
  return loadOps().get(id);
}

export function opEnvelope(id: string): Envelope | undefined {
  return loadOps().get(id)?.envelope;
}

/** True when the vocabulary marks the op as never executable by a device. */
export function isNonExecutable(id: string): boolean {
  return loadOps().get(id)?.executable === false;
}

function isBand(v: unknown): v is Band {
  if (typeof v !== 'object' || v === null) return false;
  const b = v as Record<string, unknown>;
  return typeof b.min === 'number' && typeof b.max === 'number' && Number.isFinite(b.min) && Number.isFinite(b.max) && b.min <= b.max;
}

/** Heat-level bands found in a units vocabulary: entries `cw.heat.<level>` carrying a surface band. */
export function heatLevelsFromUnits(doc: unknown): Map<string, Band> {
  const out = new Map<string, Band>();
  if (typeof doc !== 'object' || doc === null) return out;
  const d = doc as Record<string, unknown>;
  for (const value of Object.values(d)) {
    if (!Array.isArray(value)) continue;
    for (const e of value) {
      if (typeof e !== 'object' || e === null) continue;
      const entry = e as Record<string, unknown>;
      const m = typeof entry.id === 'string' ? /(?:^|\.)heat\.([a-z_]+)$/.exec(entry.id) : null;
      if (!m) continue;
      const band = entry.surfaceTempC ?? entry.tempC ?? entry.band;
      if (isBand(band)) out.set(m[1] as string, { min: band.min, max: band.max });
    }
  }
  const levels = d.heatLevels;
  if (typeof levels === 'object' && levels !== null) {
    for (const [k, v] of Object.entries(levels)) {
      const band = typeof v === 'object' && v !== null ? ((v as Record<string, unknown>).surfaceTempC ?? v) : undefined;
      if (isBand(band)) out.set(k, { min: band.min, max: band.max });
    }
  }
  return out;
}

function loadHeat(): Map<string, Band> {
  if (heat) return heat;
  let fromUnits = new Map<string, Band>();
  if (dataPath('vocab/units.json') !== undefined) {
    try {
      fromUnits = heatLevelsFromUnits(readData('vocab/units.json'));
    } catch {
      fromUnits = new Map();
    }
  }
  if (fromUnits.size > 0) {
    heat = fromUnits;
  } else {
    const table = readData('vocab/heat-levels.json') as { levels: Record<string, Band> };
    heat = new Map(Object.entries(table.levels));
  }
  return heat;
}

/** The pan-surface band of a heat level (`medium`, or `cw.heat.medium`), in °C. */
export function heatLevelBand(level: string): { min: number; max: number } | undefined {
  const key = level.startsWith('cw.heat.') ? level.slice('cw.heat.'.length) : level;
  const b = loadHeat().get(key);
  return b ? { min: b.min, max: b.max } : undefined;
}

/** The known heat level names. */
export function heatLevels(): string[] {
  return [...loadHeat().keys()];
}
