/**
 * Heat without response (thermal runaway, after Klipper's verify_heater but by energy): the energy a heater
 * delivered over a window, less the losses the thermal model allows, must show up as a temperature rise of at
 * least `fraction` of what the model predicts. It runs at any power level (the window grows until enough
 * energy went in to expect `minExpectedC`) and at any distance from the target: there is no rest near the
 * target, where a sensor that fell out of the pot or a dead element would otherwise go unnoticed. Near a
 * physical plateau (water boiling) no rise is expected, so the check rests there.
 */
import { modelRateCPerS, type ThermalMass } from './thermal-model.js';
import { type DetectorTrip, fmt } from './types.js';

export interface RunawayParams {
  /** Shortest window (default 30 s). */
  windowMs: number;
  /** Longest window: without `minExpectedC` expected by then, start over (default 180 s). */
  maxWindowMs: number;
  /** Least model-predicted rise for a verdict (default 3 °C). */
  minExpectedC: number;
  /** Share of the predicted rise that must show (default 0.3). */
  fraction: number;
}

export const RUNAWAY_DEFAULTS: RunawayParams = { windowMs: 30_000, maxWindowMs: 180_000, minExpectedC: 3, fraction: 0.3 };

export interface RunawayState {
  since?: number;
  lastAt?: number;
  startC?: number;
  expectedC?: number;
  energyJ?: number;
}

export interface RunawayInput {
  heater: string;
  sensor: string;
  tempC: number;
  /** Commanded power fraction 0..1. */
  power: number;
  maxPowerW: number;
  thermal: ThermalMass;
  /** A temperature where the contents stop rising by nature (water boiling), if any. */
  plateauC?: number;
  now: number;
}

const fresh = (i: RunawayInput): RunawayState => ({ since: i.now, lastAt: i.now, startC: i.tempC, expectedC: 0, energyJ: 0 });

export function stepRunaway(
  state: RunawayState,
  i: RunawayInput,
  p: RunawayParams = RUNAWAY_DEFAULTS,
): { state: RunawayState; trip: DetectorTrip | null } {
  if (i.plateauC !== undefined && i.tempC >= i.plateauC) return { state: {}, trip: null };
  if (state.since === undefined || state.lastAt === undefined || state.startC === undefined) return { state: fresh(i), trip: null };
  const dtS = Math.max(0, i.now - state.lastAt) / 1000;
  const powerW = i.power * i.maxPowerW;
  const expectedC = (state.expectedC ?? 0) + modelRateCPerS(i.thermal, powerW, i.tempC) * dtS;
  const energyJ = (state.energyJ ?? 0) + powerW * dtS;
  const age = i.now - state.since;
  const next = { ...state, lastAt: i.now, expectedC, energyJ };
  if (age >= p.windowMs && expectedC >= p.minExpectedC) {
    const rose = i.tempC - state.startC;
    if (rose >= p.fraction * expectedC) return { state: fresh(i), trip: null };
    const avg = Math.round((energyJ / (age / 1000) / i.maxPowerW) * 100);
    return {
      state: {},
      trip: {
        reason: 'thermal_runaway',
        subject: i.heater,
        reading: i.tempC,
        message: `heater ${i.heater} delivered ${Math.round(energyJ / 1000)} kJ in ${Math.round(age / 1000)} s (average ${avg}%): ${i.sensor} should have risen about ${fmt(expectedC)} but rose ${fmt(rose)} (reads ${fmt(i.tempC)})`,
        hint: `Check that the ${i.sensor} sensor is in the contents (not hanging in air or frozen), that the heater element works, and that the vessel is not boiling dry, then reset.`,
      },
    };
  }
  if (age >= p.maxWindowMs) return { state: fresh(i), trip: null };
  return { state: next, trip: null };
}
