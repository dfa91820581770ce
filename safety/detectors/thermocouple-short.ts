/**
 * Thermocouple short, by plausibility. An MCP9600 (unlike the MCP9601) has no short-circuit bit: a shorted
 * thermocouple makes a new junction at the short, so the chip reads the temperature there — about its own
 * cold-junction (board) temperature — and reports nothing. When the thermal model says the contents must have
 * warmed by `minExpectedC` since the reading began to sit on the cold junction (within `toleranceC`) and it
 * is still there after `windowMs`, the probe is shorted (or it measures the board, not the pot).
 */
import { modelRateCPerS, type ThermalMass } from './thermal-model.js';
import { type DetectorTrip, fmt } from './types.js';

export interface ShortParams {
  windowMs: number;
  minExpectedC: number;
  toleranceC: number;
}

export const SHORT_DEFAULTS: ShortParams = { windowMs: 8_000, minExpectedC: 2, toleranceC: 0.5 };

export interface ShortState {
  since?: number;
  lastAt?: number;
  expectedC?: number;
}

export interface ShortInput {
  heater: string;
  sensor: string;
  tempC: number;
  /** The amplifier's own (cold-junction) temperature, when the sensor reports it. */
  coldJunctionC?: number;
  power: number;
  maxPowerW: number;
  thermal: ThermalMass;
  now: number;
}

export function stepShort(
  state: ShortState,
  i: ShortInput,
  p: ShortParams = SHORT_DEFAULTS,
): { state: ShortState; trip: DetectorTrip | null } {
  if (i.coldJunctionC === undefined || Math.abs(i.tempC - i.coldJunctionC) > p.toleranceC) return { state: {}, trip: null };
  if (state.since === undefined || state.lastAt === undefined) return { state: { since: i.now, lastAt: i.now, expectedC: 0 }, trip: null };
  const dtS = Math.max(0, i.now - state.lastAt) / 1000;
  const expectedC = (state.expectedC ?? 0) + modelRateCPerS(i.thermal, i.power * i.maxPowerW, i.tempC) * dtS;
  if (i.now - state.since < p.windowMs || expectedC < p.minExpectedC)
    return { state: { since: state.since, lastAt: i.now, expectedC }, trip: null };
  return {
    state: {},
    trip: {
      reason: 'sensor_fault',
      subject: i.sensor,
      reading: i.tempC,
      message: `sensor ${i.sensor}: thermocouple short suspected — it reads ${fmt(i.tempC)}, the amplifier's own temperature (${fmt(i.coldJunctionC)}), while heater ${i.heater} should have warmed the contents by about ${fmt(expectedC)}`,
      hint: 'Check the thermocouple wires for damaged insulation touching each other or the pot (this amplifier has no short-circuit bit), then reset.',
    },
  };
}
