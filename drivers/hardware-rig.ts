/**
 * A rig of real hardware built from configuration: MCP9600 sensors on Linux I2C buses, relay heaters and
 * inputs on sysfs GPIO (lines by header number, resolved to the kernel's numbers: drivers/rig-config-gpio.ts),
 * serial appliances on serial ports. Each native backend is imported only when the
 * configuration names something that needs it; `open()` probes every device and fails clearly when one is
 * absent. Backends can be injected (tests use the simulated ones behind the same interfaces).
 */

import { defaultLossWPerK } from '../safety/detectors/thermal-model.js';
import type { GpioBackend } from './buses/gpio.js';
import type { GpioLineRef } from './buses/gpio-resolve.js';
import type { I2cBus } from './buses/i2c.js';
import { offLevel } from './buses/output-level.js';
import type { WiredOutputs } from './buses/wired.js';
import { GpioDigitalInput } from './devices/gpio-input.js';
import { Mcp9600Sensor } from './devices/mcp9600.js';
import { RelayHeater } from './devices/relay-heater.js';
import { type SerialApplianceClient, SerialApplianceHeater, SerialApplianceSensor } from './devices/serial-appliance.js';
import type { HardwareRigConfig } from './rig-config.js';
import { heaterUse, lineOf, type RigGpioResolution, resolveRigGpioOrThrow } from './rig-config-gpio.js';
import type { Clock, DigitalInput, HeaterOutput, HeaterThermal, Rig, TemperatureSensor } from './types.js';
import type { WatchdogCapable, WatchdogTarget } from './watchdog-targets.js';

export interface HardwareBackends {
  i2c(path: string): Promise<I2cBus>;
  /** `withInputs`: the rig reads GPIO inputs too. */
  gpio(withInputs: boolean): Promise<GpioBackend>;
  serial(path: string, baudRate: number, clock: Clock): Promise<SerialApplianceClient>;
  /**
   * The rig's GPIO lines resolved to the backend's numbers (throws one line when one cannot be). Without it the
   * backend numbers lines as the rig file does (a simulated backend).
   */
  resolveGpio?(config: HardwareRigConfig): RigGpioResolution;
}

/** The real backends, each loaded on first use. */
export const linuxBackends = (sysfsRoot?: string): HardwareBackends => ({
  async i2c(path) {
    const { openLinuxI2cBus } = await import('./buses/i2c.js');
    return openLinuxI2cBus(path);
  },
  async gpio(withInputs) {
    const { openSysfsBackend } = await import('./buses/gpio.js');
    return openSysfsBackend(sysfsRoot, withInputs);
  },
  resolveGpio: (config) => resolveRigGpioOrThrow(config),
  async serial(path, baudRate, clock) {
    const { openSerialAppliance } = await import('./devices/serial-open.js');
    return openSerialAppliance(path, baudRate, clock);
  },
});

export class HardwareRig implements Rig, WatchdogCapable {
  readonly id: string;
  readonly sensors = new Map<string, TemperatureSensor>();
  readonly heaters = new Map<string, HeaterOutput>();
  /** Thermal mass per heater, from the configuration (room temperature taken as 20 °C). */
  readonly thermal = new Map<string, HeaterThermal>();
  presence?: DigitalInput;
  estop?: DigitalInput;
  private readonly buses = new Map<string, I2cBus>();
  private readonly clients: SerialApplianceClient[] = [];
  private readonly closers: Array<() => void> = [];
  private gpio?: GpioBackend;
  private targets: WatchdogTarget[] = [];

  constructor(
    private readonly config: HardwareRigConfig,
    readonly clock: Clock,
    private readonly backends: HardwareBackends = linuxBackends(config.gpioSysfsRoot),
    /** Relay lines held by the heat guard (runtime/guard); without it this process exports them itself. */
    private readonly wires?: WiredOutputs,
  ) {
    this.id = config.device ?? 'hearth-rig';
    for (const h of config.heaters) {
      const lossWPerK = h.lossWPerK ?? defaultLossWPerK(h.maxPowerW, h.maxC);
      this.thermal.set(h.id, { heatCapacityJPerK: h.heatCapacityJPerK, lossWPerK, ambientC: 20 });
    }
  }

