/**
 * Thermal runaway (after Klipper's verify_heater): while a heater is driven hard and the temperature is below
 * its target, the temperature must rise by `gainC` within `windowMs`, again and again. If it does not, the
 * heat is going somewhere else (sensor out of the pot, dead heater element, sensor reading the wrong thing).
 * Near a physical plateau (water boiling) no rise is expected, so the check rests there.
 */
import { type DetectorTrip, fmt } from './types.js';

export interface RunawayParams {
  /** Power fraction from which the heater counts as "heating" (default 0.5). */
  minPower: number;
  /** Required rise (°C) per window (default 2). */
  gainC: number;
  windowMs: number;
  /** Below target by more than this counts as "should be rising" (default 5 °C). */
  hysteresisC: number;
}

export const RUNAWAY_DEFAULTS: RunawayParams = { minPower: 0.5, gainC: 2, windowMs: 60_000, hysteresisC: 5 };

export interface RunawayState {
  goalC?: number;
  goalAt?: number;
}

export interface RunawayInput {
  heater: string;
  sensor: string;
  tempC: number;
  power: number;
  targetC?: number;
  /** A temperature where the contents stop rising by nature (water boiling), if any. */
  plateauC?: number;
  now: number;
}

export function stepRunaway(
  state: RunawayState,
  i: RunawayInput,
  p: RunawayParams = RUNAWAY_DEFAULTS,
): { state: RunawayState; trip: DetectorTrip | null } {
  const belowTarget = i.targetC === undefined || i.tempC < i.targetC - p.hysteresisC;
  const atPlateau = i.plateauC !== undefined && i.tempC >= i.plateauC;
  if (i.power < p.minPower || !belowTarget || atPlateau) return { state: {}, trip: null };
  if (state.goalC === undefined || state.goalAt === undefined || i.tempC >= state.goalC) {
    return { state: { goalC: i.tempC + p.gainC, goalAt: i.now + p.windowMs }, trip: null };
  }
  if (i.now <= state.goalAt) return { state, trip: null };
  return {
    state: {},
    trip: {
      reason: 'thermal_runaway',
      subject: i.heater,
      reading: i.tempC,
      message: `heater ${i.heater} at ${Math.round(i.power * 100)}% but ${i.sensor} did not reach ${fmt(state.goalC)} within ${Math.round(p.windowMs / 1000)} s (reads ${fmt(i.tempC)})`,
      hint: `Check that the ${i.sensor} sensor is in the contents (not hanging in air), that the heater element works, and that the vessel is not boiling dry, then reset.`,
    },
  };
}
