/**
 * The simulated demo fryer robot: an oil pot, a water pot and a pan on a hob, each with a heater and an
 * MCP9600 thermocouple amplifier on a simulated I2C bus, plus a presence input and an e-stop button. The
 * sensors are read through the real MCP9600 driver, so the simulation exercises the same code as hardware.
 */
import { mulberry32 } from '../../core/random.js';
import { SimI2cBus } from '../buses/sim-i2c.js';
import type { WiredOutputs } from '../buses/wired.js';
import { Mcp9600Sensor } from '../devices/mcp9600.js';
import { SerialApplianceClient, SerialApplianceHeater, SerialApplianceSensor } from '../devices/serial-appliance.js';
import type { Clock, HeaterOutput, HeaterThermal, Rig, TemperatureSensor } from '../types.js';
import type { WatchdogCapable, WatchdogTarget } from '../watchdog-targets.js';
import { FaultBook, type FaultSpec, FaultSpecError } from './faults.js';
import { openMockApplianceLink } from './serial-links.js';
import { SimAppliance } from './sim-appliance.js';
import { SharedDuty, SimHeater, SimInput } from './sim-io.js';
import { SimMcp9600 } from './sim-mcp9600.js';
import { demoVessels, Vessel } from './thermal.js';

export interface SimRigOptions {
  device?: string;
  seed?: number;
  ambientC?: number;
  altitudeM?: number;
  faults?: FaultSpec[];
  /** Add a second thermocouple ("oil2", address 0x63) in the oil pot, for plausibility checks. */
  redundantOilSensor?: boolean;
  /**
   * How the pan is heated: `ssr` (default) a relay and an MCP9600 like the pots, or `serial` an induction
   * hob with its own probe, driven over the serial line protocol on serialport's mock binding.
   */
  hob?: 'ssr' | 'serial';
  /** Relay boards are active-low (with `wires`: the wire is HIGH when off). */
  activeLowOutputs?: boolean;
  /**
   * The heaters' lines, held by the heat guard (drivers/sim/wires.ts): each heater's relay is driven through
   * them, and the thermal model heats a vessel only while its wire energizes the load.
   */
  wires?: WiredOutputs;
}

export interface SimSnapshot {
  tempsC: Record<string, number>;
  heaters: Record<string, number>;
  presence: boolean;
  estop: boolean;
  faults: FaultSpec[];
}

export interface SimControl {
  setPresence(present: boolean): void;
  pressEstop(pressed: boolean): void;
  injectFault(f: FaultSpec): void;
  clearFaults(): void;
  /** Force the temperature of a vessel (by vessel id or the id of a sensor in it). */
  setTemperature(sensorOrVessel: string, tempC: number): void;
  snapshot(): SimSnapshot;
}

interface SensorPlan {
  id: string;
  svcSensor: string;
  vessel: string;
  address: number;
  rangeC: { min: number; max: number };
}

interface HeaterPlan {
  id: string;
  vessel: string;
  sensors: string[];
  hardMaxC: number;
}

const SENSORS: SensorPlan[] = [
  { id: 'oil', svcSensor: 'cw.sense.oil_temp', vessel: 'oil_pot', address: 0x60, rangeC: { min: -20, max: 300 } },
  { id: 'liquid', svcSensor: 'cw.sense.liquid_temp', vessel: 'water_pot', address: 0x61, rangeC: { min: -20, max: 150 } },
  { id: 'pan', svcSensor: 'cw.sense.pan_surface_temp', vessel: 'pan', address: 0x62, rangeC: { min: -20, max: 400 } },
];
const OIL2: SensorPlan = { id: 'oil2', svcSensor: 'cw.sense.oil_temp', vessel: 'oil_pot', address: 0x63, rangeC: { min: -20, max: 300 } };

const HEATERS: HeaterPlan[] = [
  { id: 'fryer', vessel: 'oil_pot', sensors: ['oil'], hardMaxC: 230 },
  { id: 'pot', vessel: 'water_pot', sensors: ['liquid'], hardMaxC: 120 },
  { id: 'pan', vessel: 'pan', sensors: ['pan'], hardMaxC: 300 },
];

export class SimRig implements Rig, WatchdogCapable {
  readonly id: string;
  readonly sensors = new Map<string, TemperatureSensor>();
  readonly heaters = new Map<string, HeaterOutput>();
  /** The vessels' own figures: the simulated rig's configuration is exact. */
  readonly thermal = new Map<string, HeaterThermal>();
  readonly presence = new SimInput('presence');
  readonly estop = new SimInput('estop');
  readonly sim: SimControl;
  readonly bus = new SimI2cBus();
  readonly chips = new Map<string, SimMcp9600>();
  private readonly vessels = new Map<string, Vessel>();
  private readonly duty: SharedDuty;
  private readonly faults: FaultBook;
  private readonly random: () => number;
  private readonly startedAt: number;
  private lastStep: number;
  private readonly stuckAt = new Map<string, number>();
  private readonly sensorPlans: SensorPlan[];
  private readonly heaterPlans: HeaterPlan[];
  private readonly wires?: WiredOutputs;
  private readonly activeLow: boolean;
  /** The simulated serial hob, when `hob: 'serial'`. */
  readonly hob?: SimAppliance;
  private hobClient?: SerialApplianceClient;
  private static hobPorts = 0;

