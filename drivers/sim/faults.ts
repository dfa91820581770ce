/** Faults the simulated rig can inject, by target sensor or heater id, optionally from a simulated time on. */

export const FAULT_KINDS = [
  'open_circuit',
  'short',
  'stuck',
  'noisy',
  'i2c_error',
  'detached',
  'relay_welded',
  'heater_dead',
  'serial_lost',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultSpec {
  kind: FaultKind;
  /** Sensor or heater id. */
  target: string;
  /** Simulated ms from rig start when the fault begins (immediately when absent). */
  atMs?: number;
  /** Stuck: the value it sticks at (default: the reading when it stuck). Noisy: amplitude in °C (default 15). */
  value?: number;
}

export const SENSOR_FAULTS: readonly FaultKind[] = ['open_circuit', 'short', 'stuck', 'noisy', 'i2c_error', 'detached', 'serial_lost'];
export const HEATER_FAULTS: readonly FaultKind[] = ['relay_welded', 'heater_dead', 'serial_lost'];

/** A fault the rig cannot simulate: an unknown kind, a target it does not have, a kind its target does not take. */
export class FaultSpecError extends Error {
  constructor(
    message: string,
    /** The member of the fault at fault. */
    readonly field: 'kind' | 'target',
  ) {
    super(message);
    this.name = 'FaultSpecError';
  }
}

export class FaultBook {
  private faults: FaultSpec[] = [];

  constructor(
    private readonly elapsed: () => number,
    initial: FaultSpec[] = [],
  ) {
    for (const f of initial) this.add(f);
  }

  add(f: FaultSpec): void {
    if (!FAULT_KINDS.includes(f.kind))
      throw new FaultSpecError(`unknown fault kind "${f.kind}" (known: ${FAULT_KINDS.join(', ')})`, 'kind');
    this.faults.push({ ...f });
  }

  clear(): void {
    this.faults = [];
  }

  all(): FaultSpec[] {
    return this.faults.map((f) => ({ ...f }));
  }

  /** The active fault of `kind` on `target`, if any. */
  active(target: string, kind: FaultKind): FaultSpec | undefined {
    const t = this.elapsed();
    return this.faults.find((f) => f.target === target && f.kind === kind && (f.atMs === undefined || t >= f.atMs));
  }
}
