/** Open a real serial port (the `serialport` package, loaded only here) and put an appliance client on it. */
import type { Clock } from '../types.js';
import { SerialApplianceClient, type SerialApplianceOptions } from './serial-appliance.js';

/** `o`: the client's answer timeout and heartbeat period, when not their defaults (300 ms, 500 ms). */
export async function openSerialAppliance(
  path: string,
  baudRate: number,
  clock: Clock,
  o: Pick<SerialApplianceOptions, 'timeoutMs' | 'heartbeatMs'> = {},
): Promise<SerialApplianceClient> {
  const { SerialPort } = await import('serialport');
  const port = new SerialPort({ path, baudRate, autoOpen: false });
  await new Promise<void>((resolve, reject) =>
    port.open((err) => (err ? reject(new Error(`cannot open serial port ${path}: ${err.message}`)) : resolve())),
  );
  return new SerialApplianceClient({ path, link: port, clock, ...o });
}
