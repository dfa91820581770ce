/**
 * The simulated rig's heater wires. With the heat guard (runtime/guard), the demo fryer robot's relay heaters
 * sit on these lines, whose levels live in value files under `<data dir>/sim-gpio` (the layout of sysfs): the
 * guard alone drives them, the thermal model heats only while a wire energizes its load, and tests,
 * benchmarks and `hearth safe-off` read or write them from outside the hearth process.
 */
import { join } from 'node:path';
import type { SimulatedRigConfig } from '../rig-config.js';

/** Line numbers of the simulated heaters (as a Pi's BCM numbers might be). */
export const SIM_HEATER_LINES: Readonly<Record<string, number>> = { fryer: 17, pot: 27, pan: 22 };

/** Where a data directory keeps the simulated wires. */
export const simWireRoot = (dataDir: string): string => join(dataDir, 'sim-gpio');

/** The simulated heaters on wires (the serial hob, when chosen, switches itself), with their polarity. */
export function simWiredHeaters(config: SimulatedRigConfig): Array<{ id: string; line: number; activeLow: boolean }> {
  return Object.entries(SIM_HEATER_LINES)
    .filter(([id]) => !(config.hob === 'serial' && id === 'pan'))
    .map(([id, line]) => ({ id, line, activeLow: config.activeLowOutputs === true }));
}