  constructor(
    readonly clock: Clock,
    o: SimRigOptions = {},
  ) {
    this.id = o.device ?? 'sim-fryer';
    this.startedAt = clock.now();
    this.lastStep = this.startedAt;
    this.random = mulberry32(o.seed ?? 1);
    this.faults = new FaultBook(() => this.clock.now() - this.startedAt);
    this.wires = o.wires;
    this.activeLow = o.activeLowOutputs === true;
    const ambient = o.ambientC ?? 21;
    for (const spec of demoVessels(o.altitudeM ?? 0)) this.vessels.set(spec.id, new Vessel(spec, ambient));
    const serialHob = o.hob === 'serial';
    this.sensorPlans = (o.redundantOilSensor ? [...SENSORS, OIL2] : SENSORS).filter((p) => !(serialHob && p.id === 'pan'));
    this.heaterPlans = HEATERS.filter((h) => !(serialHob && h.id === 'pan')).map((h) =>
      h.id === 'fryer' && o.redundantOilSensor ? { ...h, sensors: ['oil', 'oil2'] } : h,
    );
    if (serialHob) {
      this.hob = new SimAppliance({ clock, vessel: this.vessel('pan').spec, ambientC: ambient });
      this.hob.beforeReceive = () => this.step();
      this.vessels.set('pan', this.hob.vessel);
    }
    this.duty = new SharedDuty(this.heaterPlans.length);

    for (const plan of this.sensorPlans) {
      const chip = new SimMcp9600(() => this.probe(plan));
      this.chips.set(plan.id, chip);
      this.bus.attach(plan.address, chip);
      const vessel = this.vessel(plan.vessel);
      this.sensors.set(
        plan.id,
        new Mcp9600Sensor({
          id: plan.id,
          svcSensor: plan.svcSensor,
          medium: vessel.spec.medium,
          bus: this.bus,
          address: plan.address,
          clock,
          rangeC: plan.rangeC,
        }),
      );
    }
    for (const plan of HEATERS) {
      const v = this.vessel(plan.vessel).spec;
      this.thermal.set(plan.id, { heatCapacityJPerK: v.heatCapacityJPerK, lossWPerK: v.lossWPerK, ambientC: ambient });
    }
    this.heaterPlans.forEach((plan, slot) => {
      const v = this.vessel(plan.vessel);
      this.heaters.set(
        plan.id,
        new SimHeater(
          plan.id,
          v.spec.medium,
          plan.sensors,
          v.spec.heaterW,
          this.duty,
          slot,
          () => this.step(),
          plan.hardMaxC,
          this.wires?.line(plan.id),
        ),
      );
    });
    for (const f of o.faults ?? []) this.faults.add(this.resolveFault(f));
    this.sim = this.control();
  }

  /**
   * Point a fault at what it affects: a sensor fault named by heater goes to that heater's first sensor, a
   * heater fault named by sensor goes to the heater it watches. In this rig `serial_lost` silences a
   * sensor's link. An id the rig does not have is an error.
   */
  private resolveFault(f: FaultSpec): FaultSpec {
    if (this.hob && f.target === 'pan') {
      if (f.kind === 'serial_lost' || f.kind === 'open_circuit') return f;
      throw new FaultSpecError(`the serial hob "pan" takes the faults serial_lost and open_circuit, not ${f.kind}`, 'kind');
    }
    const sensorFault = f.kind !== 'relay_welded' && f.kind !== 'heater_dead';
    const isSensor = this.sensorPlans.some((p) => p.id === f.target);
    const heater = this.heaterPlans.find((h) => h.id === f.target);
    if (sensorFault) {
      if (isSensor) return f;
      if (heater) return { ...f, target: heater.sensors[0] as string };
    } else {
      if (heater) return f;
      const watching = this.heaterPlans.find((h) => h.sensors.includes(f.target));
      if (watching) return { ...f, target: watching.id };
    }
    throw new FaultSpecError(`fault target "${f.target}" is neither a sensor nor a heater of this rig`, 'target');
  }

  private vessel(id: string): Vessel {
    const v = this.vessels.get(id);
    if (!v) throw new Error(`no vessel "${id}" in the simulated rig`);
    return v;
  }

