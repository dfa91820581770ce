/**
 * What `hearth start` tells the heat guard (runtime/guard/guard.ts) at spawn, and the line protocol between
 * them over the guard's unix socket. Main → guard: `R` (renew the lease), `W <heater> <0|1>` (drive a heater's
 * line; also renews), `A` (a trip was heard and latched), `Q` (shut down: every line off, exit). Guard →
 * main: `T <lateMs> <heater,…> <cutAt>` (a renewal was late with heat on: those lines were cut at `cutAt`, epoch
 * ms), `K <heater>` (a write is on the wire), `X <heater> <why>` (a write refused) and `S <signal>` (the guard got a
 * stop signal and cut every line; it closes the socket next). Lines end with `\n`.
 */

export interface GuardLine {
  heater: string;
  /**
   * The number of the line's value file under `root` (`<root>/gpio<line>/value`): on hardware the kernel's sysfs
   * number, resolved from the rig file's header number by drivers/rig-config-gpio.ts (GPIO17 is 529 on a Pi 4
   * with kernel 6.6), never the header number itself.
   */
  line: number;
  activeLow: boolean;
}

export interface GuardSpec {
  /** The unix socket the guard listens on (in the data directory). */
  socket: string;
  /** The sysfs GPIO root, or the simulated rig's wire folder. */
  root: string;
  /** `root` is the simulated rig's plain folder, not sysfs. */
  simulated: boolean;
  lines: GuardLine[];
  /** A renewal later than this (real ms) with heat on cuts every line. */
  leaseMs: number;
  /** How often the guard checks the lease (real ms). */
  checkMs: number;
  /** How long the guard waits for hearth to connect before it gives up (real ms). */
  connectMs: number;
  /** Hardware watchdog device fed while leases are healthy; never set in tests. */
  watchdogDevice?: string;
  /** Feed period for the hardware watchdog (real ms). */
  watchdogFeedMs: number;
}

/**
 * Lease timing, chosen from the soak benchmark (`npm run bench -- soak`, docs/performance.md): hearth renews
 * every 100 ms; the guard cuts when no renewal came for 600 ms and checks every 50 ms, so a stall is cut within
 * about 650 ms of the last renewal (the spec bound is 1 s), and a main loop delayed by load for less than half a
 * second does not trip.
 */
export const GUARD_TIMING = { renewMs: 100, leaseMs: 600, checkMs: 50, connectMs: 60_000, watchdogFeedMs: 1000 } as const;

/** Parse and check a spec passed on the guard's command line; throws with the reason. */
export function parseGuardSpec(text: string): GuardSpec {
  const s = JSON.parse(text) as Partial<GuardSpec>;
  const num = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0;
  if (typeof s.socket !== 'string' || typeof s.root !== 'string' || !Array.isArray(s.lines))
    throw new Error('spec needs socket, root and lines');
  if (!num(s.leaseMs) || !num(s.checkMs) || !num(s.connectMs) || !num(s.watchdogFeedMs))
    throw new Error('spec needs positive leaseMs, checkMs, connectMs and watchdogFeedMs');
  for (const l of s.lines)
    if (typeof l?.heater !== 'string' || !/^[a-z][a-z0-9_-]{0,31}$/.test(l.heater) || !Number.isInteger(l.line))
      throw new Error(`bad line in spec: ${JSON.stringify(l)}`);
  return s as GuardSpec;
}
