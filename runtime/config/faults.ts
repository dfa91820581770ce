/**
 * `hearth start --fault SPEC`: a fault scheduled on the simulated rig, so a newcomer can watch a trip. A spec
 * is `TARGET-KIND[-at=WHEN][,value=N]`: TARGET a sensor or heater id of the rig (oil, liquid, pan, fryer, pot),
 * KIND a fault (short names open, short, stuck, noisy, i2c, detached, welded, dead, serial, or the full names),
 * WHEN simulated time from start (`90s`, `2m`, `1h`, `500ms`, or bare seconds; default at once), N the
 * stuck value or the noise amplitude in °C. Examples: `oil-open-at=60s`, `fryer-welded-at=2m`,
 * `oil-stuck-at=5m,value=120`.
 */
import { FAULT_KINDS, type FaultKind, type FaultSpec } from '../../drivers/sim/faults.js';

const ALIASES: Record<string, FaultKind> = {
  open: 'open_circuit',
  'open-circuit': 'open_circuit',
  i2c: 'i2c_error',
  'i2c-error': 'i2c_error',
  welded: 'relay_welded',
  'relay-welded': 'relay_welded',
  dead: 'heater_dead',
  'heater-dead': 'heater_dead',
  serial: 'serial_lost',
  'serial-lost': 'serial_lost',
  ...Object.fromEntries(FAULT_KINDS.map((k) => [k, k])),
};

/** Longest names first, so `relay-welded` wins over `welded`. */
const NAMES = Object.keys(ALIASES).sort((a, b) => b.length - a.length);

export const FAULT_SPEC_HELP = 'TARGET-KIND[-at=WHEN][,value=N], e.g. oil-open-at=60s or fryer-welded-at=2m';

/** Milliseconds of `90s`, `2m`, `1h`, `500ms` or bare seconds; undefined when unreadable. */
function whenMs(v: string): number | undefined {
  const m = /^([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)?$/.exec(v);
  if (!m) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  const ms = Number(m[1]) * unit;
  return ms <= 7 * 24 * 3_600_000 ? ms : undefined;
}

/** Parse one spec; throws an Error whose message says what is wrong (the caller names the option). */
export function parseFaultSpec(spec: string): FaultSpec {
  let rest = spec.trim();
  let value: number | undefined;
  const v = /,value=(-?[0-9]+(?:\.[0-9]+)?)$/.exec(rest);
  if (v) {
    value = Number(v[1]);
    rest = rest.slice(0, v.index);
  } else if (rest.includes(',')) throw new Error(`after the fault only ",value=N" may follow (${FAULT_SPEC_HELP})`);
  let atMs: number | undefined;
  const at = /-at=([^-]*)$/.exec(rest);
  if (at) {
    atMs = whenMs(at[1] as string);
    if (atMs === undefined) throw new Error(`"${at[1]}" is not a time like 90s, 2m, 1h or 500ms (at most 7 days)`);
    rest = rest.slice(0, at.index);
  }
  const name = NAMES.find((n) => rest.endsWith(`-${n}`));
  if (!name) {
    const tail = rest.includes('-') ? rest.slice(rest.lastIndexOf('-') + 1) : rest;
    throw new Error(`unknown fault "${tail}" (known: open, short, stuck, noisy, i2c, detached, welded, dead, serial; ${FAULT_SPEC_HELP})`);
  }
  const target = rest.slice(0, rest.length - name.length - 1);
  if (!/^[a-z][a-z0-9_-]{0,31}$/.test(target)) throw new Error(`"${target}" is not a sensor or heater id (${FAULT_SPEC_HELP})`);
  return { kind: ALIASES[name] as FaultKind, target, ...(atMs !== undefined ? { atMs } : {}), ...(value !== undefined ? { value } : {}) };
}
