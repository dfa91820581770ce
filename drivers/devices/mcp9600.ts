/**
 * Temperature sensor on an MCP9600/MCP9601 thermocouple amplifier over I2C. `open()` probes the device ID
 * register, because opening a Linux I2C bus succeeds whether or not a chip is there. Every read checks the
 * status register first: an open or shorted thermocouple is reported as a fault, never as a temperature.
 * The MCP9600 has no short-circuit bit (the MCP9601 has): on it, each reading also carries the cold-junction
 * temperature, so the supervisor can tell a shorted probe by plausibility (it reads the board, not the pot),
 * and a converter pinned at full scale counts as an open probe whatever the status says.
 */
import type { I2cBus } from '../buses/i2c.js';
import type { Clock, SensorFault, TemperatureReading, TemperatureSensor } from '../types.js';
import {
  decodeTemperature,
  MCP9600_DEVICE_IDS,
  MCP9600_REG,
  MCP9600_STATUS,
  THERMOCOUPLE_TYPES,
  type ThermocoupleType,
} from './mcp9600-registers.js';

/** A hot-junction register this close to the 16-bit limit means the input floats (±2047 °C is no temperature). */
const FULL_SCALE_RAW = 32760;

export interface Mcp9600Options {
  id: string;
  svcSensor: string;
  medium: string;
  bus: I2cBus;
  address: number;
  clock: Clock;
  thermocouple?: ThermocoupleType;
  accuracyC?: number;
  rangeC?: { min: number; max: number };
}

export class Mcp9600Sensor implements TemperatureSensor {
  readonly id: string;
  readonly svcSensor: string;
  readonly medium: string;
  readonly accuracyC: number;
  readonly rangeC: { min: number; max: number };
  /**
   * One LSB (0.0625 °C): a living thermocouple's noise moves the reading by at least that within seconds, so
   * a reading that holds one code for a frozen-reading window while its pot must be changing is frozen.
   */
  readonly noiseFloorC = 0.0625;
  /** "MCP9600" or "MCP9601" once probed. */
  model?: string;

  constructor(private readonly o: Mcp9600Options) {
    this.id = o.id;
    this.svcSensor = o.svcSensor;
    this.medium = o.medium;
    // Type K with the MCP9600: ±1.5 °C from the chip plus the thermocouple's own tolerance.
    this.accuracyC = o.accuracyC ?? 2;
    this.rangeC = o.rangeC ?? { min: -20, max: 400 };
  }

  private where(): string {
    return `0x${this.o.address.toString(16)} on ${this.o.bus.path}`;
  }

  /** Probe the chip and configure the thermocouple type. Throws a clear error when the chip is absent. */
  async open(): Promise<void> {
    let idBytes: Buffer;
    try {
      idBytes = await this.o.bus.readRegister(this.o.address, MCP9600_REG.deviceId, 2);
    } catch (err) {
      throw new Error(`sensor "${this.id}": no MCP9600 answering at ${this.where()} (${(err as Error).message})`);
    }
    const model = MCP9600_DEVICE_IDS[idBytes[0] as number];
    if (!model) {
      throw new Error(
        `sensor "${this.id}": the chip at ${this.where()} is not an MCP9600 (device ID register reads 0x${idBytes.toString('hex')}, expected 0x40xx or 0x41xx)`,
      );
    }
    this.model = model;
    const type = THERMOCOUPLE_TYPES.indexOf(this.o.thermocouple ?? 'K');
    // Sensor configuration: thermocouple type in bits 6..4, filter coefficient 1 in bits 2..0.
    await this.o.bus.writeRegister(this.o.address, MCP9600_REG.sensorConfig, Buffer.from([(type << 4) | 0x01]));
  }

  async read(): Promise<TemperatureReading> {
    const at = this.o.clock.now();
    const fail = (fault: SensorFault, detail: string): TemperatureReading => ({ sensor: this.id, tempC: null, at, fault, detail });
    let status: number;
    let raw: Buffer;
    let cold: Buffer | undefined;
    try {
      status = (await this.o.bus.readRegister(this.o.address, MCP9600_REG.status, 1))[0] as number;
      raw = await this.o.bus.readRegister(this.o.address, MCP9600_REG.hotJunction, 2);
      if (this.model !== 'MCP9601') cold = await this.o.bus.readRegister(this.o.address, MCP9600_REG.coldJunction, 2);
    } catch (err) {
      return fail('bus_error', (err as Error).message);
    }
    if (status & MCP9600_STATUS.shortCircuit) return fail('short', `thermocouple shorted (status 0x${status.toString(16)})`);
    if (status & MCP9600_STATUS.openCircuit)
      return fail('open_circuit', `thermocouple open or input range exceeded (status 0x${status.toString(16)})`);
    const tempC = decodeTemperature(raw);
    if (!Number.isFinite(tempC)) return fail('non_numeric', `register 0x00 reads 0x${raw.toString('hex')}`);
    if (Math.abs(raw.readInt16BE(0)) >= FULL_SCALE_RAW)
      return fail('open_circuit', `thermocouple open: the converter reads full scale (0x${raw.toString('hex')}) — judged by plausibility`);
    if (tempC < this.rangeC.min || tempC > this.rangeC.max) {
      return {
        sensor: this.id,
        tempC: null,
        at,
        fault: 'out_of_range',
        detail: `${tempC} °C is outside ${this.rangeC.min}..${this.rangeC.max} °C`,
      };
    }
    return { sensor: this.id, tempC, at, ...(cold ? { coldJunctionC: decodeTemperature(cold) } : {}) };
  }
}
