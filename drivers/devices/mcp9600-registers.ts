/**
 * MCP9600/MCP9601 thermocouple EMF-to-temperature converter: the register map and the scaling the driver and
 * the simulated chip share (Microchip datasheet DS20005426).
 */

export const MCP9600_REG = {
  /** Hot-junction (thermocouple) temperature TH, 16-bit two's complement, 0.0625 °C per LSB. */
  hotJunction: 0x00,
  /** Junction temperature delta TΔ. */
  delta: 0x01,
  /** Cold-junction (ambient, on-chip) temperature TC. */
  coldJunction: 0x02,
  /** Raw ADC data, 24 bits. */
  rawAdc: 0x03,
  /** Status: bit 7 burst complete, bit 6 TH updated, bit 5 short circuit (MCP9601), bit 4 open circuit / input range exceeded, bits 3..0 alerts. */
  status: 0x04,
  /** Thermocouple sensor configuration: bits 6..4 type (000 = K), bits 2..0 filter coefficient. */
  sensorConfig: 0x05,
  /** Device configuration: resolution, burst samples, shutdown mode. */
  deviceConfig: 0x06,
  /** Device ID (upper byte) and revision (lower byte). */
  deviceId: 0x20,
} as const;

export const MCP9600_STATUS = {
  burstComplete: 0x80,
  thUpdate: 0x40,
  shortCircuit: 0x20,
  openCircuit: 0x10,
} as const;

/** Device IDs in the upper byte of register 0x20. */
export const MCP9600_DEVICE_IDS: Record<number, string> = { 64: 'MCP9600', 65: 'MCP9601' };

export const THERMOCOUPLE_TYPES = ['K', 'J', 'T', 'N', 'S', 'E', 'B', 'R'] as const;
export type ThermocoupleType = (typeof THERMOCOUPLE_TYPES)[number];

/** Decode a TH/TC register pair: 0.0625 °C per LSB, two's complement. */
export function decodeTemperature(bytes: Buffer): number {
  return bytes.readInt16BE(0) * 0.0625;
}

/** Encode a temperature as the chip does (rounded to 0.0625 °C, saturated to 16 bits). */
export function encodeTemperature(tempC: number): Buffer {
  const raw = Math.max(-32768, Math.min(32767, Math.round(tempC / 0.0625)));
  const b = Buffer.alloc(2);
  b.writeInt16BE(raw, 0);
  return b;
}
