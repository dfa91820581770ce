/**
 * The lumped thermal model the plausibility detectors check readings against: one heat capacity, one heater,
 * Newtonian losses to ambient (C · dT/dt = P − k · (T − T_ambient)). The figures come from the rig
 * configuration (heatCapacityJPerK, lossWPerK per heater); they need not be exact, only close enough that a
 * living sensor in the heated contents moves the way the delivered energy says it must.
 */

export interface ThermalMass {
  /** Heat capacity of contents plus vessel, J/K. */
  heatCapacityJPerK: number;
  /** Loss coefficient to ambient, W/K. */
  lossWPerK: number;
  /** Ambient temperature the losses go to, °C. */
  ambientC: number;
}

/** Rate of change (°C per second) the model predicts at `tempC` with the heater delivering `powerW`. */
export function modelRateCPerS(m: ThermalMass, powerW: number, tempC: number): number {
  return (powerW - m.lossWPerK * (tempC - m.ambientC)) / m.heatCapacityJPerK;
}

/**
 * When the configuration gives no loss coefficient: the largest loss that still lets the heater reach its
 * maximum temperature at full power. Over-estimating losses only makes the detectors expect less rise, so this
 * default never causes a false trip that the true figure would not.
 */
export function defaultLossWPerK(maxPowerW: number, maxC: number, ambientC = 20): number {
  return maxPowerW / Math.max(1, maxC - ambientC);
}
