/**
 * The serial appliance line protocol (docs/hardware.md): ASCII frames `$BODY*CS\n`, where BODY is
 * `CMD[,arg...]` and CS is the XOR of BODY's bytes as two upper-case hex digits. Parsing is strict: anything
 * else is rejected with a reason, never guessed at.
 */

export const MAX_LINE = 64;
/** The heat lease a host asks for with `PWR,<permille>,<leaseMs>` (ms), and the bounds an appliance accepts. */
export const APPLIANCE_LEASE_MS = 2000;
export const MIN_LEASE_MS = 100;
export const MAX_LEASE_MS = 10_000;
export const FAULT_CODES: Record<string, string> = {
  '0': 'no fault',
  E1: 'probe open circuit',
  E2: 'probe short circuit',
  E3: 'appliance over-temperature cut-out',
  E4: 'boil-dry detected',
  E5: 'internal fault',
};

export interface Frame {
  cmd: string;
  args: string[];
}

export function checksum(body: string): string {
  let x = 0;
  for (let i = 0; i < body.length; i++) x ^= body.charCodeAt(i);
  return x.toString(16).toUpperCase().padStart(2, '0');
}

export function encodeFrame(cmd: string, ...args: Array<string | number>): string {
  const body = [cmd, ...args.map(String)].join(',');
  return `$${body}*${checksum(body)}\n`;
}

const FRAME = /^\$([A-Z]{3}(?:,[A-Za-z0-9-]{1,8}){0,3})\*([0-9A-F]{2})$/;

/** Parse one line (without its newline). Returns the frame or the reason it is invalid (SYN or CS). */
export function parseFrame(line: string): Frame | { error: 'SYN' | 'CS'; line: string } {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (text.length > MAX_LINE) return { error: 'SYN', line: text.slice(0, MAX_LINE) };
  const m = FRAME.exec(text);
  if (!m) return { error: 'SYN', line: text };
  const body = m[1] as string;
  if (checksum(body) !== m[2]) return { error: 'CS', line: text };
  const [cmd, ...args] = body.split(',');
  return { cmd: cmd as string, args };
}

export function isFrame(x: ReturnType<typeof parseFrame>): x is Frame {
  return 'cmd' in x;
}

/** A strictly decimal integer within bounds, or null. */
export function intArg(s: string | undefined, min: number, max: number): number | null {
  if (s === undefined || !/^-?\d{1,7}$/.test(s)) return null;
  const n = Number(s);
  return n >= min && n <= max ? n : null;
}

/** Split a byte stream into lines; over-long lines are cut and reported as they are (the parser rejects them). */
export class LineSplitter {
  private buf = '';

  push(chunk: Buffer | string, onLine: (line: string) => void): void {
    this.buf += chunk.toString('latin1');
    for (let i = this.buf.indexOf('\n'); i >= 0; i = this.buf.indexOf('\n')) {
      const line = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 1);
      onLine(line);
    }
    if (this.buf.length > MAX_LINE * 4) {
      onLine(this.buf);
      this.buf = '';
    }
  }
}
