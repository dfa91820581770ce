/**
 * Heating while off: the heater is commanded off, yet the temperature keeps climbing after the residual heat
 * has settled. The usual cause is a welded relay or a stuck SSR that the software cannot switch off.
 */
import { type DetectorTrip, fmt } from './types.js';

export interface WhileOffParams {
  /** Time after switching off during which rises are residual heat (default 30 s). */
  settleMs: number;
  /** Rise above the lowest settled reading that trips (default 5 °C). */
  riseC: number;
  /** Rises that stay below this temperature are ignored (food warming to room temperature). */
  ignoreBelowC: number;
}

export const WHILE_OFF_DEFAULTS: WhileOffParams = { settleMs: 30_000, riseC: 5, ignoreBelowC: 35 };

export interface WhileOffState {
  offSince?: number;
  lowestC?: number;
}

export interface WhileOffInput {
  heater: string;
  sensor: string;
  tempC: number;
  /** Commanded power (what the supervisor asked for). */
  power: number;
  now: number;
}

export function stepHeatingWhileOff(
  state: WhileOffState,
  i: WhileOffInput,
  p: WhileOffParams = WHILE_OFF_DEFAULTS,
): { state: WhileOffState; trip: DetectorTrip | null } {
  if (i.power > 0) return { state: {}, trip: null };
  const offSince = state.offSince ?? i.now;
  if (i.now - offSince < p.settleMs) return { state: { offSince }, trip: null };
  const lowestC = Math.min(state.lowestC ?? i.tempC, i.tempC);
  if (i.tempC > lowestC + p.riseC && i.tempC >= p.ignoreBelowC) {
    return {
      state: { offSince, lowestC },
      trip: {
        reason: 'heating_while_off',
        subject: i.heater,
        reading: i.tempC,
        message: `heater ${i.heater} is off but ${i.sensor} rose from ${fmt(lowestC)} to ${fmt(i.tempC)}`,
        hint: `The ${i.heater} relay may be welded on or the SSR stuck: switch the appliance off at the mains and have the relay checked before reset.`,
      },
    };
  }
  return { state: { offSince, lowestC }, trip: null };
}
