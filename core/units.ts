/**
 * Unit conversion and quantity checks against a units table (schemas/vocab/units.json). Core reads no files:
 * the caller passes the table in. Volume and mass convert into each other only with a density in g/ml.
 */

export interface UnitDef {
  dimension: string;
  /** How many base units of the dimension one of this unit is. */
  factor: number;
  /** `interval` scales (degC) never take a relative tolerance. */
  scale: 'ratio' | 'interval';
}

export interface UnitsTable {
  units: Record<string, UnitDef>;
  heatLevels: Record<string, { min: number; max: number }>;
}

/**
 * Why a conversion or a table cannot be used, as a machine-readable code: `needs_density` (mass↔volume with no
 * usable density), `incompatible_units` (different dimensions that never convert), `unknown_unit`,
 * `invalid_value` (not a finite number), `invalid_table` (a units file that does not parse).
 */
export type UnitErrorCode = 'needs_density' | 'incompatible_units' | 'unknown_unit' | 'invalid_value' | 'invalid_table';

export class UnitError extends Error {
  readonly code: UnitErrorCode;
  constructor(message: string, code: UnitErrorCode) {
    super(message);
    this.name = 'UnitError';
    this.code = code;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Check and index a parsed units file. Throws UnitError saying what is wrong. */
export function parseUnitsTable(json: unknown): UnitsTable {
  if (!isObject(json) || !isObject(json.units)) throw new UnitError('units table: "units" must be an object', 'invalid_table');
  const units: Record<string, UnitDef> = {};
  for (const [id, def] of Object.entries(json.units)) {
    if (
      !isObject(def) ||
      typeof def.dimension !== 'string' ||
      typeof def.factor !== 'number' ||
      !(def.factor > 0) ||
      !Number.isFinite(def.factor)
    ) {
      throw new UnitError(`units table: unit ${JSON.stringify(id)} needs a dimension and a positive factor`, 'invalid_table');
    }
    if (def.scale !== 'ratio' && def.scale !== 'interval')
      throw new UnitError(`units table: unit ${JSON.stringify(id)} needs scale ratio or interval`, 'invalid_table');
    units[id] = { dimension: def.dimension, factor: def.factor, scale: def.scale };
  }
  const heatLevels: Record<string, { min: number; max: number }> = {};
  if (json.heatLevels !== undefined) {
    if (!isObject(json.heatLevels)) throw new UnitError('units table: "heatLevels" must be an object', 'invalid_table');
    for (const [level, v] of Object.entries(json.heatLevels)) {
      const band = isObject(v) && isObject(v.surfaceTempC) ? v.surfaceTempC : v;
      if (!isObject(band) || typeof band.min !== 'number' || typeof band.max !== 'number' || !(band.min <= band.max)) {
        throw new UnitError(`units table: heat level ${JSON.stringify(level)} needs a band {min, max}`, 'invalid_table');
      }
      heatLevels[level] = { min: band.min, max: band.max };
    }
  }
  return { units, heatLevels };
}

/** A unit id as written (`tbsp`) or as a vocabulary id (`cw.unit.tbsp`). */
export function unitId(unit: string): string {
  return unit.startsWith('cw.unit.') ? unit.slice('cw.unit.'.length) : unit;
}

function lookup(table: UnitsTable, unit: unknown): UnitDef {
  if (typeof unit !== 'string') throw new UnitError('unit must be a string', 'unknown_unit');
  const def = Object.hasOwn(table.units, unitId(unit)) ? table.units[unitId(unit)] : undefined;
  if (!def) throw new UnitError(`unknown unit ${JSON.stringify(unit)}`, 'unknown_unit');
  return def;
}

/** Cut binary floating-point noise (240 × 0.53 = 127.20000000000002) to twelve significant digits. */
export function roundQuantity(x: number): number {
  return x === 0 ? 0 : Number(x.toPrecision(12));
}

/**
 * Convert `value` from `from` to `to`. Mass and volume convert through `densityGPerMl`; temperatures only
 * convert to themselves (degC is the only temperature unit on the wire). Throws UnitError (with its `code`) on
 * anything else; it never guesses a density.
 */
export function convert(value: number, from: string, to: string, table: UnitsTable, opts: { densityGPerMl?: number } = {}): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new UnitError('value must be a finite number', 'invalid_value');
  const a = lookup(table, from);
  const b = lookup(table, to);
  let base = value * a.factor;
  if (a.dimension !== b.dimension) {
    const d = opts.densityGPerMl;
    const pair = `${a.dimension}->${b.dimension}`;
    if (pair !== 'volume->mass' && pair !== 'mass->volume')
      throw new UnitError(`cannot convert ${from} (${a.dimension}) to ${to} (${b.dimension})`, 'incompatible_units');
    if (typeof d !== 'number' || !Number.isFinite(d) || d <= 0)
      throw new UnitError(`converting ${from} to ${to} needs a positive density in g/ml`, 'needs_density');
    base = pair === 'volume->mass' ? base * d : base / d;
  }
  return roundQuantity(base / b.factor);
}

/** The pan-surface band of a heat level (`medium` or `cw.heat.medium`), or undefined. */
export function heatBand(level: string, table: UnitsTable): { min: number; max: number } | undefined {
  const key = level.startsWith('cw.heat.') ? level.slice('cw.heat.'.length) : level;
  return Object.hasOwn(table.heatLevels, key) ? table.heatLevels[key] : undefined;
}

const QUANTITY_MEMBERS = new Set(['value', 'unit', 'tolerance', 'toleranceAbs', 'pieces', 'massPerPiece', 'densityGPerMl']);

function nonNegative(v: unknown): boolean {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0;
}

/**
 * Problems with a Quantity `{value, unit, tolerance?, toleranceAbs?, pieces?, massPerPiece?, densityGPerMl?}`,
 * as `<pointer>: <message>` strings; empty when valid. A relative `tolerance` (0–1) is only for ratio-scale
 * units, never for degC (use `toleranceAbs`); the two never appear together; unknown members other than `x-*`
 * are refused.
 */
export function checkQuantity(q: unknown, table: UnitsTable, path = ''): string[] {
  const issues: string[] = [];
  if (!isObject(q)) return [`${path || '/'}: a quantity must be an object`];
  if (!nonNegative(q.value)) issues.push(`${path}/value: must be a number ≥ 0`);
  let def: UnitDef | undefined;
  if (typeof q.unit !== 'string' || !Object.hasOwn(table.units, q.unit))
    issues.push(`${path}/unit: unknown unit ${JSON.stringify(q.unit)}`);
  else def = table.units[q.unit];
  if (q.tolerance !== undefined) {
    if (!nonNegative(q.tolerance) || (q.tolerance as number) > 1)
      issues.push(`${path}/tolerance: must be a relative tolerance between 0 and 1`);
    if (def && def.scale !== 'ratio') issues.push(`${path}/tolerance: ${String(q.unit)} is an interval scale; use toleranceAbs`);
    if (q.toleranceAbs !== undefined) issues.push(`${path}: give tolerance or toleranceAbs, not both`);
  }
  if (q.toleranceAbs !== undefined && !nonNegative(q.toleranceAbs)) issues.push(`${path}/toleranceAbs: must be a number ≥ 0`);
  if (q.pieces !== undefined && !nonNegative(q.pieces)) issues.push(`${path}/pieces: must be a number ≥ 0`);
  if (q.densityGPerMl !== undefined && !(nonNegative(q.densityGPerMl) && (q.densityGPerMl as number) > 0)) {
    issues.push(`${path}/densityGPerMl: must be a number > 0`);
  }
  if (q.massPerPiece !== undefined) issues.push(...checkQuantity(q.massPerPiece, table, `${path}/massPerPiece`));
  for (const key of Object.keys(q)) {
    if (!QUANTITY_MEMBERS.has(key) && !key.startsWith('x-')) issues.push(`${path}/${key}: unknown member`);
  }
  return issues;
}
