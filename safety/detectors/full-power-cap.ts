/**
 * Sustained full power near the target: a controller that keeps a heater at (almost) full power while the
 * reading is already within `nearC` of its target, or above it, for longer than `maxMs` is not regulating —
 * its reading is wrong or its control is broken — and the contents overshoot. A proportional controller
 * leaves full power a few degrees below the target, so a working one crosses that band in seconds.
 * Rests at a physical plateau (water boiling at full power is normal).
 */
import { type DetectorTrip, fmt } from './types.js';

export interface FullPowerParams {
  /** Power fraction counted as full (default 0.95). */
  fullPower: number;
  /** Within this many °C below the target, or above it, counts as near (default 5). */
  nearC: number;
  /** Longest full power near the target (default 45 s). */
  maxMs: number;
}

export const FULL_POWER_DEFAULTS: FullPowerParams = { fullPower: 0.95, nearC: 5, maxMs: 45_000 };

export interface FullPowerState {
  since?: number;
}

export interface FullPowerInput {
  heater: string;
  sensor: string;
  tempC: number;
  power: number;
  targetC?: number;
  plateauC?: number;
  now: number;
}

export function stepFullPower(
  state: FullPowerState,
  i: FullPowerInput,
  p: FullPowerParams = FULL_POWER_DEFAULTS,
): { state: FullPowerState; trip: DetectorTrip | null } {
  const atPlateau = i.plateauC !== undefined && i.tempC >= i.plateauC;
  const near = i.targetC !== undefined && i.tempC >= i.targetC - p.nearC;
  if (i.power < p.fullPower || !near || atPlateau) return { state: {}, trip: null };
  const since = state.since ?? i.now;
  if (i.now - since <= p.maxMs) return { state: { since }, trip: null };
  return {
    state: {},
    trip: {
      reason: 'full_power_near_target',
      subject: i.heater,
      reading: i.tempC,
      limit: i.targetC,
      message: `heater ${i.heater} stayed at ${Math.round(i.power * 100)}% for ${Math.round((i.now - since) / 1000)} s with ${i.sensor} at ${fmt(i.tempC)}, within ${fmt(p.nearC)} of its target ${fmt(i.targetC as number)} or above it`,
      hint: `Nothing regulates the ${i.heater}: check that the ${i.sensor} sensor reads the contents (not frozen, not out of the pot) and what asked for full power, then reset.`,
    },
  };
}
