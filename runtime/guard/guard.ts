/**
 * The heat guard: a small process, separate from hearth, that alone holds the heater output lines and keeps
 * a heater on only while hearth renews a lease over a unix socket (Klipper's MCU model, in software). When a
 * renewal is late with heat on (hearth frozen by SIGSTOP, swapped out, its loop blocked), it drives every line
 * to its physical off level (drivers/buses/output-level.ts) and tells hearth, which latches a safety stop.
 * When hearth is gone (kill -9, crash, OOM kill) its socket closes: the guard cuts and exits. When the guard
 * itself is told to stop (SIGTERM, SIGINT, SIGHUP) it cuts, tells hearth which signal (`S`), and exits; when it
 * fails, it cuts before it exits. It feeds the hardware
 * watchdog, when one is configured, only while leases are healthy.
 *
 * Deliberately tiny: node built-ins, the off-level authority and the pin files, nothing else, so it starts fast
 * and stays small (docs/safety.md, "The heat guard").
 */
import { closeSync, constants, existsSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { PinFile } from '../../drivers/buses/pin-file.js';
import { controlActive } from '../../safety/controls.js';
import type { GuardSpec } from './spec.js';

export interface GuardIo {
  log(message: string): void;
  ready(): void;
  exit(code: number): void;
}

const QUIT = 'hearth asked the guard to stop';
const now = () => performance.timeOrigin + performance.now();

export function runGuard(spec: GuardSpec, io: GuardIo): void {
  const pins = new Map<string, PinFile>();
  for (const l of spec.lines) pins.set(l.heater, new PinFile(spec.root, l.line, l.activeLow, spec.simulated));
  let client: Socket | undefined;
  let connectedOnce = false;
  let lastRenew = now();
  let tripped = false;
  let leaving = false;
  const startedAt = now();
  const parent = process.ppid;

  /** Every line to its off level; true when each reads back off. */
  const allOff = (): boolean => {
    let ok = true;
    for (const p of pins.values()) if (!p.off()) ok = false;
    return ok;
  };

  let watchdogFd = -1;
  if (spec.watchdogDevice) {
    try {
      watchdogFd = openSync(spec.watchdogDevice, constants.O_WRONLY);
    } catch (err) {
      io.log(`cannot open the hardware watchdog ${spec.watchdogDevice}: ${(err as Error).message}`);
    }
  }
  /** Disarm the hardware watchdog (magic close) only once every line is verified off. */
  const releaseWatchdog = (linesOff: boolean) => {
    if (watchdogFd < 0) return;
    try {
      if (linesOff) writeSync(watchdogFd, 'V');
      closeSync(watchdogFd);
    } catch {
      // the board resets on its own if the watchdog stays armed
    }
    watchdogFd = -1;
  };

  /** Leave: cut first when asked (`cut`), tell hearth `say` (a line) when given, then exit. */
  const leave = (code: number, why: string, cut: boolean, say?: string) => {
    if (leaving) return;
    leaving = true;
    const off = cut ? allOff() : false;
    releaseWatchdog(off);
    // A clean stop that cut everything says nothing (hearth's own stop is already logged).
    if (!(code === 0 && why === QUIT && off))
      io.log(
        `${why}; ${cut ? (off ? 'every heater line off' : 'A HEATER LINE DID NOT READ BACK OFF') : 'lines left as they are'}; exiting`,
      );
    // The line goes out before the socket closes (a unix socket write is done at once, and end() flushes).
    if (say && client && !client.destroyed) client.end(say);
    else client?.destroy();
    server.close();
    try {
      unlinkSync(spec.socket);
    } catch {
      // already gone
    }
    io.exit(code);
  };

  /** Hearth is gone: cut (the lease control) and leave. */
  const mainLost = (why: string) => leave(0, why, controlActive('heat-guard-lease'));

  const healthy = () => client !== undefined && !tripped && now() - lastRenew <= spec.leaseMs;

  const lapse = (lateMs: number) => {
    const on = [...pins].filter(([, p]) => p.on).map(([h]) => h);
    // A lapse with every line off has nothing to make safe (an idle hub paused by load).
    if (on.length === 0 || tripped) return;
    // The mutation run's "heat-guard-lease" mutant: a late renewal cuts nothing.
    if (!controlActive('heat-guard-lease')) return;
    const cutAt = now();
    allOff();
    tripped = true;
    io.log(`no lease renewal for ${Math.round(lateMs)} ms with heat on: cut ${on.join(', ')}`);
    // When it cut (epoch ms): hearth names whichever control cut first (docs/safety.md).
    client?.write(`T ${Math.round(lateMs)} ${on.join(',')} ${Math.round(cutAt)}\n`);
  };

  const onLine = (line: string) => {
    const [cmd, a, b] = line.trim().split(' ');
    if (cmd === 'R') lastRenew = now();
    else if (cmd === 'W' && a !== undefined) {
      lastRenew = now();
      const pin = pins.get(a);
      if (!pin) client?.write(`X ${a} not-held\n`);
      else if (b === '1' && tripped) {
        pin.off();
        client?.write(`X ${a} tripped\n`);
      } else pin.write(b === '1');
      // The write is on the wire (or refused): hearth may count it done (a manual clock waits for this).
      client?.write(`K ${a}\n`);
    } else if (cmd === 'A') {
      lastRenew = now();
      tripped = false;
    } else if (cmd === 'Q') leave(0, QUIT, true);
  };

  const server = createServer((sock) => {
    if (client || leaving) {
      sock.destroy();
      return;
    }
    client = sock;
    connectedOnce = true;
    lastRenew = now();
    let buf = '';
    sock.setEncoding('utf8');
    sock.on('data', (chunk: string) => {
      buf += chunk;
      let i = buf.indexOf('\n');
      while (i >= 0) {
        onLine(buf.slice(0, i));
        buf = buf.slice(i + 1);
        i = buf.indexOf('\n');
      }
      if (buf.length > 4096) buf = '';
    });
    sock.on('error', () => {});
    sock.on('close', () => mainLost('hearth closed the lease socket (exited or was killed)'));
  });

  const tick = () => {
    if (leaving) return;
    if (process.ppid !== parent) return mainLost('hearth (the parent process) is gone');
    if (!connectedOnce) {
      if (now() - startedAt > spec.connectMs) leave(1, `hearth did not connect within ${spec.connectMs} ms`, true);
      return;
    }
    const late = now() - lastRenew;
    if (late <= spec.leaseMs) return;
    // This process may itself have been delayed: read any renewals already waiting on the socket (the poll
    // phase runs before setImmediate) before deciding the lease has lapsed.
    setImmediate(() => {
      const lateNow = now() - lastRenew;
      if (lateNow > spec.leaseMs) lapse(lateNow);
    });
  };
  setInterval(tick, spec.checkMs);

  if (watchdogFd >= 0)
    setInterval(() => {
      if (!healthy()) return;
      try {
        writeSync(watchdogFd, '.');
      } catch (err) {
        io.log(`hardware watchdog feed failed: ${(err as Error).message}`);
      }
    }, spec.watchdogFeedMs);

  // A stop signal (Ctrl-C reaches the whole process group, `systemctl stop` the whole cgroup, hearth included):
  // cut at once, then tell hearth it was a signal (`S`), not a death, before the socket closes. Hearth, stopping
  // on the same signal, records no trip; a guard stopped while hearth runs on is a fault there (client.ts).
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => leave(0, `guard got ${sig}`, true, `S ${sig}\n`));
  process.on('uncaughtException', (err) => leave(1, `guard failed: ${err.message}`, true));

  if (existsSync(spec.socket)) unlinkSync(spec.socket);
  server.on('error', (err) => leave(1, `guard socket ${spec.socket}: ${err.message}`, true));
  server.listen(spec.socket, () => io.ready());
}
