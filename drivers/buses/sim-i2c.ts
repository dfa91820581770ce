/**
 * A simulated I2C bus: chips attach at 7-bit addresses and answer register reads and writes byte for byte, as
 * the real chips would. An address nobody answers at fails like Linux does (EREMOTEIO: no ACK).
 */
import { type I2cBus, I2cError } from './i2c.js';

export interface SimI2cChip {
  readRegister(reg: number, length: number): Buffer;
  writeRegister(reg: number, data: Buffer): void;
  /** When true the chip does not acknowledge (a loose wire, a bus glitch). */
  nack?(): boolean;
}

export class SimI2cBus implements I2cBus {
  private readonly chips = new Map<number, SimI2cChip>();
  private open = true;
  transfers = 0;

  constructor(readonly path = 'sim:i2c') {}

  attach(address: number, chip: SimI2cChip): void {
    this.chips.set(address, chip);
  }

  detach(address: number): void {
    this.chips.delete(address);
  }

  private chip(address: number): SimI2cChip {
    if (!this.open) throw new I2cError(`${this.path} is closed`, 'EBADF');
    this.transfers++;
    const chip = this.chips.get(address);
    if (!chip || chip.nack?.()) {
      throw new I2cError(`${this.path}: no ACK from 0x${address.toString(16)} (Remote I/O error)`, 'EREMOTEIO');
    }
    return chip;
  }

  async readRegister(address: number, reg: number, length: number): Promise<Buffer> {
    return this.chip(address).readRegister(reg, length);
  }

  async writeRegister(address: number, reg: number, data: Buffer): Promise<void> {
    this.chip(address).writeRegister(reg, data);
  }

  async close(): Promise<void> {
    this.open = false;
  }
}
