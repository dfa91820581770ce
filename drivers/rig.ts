/**
 * Build a rig from configuration. The simulated rig needs nothing native; the hardware rig is in its own
 * module, imported only when the configuration asks for hardware, and it loads each native backend (i2c-bus,
 * onoff, serialport) only for the buses it names.
 */
import type { WiredOutputs } from './buses/wired.js';
import { acceleratedClock, systemClock } from './clock.js';
import type { RigConfig } from './rig-config.js';
import { type SimControl, SimRig } from './sim/sim-rig.js';
import type { Clock, Rig } from './types.js';

export type { GpioLineConfig, HardwareRigConfig, RigConfig, SimulatedRigConfig } from './rig-config.js';
export { loadRigConfig, parseRigConfig, rigConfigSchema } from './rig-config.js';
export type { FaultKind, FaultSpec } from './sim/faults.js';
export type { SimControl, SimSnapshot } from './sim/sim-rig.js';

/** `wires`: heater lines held by the heat guard (runtime/guard), when hearth runs one. */
export async function createRig(
  config: RigConfig,
  opts: { clock?: Clock; wires?: WiredOutputs } = {},
): Promise<Rig & { sim?: SimControl }> {
  if (config.kind === 'simulated') {
    const clock = opts.clock ?? (config.speed && config.speed !== 1 ? acceleratedClock(config.speed) : systemClock);
    return new SimRig(clock, { ...config, ...(opts.wires ? { wires: opts.wires } : {}) });
  }
  const { HardwareRig, linuxBackends } = await import('./hardware-rig.js');
  return new HardwareRig(config, opts.clock ?? systemClock, linuxBackends(config.gpioSysfsRoot), opts.wires);
}
