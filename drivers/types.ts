/**
 * The hardware seam. Everything above drivers/ (the safety supervisor, the executor, the hub) talks to a
 * kitchen rig only through these interfaces, whether the rig is simulated or real (I2C, GPIO, serial).
 */

/** Injectable time source. Simulated rigs and tests use a manual or accelerated clock. */
export interface Clock {
  /** Milliseconds since the epoch (simulated time on a simulated clock). */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export type SensorFault =
  | 'open_circuit' // thermocouple open / sensor detached from the amplifier
  | 'short' // thermocouple shorted to ground or supply
  | 'bus_error' // I2C NACK, serial link lost, read failed
  | 'out_of_range' // value outside the sensor's physical range
  | 'non_numeric'; // NaN, Infinity, garbage bytes

/** One sample of a temperature sensor. `tempC` is null exactly when `fault` is set. */
export interface TemperatureReading {
  sensor: string; // the rig-local sensor id, e.g. "oil"
  tempC: number | null;
  at: number; // clock.now() when sampled
  fault?: SensorFault;
  detail?: string;
  /**
   * The amplifier's own (cold-junction) temperature, from sensors that cannot flag a shorted probe themselves
   * (an MCP9600 has no short-circuit bit): a probe that reads it while the pot is heated is shorted.
   */
  coldJunctionC?: number;
}

export interface TemperatureSensor {
  /** Rig-local id, e.g. "oil", "pan". */
  readonly id: string;
  /** The svc sensor id this channel provides, e.g. "cw.sense.oil_temp". */
  readonly svcSensor: string;
  /** The medium it measures, matching envelope media and SafetyLimits appliesTo.medium: "oil", "water", "pan_surface", … */
  readonly medium: string;
  /** Stated accuracy in °C (semantics §5 default 2). */
  readonly accuracyC: number;
  /** Physical range of the sensor; readings outside are faults. */
  readonly rangeC: { min: number; max: number };
  /** Smallest change a living sensor shows over a frozen-reading window, °C (default 0.1). */
  readonly noiseFloorC?: number;
  read(): Promise<TemperatureReading>;
}

/** A heater output (relay, SSR or a serial appliance's power setting). Power is a fraction 0..1. */
export interface HeaterOutput {
  readonly id: string;
  /** The medium this heater heats (used to pick limits and the sensors that watch it). */
  readonly medium: string;
  /** Ids of the sensors that watch what this heater heats, best first. */
  readonly sensors: readonly string[];
  readonly maxPowerW: number;
  /** Commanded power right now (0 when off). */
  readonly power: number;
  /** Drive the output. Only the safety supervisor calls this. */
  set(power: number): Promise<void>;
  /**
   * Force the output off. Must take effect synchronously where the hardware allows (GPIO write, queued serial
   * command) and never throw: it is the last line of defence.
   */
  off(): void;
}

/** What a heater heats, as a lumped thermal mass (see safety/detectors/thermal-model.ts). */
export interface HeaterThermal {
  heatCapacityJPerK: number;
  lossWPerK: number;
  ambientC: number;
}

export interface DigitalInput {
  readonly id: string;
  read(): Promise<boolean>;
  /** Subscribe to changes; returns an unsubscribe function. */
  watch(cb: (value: boolean) => void): () => void;
}

export interface Rig {
  readonly id: string;
  readonly clock: Clock;
  readonly sensors: ReadonlyMap<string, TemperatureSensor>;
  readonly heaters: ReadonlyMap<string, HeaterOutput>;
  /** Presence of a person at the appliance (sensed, never claimed by a client). */
  readonly presence?: DigitalInput;
  /** Thermal mass of what each heater heats (by heater id), from the rig configuration: the plausibility detectors use it. */
  readonly thermal?: ReadonlyMap<string, HeaterThermal>;
  /** The physical emergency-stop button (true = pressed). */
  readonly estop?: DigitalInput;
  /** Open buses and probe chips. Fails clearly when a configured device is absent. All heat is off after open. */
  open(): Promise<void>;
  /** Turn every heater off, synchronously. Never throws. */
  allHeatOff(): void;
  close(): Promise<void>;
}
