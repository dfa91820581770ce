/**
 * Host side of the serial appliance protocol (serial-protocol.ts, docs/hardware.md): one request in flight at
 * a time, each answered within `timeoutMs` or failed; a heartbeat keeps the appliance's own lease alive; an
 * unsolicited FLT frame is remembered and turns the next reading into a fault. The appliance gives the rig
 * one heater output and one temperature sensor.
 */
import type { Clock, HeaterOutput, TemperatureReading, TemperatureSensor } from '../types.js';
import { APPLIANCE_LEASE_MS, encodeFrame, FAULT_CODES, type Frame, intArg, isFrame, LineSplitter, parseFrame } from './serial-protocol.js';

/** The byte stream the client talks over: a serialport SerialPort (real or mock), or anything alike. */
export interface SerialLink {
  write(data: Buffer): unknown;
  on(event: 'data', cb: (chunk: Buffer) => void): unknown;
  on(event: 'error', cb: (err: Error) => void): unknown;
  close(cb?: (err?: Error | null) => void): unknown;
}

const REPLIES: Record<string, string[]> = { PWR: ['OKP'], TMP: ['TMP', 'ERR'], HBT: ['HBT'], FLT: ['FLT'] };

interface Pending {
  cmd: string;
  resolve: (f: Frame) => void;
  reject: (e: Error) => void;
  timer?: unknown;
  line: string;
}

export interface SerialApplianceOptions {
  path: string;
  link: SerialLink;
  clock: Clock;
  timeoutMs?: number;
  heartbeatMs?: number;
}

export class SerialApplianceClient {
  private readonly queue: Pending[] = [];
  private inFlight?: Pending;
  private readonly splitter = new LineSplitter();
  private heartbeat?: unknown;
  private seq = 0;
  /** Last fault code the appliance reported ("0" = none). */
  fault = '0';
  /** Frames we could not use (bad checksum, syntax, unexpected): counted for diagnostics. */
  rejected = 0;
  /** The last error the port reported (a write cancelled on close, a device unplugged). */
  lastError?: string;

  constructor(private readonly o: SerialApplianceOptions) {
    o.link.on('data', (chunk) => this.splitter.push(chunk, (line) => this.onLine(line)));
    // A port error must never crash the process: requests time out and readings go stale instead.
    o.link.on('error', (err) => {
      this.lastError = err.message;
    });
  }

  /** Ask the appliance for its fault state: fails clearly when nothing answers on the port. */
  async open(): Promise<void> {
    try {
      const f = await this.request('FLT');
      this.fault = f.args[0] ?? '0';
    } catch (err) {
      throw new Error(`no serial appliance answering on ${this.o.path} (${(err as Error).message})`);
    }
    this.heartbeat = this.o.clock.setInterval(() => {
      this.seq = (this.seq + 1) % 65536;
      this.request('HBT', this.seq).catch(() => {});
    }, this.o.heartbeatMs ?? 500);
  }

  request(cmd: string, ...args: Array<string | number>): Promise<Frame> {
    return new Promise((resolve, reject) => {
      this.queue.push({ cmd, resolve, reject, line: encodeFrame(cmd, ...args) });
      this.pump();
    });
  }

  /** Write a frame now, bypassing the queue and without waiting for an answer (used to switch off). */
  writeNow(cmd: string, ...args: Array<string | number>): void {
    this.o.link.write(Buffer.from(encodeFrame(cmd, ...args), 'latin1'));
  }

  private pump(): void {
    if (this.inFlight || this.queue.length === 0) return;
    const p = this.queue.shift() as Pending;
    this.inFlight = p;
    p.timer = this.o.clock.setTimeout(
      () => this.finish(new Error(`no answer to ${p.cmd} within ${this.o.timeoutMs ?? 300} ms (serial link lost?)`)),
      this.o.timeoutMs ?? 300,
    );
    try {
      this.o.link.write(Buffer.from(p.line, 'latin1'));
    } catch (err) {
      this.finish(new Error(`write failed: ${(err as Error).message}`));
    }
  }

  private finish(result: Frame | Error): void {
    const p = this.inFlight;
    if (!p) return;
    this.inFlight = undefined;
    this.o.clock.clearTimeout(p.timer);
    if (result instanceof Error) p.reject(result);
    else p.resolve(result);
    this.pump();
  }

