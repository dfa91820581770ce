/**
 * Byte-level links between the host driver and a simulated appliance: serialport's mock binding (in-process)
 * and a real serial port (one end of a socat pty pair, or a USB adapter looped to a second machine).
 */
import type { SerialLink } from '../devices/serial-appliance.js';
import type { SimAppliance } from './sim-appliance.js';

/** The parts of @serialport/binding-mock's port binding we hook into. */
interface MockPortBinding {
  write(buf: Buffer): Promise<void>;
  emitData(data: Buffer | string): void;
}

/**
 * Create a mock port at `path`, open the host side as a SerialPortMock, and wire the appliance behind it: what
 * the host writes reaches the appliance byte for byte, what the appliance sends arrives as received data.
 */
export async function openMockApplianceLink(path: string, appliance: SimAppliance): Promise<SerialLink & { inject(data: string): void }> {
  const { SerialPortMock } = await import('serialport');
  SerialPortMock.binding.createPort(path, { echo: false, record: false });
  const port = new SerialPortMock({ path, baudRate: 115200, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  const binding = port.port as unknown as MockPortBinding;
  const write = binding.write.bind(binding);
  binding.write = async (buf: Buffer) => {
    await write(buf);
    appliance.receive(Buffer.from(buf));
  };
  appliance.send = (bytes) => binding.emitData(bytes);
  return Object.assign(port, { inject: (data: string) => binding.emitData(data) });
}

/** Put a simulated appliance on the device end of a real serial port (e.g. one side of a socat pty pair). */
export async function serveApplianceOn(path: string, appliance: SimAppliance): Promise<{ close(): Promise<void> }> {
  const { SerialPort } = await import('serialport');
  const port = new SerialPort({ path, baudRate: 115200, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  port.on('data', (chunk: Buffer) => appliance.receive(chunk));
  port.on('error', () => {
    // the host end went away: the appliance simply hears nothing more
  });
  appliance.send = (bytes) => {
    port.write(bytes);
  };
  return { close: () => new Promise<void>((resolve) => port.close(() => resolve())) };
}
