/**
 * What a detector says when it trips. Each detector is one small pure module: it gets what it needs as plain
 * values (and, when it watches a trend, its own previous state) and returns a trip that explains itself: a
 * message saying what it saw and a hint saying what a person should check before resetting.
 */
export type DetectorReason =
  | 'over_limit'
  | 'stale_reading'
  | 'out_of_range_reading'
  | 'implausible_pair'
  | 'thermal_runaway'
  | 'heating_while_off'
  | 'sensor_fault'
  | 'frozen_reading'
  | 'full_power_near_target';

export interface DetectorTrip {
  reason: DetectorReason;
  /** The sensor, heater or limit the trip is about. */
  subject: string;
  message: string;
  hint: string;
  reading?: number;
  limit?: number;
}

export const fmt = (c: number): string => `${Math.round(c * 10) / 10} °C`;