  private onLine(line: string): void {
    const f = parseFrame(line);
    if (!isFrame(f)) {
      this.rejected++;
      return;
    }
    const p = this.inFlight;
    if (f.cmd === 'NAK' && p) this.finish(new Error(`appliance refused ${p.cmd}: NAK ${f.args[0] ?? ''}`.trim()));
    else if (p && REPLIES[p.cmd]?.includes(f.cmd)) this.finish(f);
    else if (f.cmd === 'FLT') this.fault = f.args[0] ?? '0';
    else this.rejected++;
  }

  close(): Promise<void> {
    if (this.heartbeat !== undefined) this.o.clock.clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    for (const p of [...this.queue, ...(this.inFlight ? [this.inFlight] : [])]) p.reject(new Error('port closed'));
    this.queue.length = 0;
    if (this.inFlight) this.o.clock.clearTimeout(this.inFlight.timer);
    this.inFlight = undefined;
    return new Promise((resolve) => this.o.link.close(() => resolve()));
  }
}

export class SerialApplianceHeater implements HeaterOutput {
  private commanded = 0;

  constructor(
    private readonly client: SerialApplianceClient,
    readonly id: string,
    readonly medium: string,
    readonly sensors: readonly string[],
    readonly maxPowerW: number,
    readonly hardMaxC?: number,
  ) {}

  get power(): number {
    return this.commanded;
  }

  async set(power: number): Promise<void> {
    if (!Number.isFinite(power)) throw new RangeError(`heater "${this.id}": power must be a number in 0..1, got ${power}`);
    const permille = Math.round(Math.max(0, Math.min(1, power)) * 1000);
    this.commanded = permille / 1000;
    // The heat lease rides on every PWR: the appliance switches itself off when no valid frame renews it in time.
    const f = await this.client.request('PWR', permille, APPLIANCE_LEASE_MS);
    const got = intArg(f.args[0], 0, 1000);
    if (got !== permille) {
      this.off();
      throw new Error(`appliance set power ${got ?? '?'}‰ instead of ${permille}‰ (fault ${this.client.fault})`);
    }
  }

  off(): void {
    this.commanded = 0;
    try {
      this.client.writeNow('PWR', 0);
    } catch {
      // never throws: the appliance's own timeout switches it off when the link is gone
    }
  }
}

export class SerialApplianceSensor implements TemperatureSensor {
  constructor(
    private readonly client: SerialApplianceClient,
    private readonly clock: Clock,
    readonly id: string,
    readonly svcSensor: string,
    readonly medium: string,
    readonly accuracyC = 2,
    readonly rangeC = { min: -20, max: 400 },
  ) {}

  async read(): Promise<TemperatureReading> {
    const at = this.clock.now();
    let f: Frame;
    try {
      f = await this.client.request('TMP');
    } catch (err) {
      return { sensor: this.id, tempC: null, at, fault: 'bus_error', detail: (err as Error).message };
    }
    const code = f.cmd === 'ERR' ? (f.args[0] ?? 'E5') : this.client.fault;
    if (code === 'E1') return { sensor: this.id, tempC: null, at, fault: 'open_circuit', detail: FAULT_CODES.E1 };
    if (code === 'E2') return { sensor: this.id, tempC: null, at, fault: 'short', detail: FAULT_CODES.E2 };
    // Any other fault the appliance reports (its own cut-out, boil-dry, internal) makes the reading unusable.
    if (f.cmd === 'ERR' || code !== '0')
      return { sensor: this.id, tempC: null, at, fault: 'bus_error', detail: `appliance fault ${code}: ${FAULT_CODES[code] ?? 'unknown'}` };
    const centi = intArg(f.args[0], -100_000, 1_000_000);
    if (centi === null) return { sensor: this.id, tempC: null, at, fault: 'non_numeric', detail: `TMP ${f.args[0] ?? ''}` };
    const tempC = centi / 100;
    if (tempC < this.rangeC.min || tempC > this.rangeC.max) {
      return {
        sensor: this.id,
        tempC: null,
        at,
        fault: 'out_of_range',
        detail: `${tempC} °C outside ${this.rangeC.min}..${this.rangeC.max} °C`,
      };
    }
    return { sensor: this.id, tempC, at };
  }
}
