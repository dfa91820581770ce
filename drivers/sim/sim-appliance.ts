/**
 * A simulated serial appliance (an induction hob with its own pan probe) speaking the line protocol byte for
 * byte. It keeps its own heat lease: every valid frame renews it, `PWR,<permille>,<leaseMs>` sets its length
 * (default `timeoutMs`, 2 s), and when a renewal is late a timer on its own clock switches the power off, with
 * no frame and no host needed (a host killed with kill -9 sends nothing more).
 * Transport-agnostic: feed it bytes with `receive`, and it answers through `send`.
 */
import { controlActive } from '../../safety/controls.js';
import {
  encodeFrame,
  FAULT_CODES,
  intArg,
  isFrame,
  LineSplitter,
  MAX_LEASE_MS,
  MIN_LEASE_MS,
  parseFrame,
} from '../devices/serial-protocol.js';
import type { Clock } from '../types.js';
import { Vessel, type VesselSpec } from './thermal.js';

export interface SimApplianceOptions {
  clock: Clock;
  vessel?: VesselSpec;
  ambientC?: number;
  timeoutMs?: number;
  /** The appliance's own over-temperature cut-out (°C). */
  cutoutC?: number;
}

export class SimAppliance {
  send: (bytes: Buffer) => void = () => {};
  readonly vessel: Vessel;
  permille = 0;
  fault = '0';
  /** When true the appliance stays silent (cable pulled): it hears nothing and says nothing. */
  linkLost = false;
  probeOpen = false;
  received: string[] = [];
  private last: number;
  private lastValid: number;
  private leaseMs: number;
  private leaseTimer: unknown;
  /** Heat switched off because the lease ran out (how many times). */
  leaseExpiries = 0;
  private readonly splitter = new LineSplitter();

  constructor(private readonly o: SimApplianceOptions) {
    this.vessel = new Vessel(
      o.vessel ?? { id: 'hob_pan', medium: 'pan_surface', heatCapacityJPerK: 1000, lossWPerK: 6, heaterW: 1800 },
      o.ambientC ?? 21,
    );
    this.last = o.clock.now();
    this.lastValid = this.last;
    this.leaseMs = o.timeoutMs ?? 2000;
  }

  /** A valid frame arrived: the lease runs `leaseMs` from now. */
  private renew(): void {
    this.lastValid = this.o.clock.now();
    if (this.leaseTimer !== undefined) this.o.clock.clearTimeout(this.leaseTimer);
    this.leaseTimer = undefined;
    // The mutation run's "appliance-heat-lease" mutant: heat stays on after the host falls silent.
    if (this.permille === 0 && !controlActive('appliance-heat-lease')) return;
    this.leaseTimer = this.o.clock.setTimeout(() => {
      this.leaseTimer = undefined;
      if (!controlActive('appliance-heat-lease')) return;
      const was = this.permille;
      this.step(); // the thermal model up to now, at the power it had until this instant
      if (was > 0) {
        this.permille = 0;
        this.leaseExpiries++;
      }
    }, this.leaseMs);
  }

  /** Stop the lease timer (the simulated appliance is being discarded). */
  close(): void {
    if (this.leaseTimer !== undefined) this.o.clock.clearTimeout(this.leaseTimer);
    this.leaseTimer = undefined;
  }

  /** Advance the thermal model and the appliance's own timeout to now. */
  step(): void {
    const now = this.o.clock.now();
    if (this.permille > 0 && now - this.lastValid > this.leaseMs && controlActive('appliance-heat-lease')) this.permille = 0;
    this.vessel.step(now - this.last, (this.permille / 1000) * this.vessel.spec.heaterW);
    this.last = now;
    if (this.vessel.tempC > (this.o.cutoutC ?? 320) && this.fault === '0') {
      this.permille = 0;
      this.fault = 'E3';
      this.reply('FLT', 'E3');
    }
  }

  /** Called before each chunk is handled (a rig uses it to bring faults and time up to date). */
  beforeReceive?: () => void;

  receive(bytes: Buffer): void {
    this.beforeReceive?.();
    if (this.linkLost) return;
    this.splitter.push(bytes, (line) => this.onLine(line));
  }

  private reply(cmd: string, ...args: Array<string | number>): void {
    if (!this.linkLost) this.send(Buffer.from(encodeFrame(cmd, ...args), 'latin1'));
  }

  private onLine(line: string): void {
    this.step();
    this.received.push(line);
    const [cmd, ...args] = this.answer(line);
    this.reply(cmd, ...args);
  }

  private answer(line: string): [string, ...Array<string | number>] {
    const f = parseFrame(line);
    if (!isFrame(f)) return ['NAK', f.error];
    const answer = this.command(f.cmd, f.args);
    this.renew();
    return answer;
  }

  private command(cmd: string, args: string[]): [string, ...Array<string | number>] {
    const f = { cmd, args };
    switch (f.cmd) {
      case 'PWR': {
        const p = intArg(f.args[0], 0, 1000);
        const lease = f.args[1] === undefined ? this.leaseMs : intArg(f.args[1], MIN_LEASE_MS, MAX_LEASE_MS);
        if (p === null || lease === null || f.args.length > 2) return ['NAK', 'ARG'];
        this.leaseMs = lease;
        this.permille = this.fault === '0' ? p : 0;
        return ['OKP', this.permille, this.leaseMs];
      }
      case 'TMP':
        if (f.args.length !== 0) return ['NAK', 'ARG'];
        if (this.probeOpen) return ['ERR', 'E1'];
        return ['TMP', Math.round(this.vessel.tempC * 100)];
      case 'HBT': {
        const seq = intArg(f.args[0], 0, 65535);
        if (seq === null || f.args.length !== 1) return ['NAK', 'ARG'];
        return ['HBT', seq];
      }
      case 'FLT':
        return ['FLT', this.fault];
      default:
        return ['NAK', 'CMD'];
    }
  }

  static describeFault(code: string): string {
    return FAULT_CODES[code] ?? `unknown fault ${code}`;
  }
}
