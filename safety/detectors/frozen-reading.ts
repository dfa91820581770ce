/**
 * Frozen reading: the reading has not moved beyond the sensor's noise floor for at least `windowMs`, while the
 * thermal model says the contents must have moved (heat is applied, or they cool from well above ambient) by
 * at least `minExpectedC` in that time. A living thermocouple in heated oil moves; a converter returning its last value, a
 * cached register or a probe stuck at a value does not. Catches a frozen reading at any distance from the
 * target, also one frozen just below it (where a controller keeps full power on) — Klipper's verify_heater
 * misses that one.
 */
import { modelRateCPerS, type ThermalMass } from './thermal-model.js';
import { type DetectorTrip, fmt } from './types.js';

export interface FrozenParams {
  /** Shortest time without movement before a verdict (default 10 s); it runs on until `minExpectedC` is expected. */
  windowMs: number;
  /** Least model-predicted change over the window for the check to apply (default 2 °C). */
  minExpectedC: number;
}

export const FROZEN_DEFAULTS: FrozenParams = { windowMs: 10_000, minExpectedC: 2 };

export interface FrozenState {
  since?: number;
  lastAt?: number;
  minC?: number;
  maxC?: number;
  /** Signed model-predicted change accumulated since `since`. */
  expectedC?: number;
}

export interface FrozenInput {
  heater: string;
  sensor: string;
  tempC: number;
  /** Commanded power fraction 0..1. */
  power: number;
  maxPowerW: number;
  thermal: ThermalMass;
  /** Smallest change a living sensor shows (°C). */
  noiseFloorC: number;
  now: number;
}

export function stepFrozen(
  state: FrozenState,
  i: FrozenInput,
  p: FrozenParams = FROZEN_DEFAULTS,
): { state: FrozenState; trip: DetectorTrip | null } {
  const restart = { state: { since: i.now, lastAt: i.now, minC: i.tempC, maxC: i.tempC, expectedC: 0 }, trip: null };
  if (state.since === undefined || state.lastAt === undefined) return restart;
  const minC = Math.min(state.minC ?? i.tempC, i.tempC);
  const maxC = Math.max(state.maxC ?? i.tempC, i.tempC);
  const spread = maxC - minC;
  // The sensor moved: it is alive. Watch again from here.
  if (spread >= i.noiseFloorC) return restart;
  const dtS = Math.max(0, i.now - state.lastAt) / 1000;
  const expectedC = (state.expectedC ?? 0) + modelRateCPerS(i.thermal, i.power * i.maxPowerW, i.tempC) * dtS;
  const age = i.now - state.since;
  if (age < p.windowMs || Math.abs(expectedC) < p.minExpectedC)
    return { state: { since: state.since, lastAt: i.now, minC, maxC, expectedC }, trip: null };
  const dir = expectedC > 0 ? 'rise' : 'fall';
  return {
    state: {},
    trip: {
      reason: 'frozen_reading',
      subject: i.sensor,
      reading: i.tempC,
      message: `sensor ${i.sensor} stayed at ${fmt(i.tempC)} (moved ${fmt(spread)}) for ${Math.round(age / 1000)} s while heater ${i.heater} (now at ${Math.round(i.power * 100)}%) should have made it ${dir} by about ${fmt(Math.abs(expectedC))}`,
      hint: `The ${i.sensor} reading is frozen: check the thermocouple and its amplifier (a converter returning its last value, a loose probe) before reset; the contents may be hotter than it says.`,
    },
  };
}
