/**
 * A GPIO output line as a value file holding the wire level (`0`/`1`), the shape sysfs gives it: the heat
 * guard (runtime/guard) holds heater lines this way, `hearth safe-off` drives them off this way, and the
 * simulated rig keeps its "wires" in files of the same layout (`<root>/gpio<N>/value`) so a process outside
 * the one that drives them (a test, a second tool) can read the level the wire carries.
 *
 * On real sysfs a line is exported if needed, the kernel's `active_low` is cleared (so the file holds the wire
 * level), and the direction is set to the off level, which drives the wire without a glitch. The level for
 * "off" always comes from drivers/buses/output-level.ts.
 */
import { closeSync, constants, existsSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { offLevel, type WireLevel, wireLevel } from './output-level.js';

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Where a line's value file lives under a sysfs-like root. */
export const valueFile = (root: string, line: number): string => join(root, `gpio${line}`, 'value');

/** The wire level a value file holds now, or undefined when there is no such file. */
export function readWire(root: string, line: number): WireLevel | undefined {
  try {
    return readFileSync(valueFile(root, line), 'utf8').trim() === '1' ? 1 : 0;
  } catch {
    return undefined;
  }
}

/**
 * Make a line an output at its off level. `simulated`: the root is a plain folder (the simulated rig's wires),
 * so the line's folder is created instead of exported. Throws with the reason.
 */
export function prepareLineOff(root: string, line: number, activeLow: boolean, simulated = false): WireLevel {
  const level = offLevel(activeLow);
  const dir = join(root, `gpio${line}`);
  if (simulated) mkdirSync(dir, { recursive: true });
  else if (!existsSync(dir)) {
    writeFileSync(join(root, 'export'), String(line));
    // udev may take a moment to make the new line's files writable (up to 2 s; an export the kernel refuses
    // throws above instead).
    for (let i = 0; i < 100 && !existsSync(join(dir, 'value')); i++) sleepSync(20);
  }
  if (existsSync(join(dir, 'active_low'))) writeFileSync(join(dir, 'active_low'), '0');
  if (existsSync(join(dir, 'direction'))) writeFileSync(join(dir, 'direction'), level === 1 ? 'high' : 'low');
  writeFileSync(join(dir, 'value'), String(level));
  const read = readWire(root, line);
  if (read !== level) throw new Error(`wrote ${level} but the line reads ${read ?? 'nothing'}`);
  return level;
}

/** One output line held open: writes go straight to the value file through a descriptor opened once. */
export class PinFile {
  private fd: number;
  private active = false;

  constructor(
    readonly root: string,
    readonly line: number,
    readonly activeLow: boolean,
    simulated = false,
  ) {
    prepareLineOff(root, line, activeLow, simulated);
    this.fd = openSync(valueFile(root, line), constants.O_WRONLY);
  }

  /** Drive the wire for a logical state (true = load energized). Synchronous. */
  write(active: boolean): void {
    this.active = active;
    const level = wireLevel(active, this.activeLow);
    if (this.fd >= 0) writeSync(this.fd, String(level), 0);
    else writeFileSync(valueFile(this.root, this.line), String(level));
  }

  /** Whether this holder last drove the load on. */
  get on(): boolean {
    return this.active;
  }

  /** Drive the off level and read it back; true when the wire carries it. Never throws. */
  off(): boolean {
    try {
      this.write(false);
    } catch {
      try {
        writeFileSync(valueFile(this.root, this.line), String(offLevel(this.activeLow)));
      } catch {
        return false;
      }
    }
    return readWire(this.root, this.line) === offLevel(this.activeLow);
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}