  /** Integrate the thermal model up to now with each heater's effective power. */
  step(): void {
    if (this.hob) {
      this.hob.linkLost = this.faults.active('pan', 'serial_lost') !== undefined;
      this.hob.probeOpen = this.faults.active('pan', 'open_circuit') !== undefined;
      this.hob.step();
    }
    const now = this.clock.now();
    const dt = now - this.lastStep;
    if (dt <= 0) return;
    this.lastStep = now;
    this.heaterPlans.forEach((plan, slot) => {
      const v = this.vessel(plan.vessel);
      let fraction = this.duty.get(slot);
      if (this.wires && !this.energized(plan.id)) fraction = 0;
      if (this.faults.active(plan.id, 'relay_welded')) fraction = 1;
      if (this.faults.active(plan.id, 'heater_dead')) fraction = 0;
      v.step(dt, fraction * v.spec.heaterW);
    });
  }

  /** Whether the relay conducts at the level its wire carries (the relay's physics, not output-level.ts). */
  private energized(heater: string): boolean {
    const level = this.wires?.level(heater);
    if (level === undefined) return false;
    return this.activeLow ? level === 0 : level === 1;
  }

  private probe(plan: SensorPlan) {
    this.step();
    const v = this.vessel(plan.vessel);
    const f = (k: FaultSpec['kind']) => this.faults.active(plan.id, k);
    const coldC = v.ambientC + 5;
    let hotC = v.tempC + (this.random() - 0.5) * 0.1;
    const stuck = f('stuck');
    if (stuck) {
      if (!this.stuckAt.has(plan.id)) this.stuckAt.set(plan.id, stuck.value ?? v.tempC);
      hotC = this.stuckAt.get(plan.id) as number;
    }
    const noisy = f('noisy');
    if (noisy) hotC += (this.random() * 2 - 1) * (noisy.value ?? 15);
    if (f('detached')) hotC = v.ambientC + (this.random() - 0.5) * 0.1;
    return {
      hotC,
      coldC,
      open: f('open_circuit') !== undefined,
      short: f('short') !== undefined,
      nack: (f('i2c_error') ?? f('serial_lost')) !== undefined,
    };
  }

  async open(): Promise<void> {
    this.allHeatOff();
    for (const s of this.sensors.values()) if (s instanceof Mcp9600Sensor) await s.open();
    if (this.hob && !this.hobClient) {
      const path = `/dev/sim-hob-${++SimRig.hobPorts}`;
      const link = await openMockApplianceLink(path, this.hob);
      const client = new SerialApplianceClient({ path, link, clock: this.clock });
      await client.open();
      this.hobClient = client;
      this.sensors.set(
        'pan',
        new SerialApplianceSensor(client, this.clock, 'pan', 'cw.sense.pan_surface_temp', 'pan_surface', 2, { min: -20, max: 400 }),
      );
      this.heaters.set('pan', new SerialApplianceHeater(client, 'pan', 'pan_surface', ['pan'], this.hob.vessel.spec.heaterW, 300));
      this.allHeatOff();
    }
  }

  allHeatOff(): void {
    for (const h of this.heaters.values()) h.off();
  }

  async close(): Promise<void> {
    this.allHeatOff();
    await this.hobClient?.close();
    this.hobClient = undefined;
    await this.bus.close();
  }

  watchdogTargets(): WatchdogTarget[] {
    return [...this.heaters.values()].flatMap((h): WatchdogTarget[] => {
      if (!(h instanceof SimHeater))
        return [{ kind: 'none', heater: h.id, why: 'the serial hob switches itself off when the host stops talking' }];
      const wire = this.wires?.target(h.id);
      const shared: WatchdogTarget = { kind: 'shared', heater: h.id, buffer: this.duty.buffer, index: h.slot };
      return wire ? [shared, { kind: 'sysfs', heater: h.id, ...wire }] : [shared];
    });
  }

  private control(): SimControl {
    return {
      setPresence: (p) => this.presence.set(p),
      pressEstop: (p) => this.estop.set(p),
      injectFault: (f) => {
        this.step();
        this.faults.add(this.resolveFault(f));
      },
      clearFaults: () => {
        this.faults.clear();
        this.stuckAt.clear();
      },
      setTemperature: (key, tempC) => {
        if (!Number.isFinite(tempC)) throw new RangeError(`temperature must be a number, got ${tempC}`);
        this.step();
        const plan = this.sensorPlans.find((s) => s.id === key);
        this.vessel(plan ? plan.vessel : key).tempC = tempC;
      },
      snapshot: () => {
        this.step();
        const tempsC: Record<string, number> = {};
        for (const [id, v] of this.vessels) tempsC[id] = Math.round(v.tempC * 100) / 100;
        for (const p of this.sensorPlans) tempsC[p.id] = tempsC[p.vessel] as number;
        const heaters: Record<string, number> = {};
        for (const h of this.heaters.values()) heaters[h.id] = h.power;
        // For the serial hob, report what the appliance itself is doing.
        if (this.hob) heaters.pan = this.hob.permille / 1000;
        return { tempsC, heaters, presence: this.presence.peek(), estop: this.estop.peek(), faults: this.faults.all() };
      },
    };
  }
}