  async open(): Promise<void> {
    try {
      await this.build();
    } catch (err) {
      this.allHeatOff();
      await this.close().catch(() => {});
      throw err;
    }
    this.allHeatOff();
  }

  private async build(): Promise<void> {
    const c = this.config;
    const needsGpio = c.presence || c.estop || (!this.wires && c.heaters.some((h) => h.driver === 'gpio_relay'));
    const resolved = this.backends.resolveGpio?.(c);
    /** The backend's number for a line: resolved (sysfs), or the rig file's own on a simulated backend. */
    const lineNo = (use: string, ref: GpioLineRef): number => {
      if (resolved) return lineOf(resolved, use).sysfs;
      if (ref.line === undefined) throw new Error(`${use}: a chip and offset need the sysfs backend`);
      return ref.line;
    };
    if (needsGpio) this.gpio = await this.backends.gpio(Boolean(c.presence || c.estop));
    for (const s of c.sensors) {
      let bus = this.buses.get(s.bus);
      if (!bus) {
        bus = await this.backends.i2c(s.bus);
        this.buses.set(s.bus, bus);
      }
      const sensor = new Mcp9600Sensor({ ...s, bus, clock: this.clock });
      await sensor.open();
      this.sensors.set(s.id, sensor);
    }
    for (const h of c.heaters) {
      if (h.driver === 'gpio_relay' && this.wires) {
        const line = this.wires.line(h.id);
        this.closers.push(() => line.close());
        this.heaters.set(h.id, new RelayHeater({ ...h, hardMaxC: h.maxC, line, clock: this.clock }));
        const wire = this.wires.target(h.id);
        this.targets.push(wire ? { kind: 'sysfs', heater: h.id, ...wire } : { kind: 'none', heater: h.id, why: 'no value file' });
      } else if (h.driver === 'gpio_relay') {
        const gpio = this.gpio as GpioBackend;
        const n = lineNo(heaterUse(h.id), h.gpio);
        const line = gpio.output(n, h.gpio.activeLow ?? false);
        this.closers.push(() => line.close());
        this.heaters.set(h.id, new RelayHeater({ ...h, hardMaxC: h.maxC, line, clock: this.clock }));
        const valuePath = gpio.valuePath?.(n);
        this.targets.push(
          valuePath
            ? { kind: 'sysfs', heater: h.id, valuePath, offValue: String(offLevel(h.gpio.activeLow ?? false)) as '0' | '1' }
            : { kind: 'none', heater: h.id, why: 'GPIO backend has no sysfs value file' },
        );
      } else {
        const client = await this.backends.serial(h.path, h.baudRate ?? 115200, this.clock);
        this.clients.push(client);
        await client.open();
        const sc = h.sensor;
        this.sensors.set(sc.id, new SerialApplianceSensor(client, this.clock, sc.id, sc.svcSensor, h.medium, sc.accuracyC, sc.rangeC));
        this.heaters.set(h.id, new SerialApplianceHeater(client, h.id, h.medium, [sc.id], h.maxPowerW, h.maxC));
        this.targets.push({ kind: 'none', heater: h.id, why: 'a serial appliance switches itself off when the host stops talking' });
      }
    }
    if (c.presence) this.presence = this.input('presence', lineNo('presence', c.presence), c.presence.activeLow);
    if (c.estop) this.estop = this.input('estop', lineNo('estop', c.estop), c.estop.activeLow);
  }

  private input(id: string, line: number, activeLow = false): DigitalInput {
    const input = new GpioDigitalInput(id, (this.gpio as GpioBackend).input(line, activeLow));
    this.closers.push(() => input.close());
    return input;
  }

  watchdogTargets(): WatchdogTarget[] {
    return [...this.targets];
  }

  allHeatOff(): void {
    for (const h of this.heaters.values()) {
      try {
        h.off();
      } catch {
        // off() must not throw; keep cutting the others regardless
      }
    }
  }

  async close(): Promise<void> {
    this.allHeatOff();
    for (const c of this.clients) await c.close().catch(() => {});
    for (const b of this.buses.values()) await b.close().catch(() => {});
    for (const close of this.closers) {
      try {
        close();
      } catch {
        // already released
      }
    }
    this.clients.length = 0;
    this.buses.clear();
    this.closers.length = 0;
  }
}
