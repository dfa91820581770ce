/**
 * A register-level MCP9600 for the simulated I2C bus. What the thermocouple "sees" comes from a probe
 * function (the thermal model plus injected faults); the chip turns it into register bytes as the real one does.
 */
import type { SimI2cChip } from '../buses/sim-i2c.js';
import { encodeTemperature, MCP9600_REG, MCP9600_STATUS } from '../devices/mcp9600-registers.js';

export interface ProbeState {
  hotC: number;
  coldC: number;
  open?: boolean;
  short?: boolean;
  nack?: boolean;
}

export class SimMcp9600 implements SimI2cChip {
  readonly registers = new Map<number, number>();
  reads = 0;

  constructor(
    private readonly probe: () => ProbeState,
    private readonly deviceId = 0x40,
    private readonly revision = 0x11,
  ) {
    this.registers.set(MCP9600_REG.sensorConfig, 0x00);
    this.registers.set(MCP9600_REG.deviceConfig, 0x00);
  }

  nack(): boolean {
    return this.probe().nack === true;
  }

  readRegister(reg: number, length: number): Buffer {
    this.reads++;
    const p = this.probe();
    let bytes: Buffer;
    switch (reg) {
      case MCP9600_REG.hotJunction:
        // An open input floats: the converter shows a saturated value alongside the status bit.
        bytes = encodeTemperature(p.open ? 2047.9375 : p.short ? p.coldC : p.hotC);
        break;
      case MCP9600_REG.delta:
        bytes = encodeTemperature(p.hotC - p.coldC);
        break;
      case MCP9600_REG.coldJunction:
        bytes = encodeTemperature(p.coldC);
        break;
      case MCP9600_REG.status: {
        let s = MCP9600_STATUS.thUpdate;
        if (p.open) s |= MCP9600_STATUS.openCircuit;
        // Only the MCP9601 detects a short; an MCP9600 reads the short's own junction (its board) and says nothing.
        if (p.short && this.deviceId === 0x41) s |= MCP9600_STATUS.shortCircuit;
        bytes = Buffer.from([s]);
        break;
      }
      case MCP9600_REG.deviceId:
        bytes = Buffer.from([this.deviceId, this.revision]);
        break;
      default:
        bytes = Buffer.from([this.registers.get(reg) ?? 0]);
    }
    const out = Buffer.alloc(length);
    bytes.copy(out, 0, 0, Math.min(length, bytes.length));
    return out;
  }

  writeRegister(reg: number, data: Buffer): void {
    if (reg === MCP9600_REG.sensorConfig || reg === MCP9600_REG.deviceConfig) this.registers.set(reg, data[0] ?? 0);
  }
}
