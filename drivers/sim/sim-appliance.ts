/**
 * A simulated serial appliance (an induction hob with its own pan probe) speaking the line protocol byte for
 * byte. It keeps its own lease: without a valid frame for `timeoutMs` it switches its power off by itself.
 * Transport-agnostic: feed it bytes with `receive`, and it answers through `send`.
 */
import { encodeFrame, FAULT_CODES, intArg, isFrame, LineSplitter, parseFrame } from '../devices/serial-protocol.js';
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
  private readonly splitter = new LineSplitter();

  constructor(private readonly o: SimApplianceOptions) {
    this.vessel = new Vessel(
      o.vessel ?? { id: 'hob_pan', medium: 'pan_surface', heatCapacityJPerK: 1000, lossWPerK: 6, heaterW: 1800 },
      o.ambientC ?? 21,
    );
    this.last = o.clock.now();
    this.lastValid = this.last;
  }

  /** Advance the thermal model and the appliance's own timeout to now. */
  step(): void {
    const now = this.o.clock.now();
    if (this.permille > 0 && now - this.lastValid > (this.o.timeoutMs ?? 2000)) this.permille = 0;
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
    this.lastValid = this.o.clock.now();
    switch (f.cmd) {
      case 'PWR': {
        const p = intArg(f.args[0], 0, 1000);
        if (p === null || f.args.length !== 1) return ['NAK', 'ARG'];
        this.permille = this.fault === '0' ? p : 0;
        return ['OKP', this.permille];
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
