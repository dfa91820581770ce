/**
 * Lumped thermal models of the demo vessels: one heat capacity, one heater, Newtonian losses to ambient.
 *   C · dT/dt = P_heater − k · (T − T_ambient)
 * Water cannot pass its boiling point (100 °C minus altitude/300 m, as semantics §4 moves the water band): extra
 * energy goes into evaporation. Integration is explicit Euler with sub-steps of at most 250 ms of simulated
 * time, so the result does not depend on how often the model is asked.
 */

export interface VesselSpec {
  id: string;
  medium: string;
  /** Heat capacity of contents plus vessel, J/K. */
  heatCapacityJPerK: number;
  /** Loss coefficient to ambient, W/K. */
  lossWPerK: number;
  /** Nominal heater power, W. */
  heaterW: number;
  /** Highest temperature the contents can reach (boiling point of water), °C. */
  capC?: number;
}

/** The demo fryer robot's three vessels, with plausible household figures. */
export function demoVessels(altitudeM = 0): VesselSpec[] {
  return [
    // 3 L of oil (2.76 kg × 2.0 kJ/kg·K) in a steel pot: 20 → 180 °C in about 11 minutes at 2 kW.
    { id: 'oil_pot', medium: 'oil', heatCapacityJPerK: 6500, lossWPerK: 4, heaterW: 2000 },
    // 3 L of water (4.18 kJ/kg·K) in a steel pot; boils at 100 °C less 1 °C per 300 m.
    { id: 'water_pot', medium: 'water', heatCapacityJPerK: 13500, lossWPerK: 5, heaterW: 2500, capC: boilingPointC(altitudeM) },
    // A 1.2 kg pan on a 1.8 kW hob: reaches 200 °C within two minutes.
    { id: 'pan', medium: 'pan_surface', heatCapacityJPerK: 1000, lossWPerK: 6, heaterW: 1800 },
  ];
}

export function boilingPointC(altitudeM: number): number {
  return 100 - Math.max(0, altitudeM) / 300;
}

export class Vessel {
  tempC: number;

  constructor(
    readonly spec: VesselSpec,
    public ambientC: number,
  ) {
    this.tempC = ambientC;
  }

  /** Advance `dtMs` of simulated time with the heater delivering `powerW`. */
  step(dtMs: number, powerW: number): void {
    let left = Math.max(0, dtMs) / 1000;
    while (left > 0) {
      const dt = Math.min(left, 0.25);
      const dT = ((powerW - this.spec.lossWPerK * (this.tempC - this.ambientC)) * dt) / this.spec.heatCapacityJPerK;
      this.tempC += dT;
      if (this.spec.capC !== undefined && this.tempC > this.spec.capC) this.tempC = this.spec.capC;
      left -= dt;
    }
  }
}
