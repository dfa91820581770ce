/**
 * The I2C seam: register reads and writes on one bus. The Linux backend (the optional `i2c-bus` package) is
 * imported only when a configuration names an I2C bus, so machines without it never load it. The simulated
 * backend (sim-i2c.ts) implements the same interface with register-level chips.
 */

export interface I2cBus {
  /** e.g. "/dev/i2c-1", or "sim:i2c" for the simulated bus. */
  readonly path: string;
  /** Write the register pointer `reg`, then read `length` bytes (an SMBus I2C block read). */
  readRegister(address: number, reg: number, length: number): Promise<Buffer>;
  writeRegister(address: number, reg: number, data: Buffer): Promise<void>;
  close(): Promise<void>;
}

/** An I2C transfer failed: no ACK from the address, bus error, or the bus could not be opened. */
export class I2cError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'I2cError';
  }
}

/** The parts of i2c-bus's promisified bus we use (the package ships no types). */
interface PromisifiedI2c {
  readI2cBlock(addr: number, cmd: number, length: number, buf: Buffer): Promise<{ bytesRead: number; buffer: Buffer }>;
  writeI2cBlock(addr: number, cmd: number, length: number, buf: Buffer): Promise<{ bytesWritten: number; buffer: Buffer }>;
  close(): Promise<void>;
}

/** Bus number from a device path: "/dev/i2c-1" → 1. */
export function i2cBusNumber(path: string): number {
  const m = /^\/dev\/i2c-(\d+)$/.exec(path);
  if (!m) throw new I2cError(`I2C bus path must look like /dev/i2c-<n>, got "${path}"`, 'EINVAL');
  return Number(m[1]);
}

/** Open a Linux I2C bus with the `i2c-bus` package (loaded now, not before). */
export async function openLinuxI2cBus(path: string): Promise<I2cBus> {
  const busNumber = i2cBusNumber(path);
  let mod: { openPromisified(n: number): Promise<PromisifiedI2c> };
  try {
    // i2c-bus is an optional native dependency without types; only its openPromisified is used.
    mod = (await import('i2c-bus' as string)) as unknown as typeof mod;
  } catch (err) {
    throw new I2cError(`cannot load the i2c-bus package for ${path}: ${(err as Error).message}`, 'ENOMODULE');
  }
  let bus: PromisifiedI2c;
  try {
    bus = await mod.openPromisified(busNumber);
  } catch (err) {
    throw new I2cError(`cannot open ${path}: ${(err as Error).message}`, (err as NodeJS.ErrnoException).code ?? 'EIO');
  }
  const wrap = (err: unknown, what: string): I2cError =>
    new I2cError(`${path}: ${what}: ${(err as Error).message}`, (err as NodeJS.ErrnoException).code ?? 'EIO');
  return {
    path,
    async readRegister(address, reg, length) {
      try {
        const buf = Buffer.alloc(length);
        const r = await bus.readI2cBlock(address, reg, length, buf);
        if (r.bytesRead !== length) throw new Error(`short read (${r.bytesRead} of ${length} bytes)`);
        return buf;
      } catch (err) {
        throw wrap(err, `read 0x${reg.toString(16)} at 0x${address.toString(16)}`);
      }
    },
    async writeRegister(address, reg, data) {
      try {
        await bus.writeI2cBlock(address, reg, data.length, data);
      } catch (err) {
        throw wrap(err, `write 0x${reg.toString(16)} at 0x${address.toString(16)}`);
      }
    },
    close: () => bus.close(),
  };
}
