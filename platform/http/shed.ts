/**
 * Load shedding near the memory limit: a hub whose memory nears the limit it runs under refuses new requests
 * with a `memory-pressure` problem document (503) and `Retry-After`, so that it gives way before the kernel's
 * OOM killer ends it (and, with KillMode=control-group, its heat guard). Stops are always served: a POST to a
 * path ending in `/estop`, `/stop`, `/abort` or `/pause` (the safety e-stop, the dashboard's, an execution's stop, a
 * session's abort or pause), and every POST to the protocol endpoints whose body, not path, says it is a stop
 * (`/mcp` with its emergency_stop tool, `/graphql` with emergencyStop, `/a2a` with a task cancel).
 *
 * What is compared (memoryReading): with `HEARTH_MEMORY_LIMIT_MB` set, the process's own resident memory; else,
 * as a systemd service, the anonymous memory of its cgroup, or of whichever parent with a limit is fuller (v2 `memory.max` with
 * `memory.stat` anon, or v1 `memory.limit_in_bytes` with `memory.stat` total_rss: the unit's `MemoryMax=` covers
 * hearth and its heat guard together, and page cache is reclaimable, anonymous memory is not). Sampled every
 * 250 ms, not per request.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { problem } from '../../core/problems.js';
import { type BaseUrl, baseOf, PROBLEM_JSON } from './problems.js';

/** Where the limit and the usage are read. */
export interface MemoryReading {
  /** Bytes the limit allows. */
  limit: number;
  /** Bytes in use now (unreclaimable). */
  used: () => number;
  /** Where they come from, for the log. */
  source: string;
}

const CGROUP_ROOT = '/sys/fs/cgroup';

function readNumber(file: string): number | undefined {
  try {
    const text = readFileSync(file, 'utf8').trim();
    const n = Number(text);
    return text === 'max' || !Number.isFinite(n) ? undefined : n;
  } catch {
    return undefined;
  }
}

function statField(file: string, names: string[]): number {
  const text = readFileSync(file, 'utf8');
  for (const name of names) {
    const m = new RegExp(`^${name} (\\d+)$`, 'm').exec(text);
    if (m) return Number(m[1]);
  }
  return 0;
}

/**
 * Every cgroup from `path` up to the hierarchy's root (`mount`) whose `limitFile` sets a limit, nearest first: a
 * limit on a parent (a slice, a container) bounds this process as much as its own, and the kernel acts on
 * whichever fills first. Each one's memory.stat counts its descendants. A path that is not there under the mount
 * (a container that mounts its own cgroup as the root without a cgroup namespace) starts from the mount itself.
 */
function limited(mount: string, path: string, limitFile: string, max: number): { dir: string; limit: number }[] {
  let rel = path === '/' ? '' : path;
  if (!existsSync(`${mount}${rel}`)) rel = '';
  const found: { dir: string; limit: number }[] = [];
  for (;;) {
    const limit = readNumber(`${mount}${rel}/${limitFile}`);
    if (limit !== undefined && limit < max) found.push({ dir: `${mount}${rel}`, limit });
    if (rel === '') return found;
    rel = rel.slice(0, rel.lastIndexOf('/'));
  }
}

/**
 * The reading over the limited cgroups found: the fullest of them at each `used()` (the usage it returns), whose
 * limit `limit` then gives. With one, simply its numbers.
 */
function fullestOf(cgroups: { dir: string; limit: number }[], fields: string[], version: string): MemoryReading | undefined {
  const first = cgroups[0];
  if (!first) return undefined;
  const usage = (c: { dir: string }) => statField(`${c.dir}/memory.stat`, fields);
  if (cgroups.length === 1) return { limit: first.limit, used: () => usage(first), source: `cgroup ${version} ${first.dir}` };
  let picked = first;
  return {
    get limit() {
      return picked.limit;
    },
    used() {
      let best = -1;
      let bestUsed = 0;
      for (const c of cgroups) {
        const u = usage(c);
        if (u / c.limit > best) {
          best = u / c.limit;
          bestUsed = u;
          picked = c;
        }
      }
      return bestUsed;
    },
    source: `cgroup ${version}, the fullest of ${cgroups.map((c) => c.dir).join(', ')}`,
  };
}

/** The memory cgroup of this process and its limit, v2 or v1; undefined without a limit (or outside Linux). */
export function cgroupReading(root = CGROUP_ROOT, self = '/proc/self/cgroup'): MemoryReading | undefined {
  let lines: string[];
  try {
    lines = readFileSync(self, 'utf8').trim().split('\n');
  } catch {
    return undefined;
  }
  // v1: "N:memory:/path" (possibly among other controllers); v2: "0::/path".
  for (const line of lines) {
    const [, controllers, path] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (path === undefined) continue;
    if (controllers?.split(',').includes('memory')) {
      // v1 reports "no limit" as a huge number (a page-rounded 2^63).
      return fullestOf(limited(`${root}/memory`, path, 'memory.limit_in_bytes', 2 ** 60), ['total_rss', 'rss'], 'v1');
    }
    if (controllers === '' && existsSync(`${root}/cgroup.controllers`)) {
      return fullestOf(limited(root, path, 'memory.max', Number.POSITIVE_INFINITY), ['anon'], 'v2');
    }
  }
  return undefined;
}

/**
 * The reading the hub sheds by: `HEARTH_MEMORY_LIMIT_MB` against its own RSS when set; else its cgroup's limit
 * when it runs as a systemd service (`INVOCATION_ID`, set by systemd for every unit) or `HEARTH_MEMORY_LIMIT=cgroup`
 * asks for it. Not any cgroup it happens to be in: a test suite in a memory-limited container shares that
 * cgroup with everything else the container runs, and its hubs must not shed because of it.
 */
export function memoryReading(env: NodeJS.ProcessEnv = process.env): MemoryReading | undefined {
  if (env.HEARTH_MEMORY_LIMIT_MB === undefined && (env.INVOCATION_ID !== undefined || env.HEARTH_MEMORY_LIMIT === 'cgroup')) {
    return cgroupReading();
  }
  const mb = Number(env.HEARTH_MEMORY_LIMIT_MB);
  if (env.HEARTH_MEMORY_LIMIT_MB === undefined || !Number.isFinite(mb) || mb <= 0) return undefined;
  return { limit: mb * 1024 * 1024, used: () => process.memoryUsage.rss(), source: 'HEARTH_MEMORY_LIMIT_MB' };
}

export interface ShedOptions {
  baseUrl: BaseUrl;
  /** Undefined: nothing to shed by (no limit known) until `setReading`. */
  reading: MemoryReading | undefined;
  /** Shed from this share of the limit (default 0.85: room for a GC and the heat guard's own growth). */
  shedAt?: number;
  sampleMs?: number;
  retryAfterS?: number;
}

/** True for the requests that are served whatever the memory: the stops. */
export function alwaysServed(method: string, url: string): boolean {
  if (method !== 'POST') return false;
  const path = url.split('?')[0] ?? '';
  return /\/(estop|stop|abort|pause|mcp|graphql|a2a)\/?$/.test(path);
}

export interface Shedder {
  /** Whether new requests are being refused now. */
  shedding: () => boolean;
  /** Read the usage now (the timer does every sampleMs). */
  sample: () => void;
  /** Shed by another reading from now on (undefined: stop shedding). */
  setReading: (r: MemoryReading | undefined) => void;
  stop: () => void;
}

/** Refuse new requests with 503 `memory-pressure` while the usage is at or above `shedAt` × the limit. */
export function installLoadShedding(app: FastifyInstance, o: ShedOptions): Shedder {
  const retryAfter = String(o.retryAfterS ?? 5);
  let reading = o.reading;
  let over = false;
  let timer: NodeJS.Timeout | undefined;
  const sample = () => {
    try {
      over = reading !== undefined && reading.used() >= reading.limit * (o.shedAt ?? 0.85);
    } catch {
      over = false; // an unreadable counter never refuses service
    }
  };
  const setReading = (r: MemoryReading | undefined) => {
    reading = r;
    if (timer) clearInterval(timer);
    timer = undefined;
    sample();
    if (r === undefined) return;
    timer = setInterval(sample, o.sampleMs ?? 250);
    timer.unref();
  };
  setReading(reading);
  app.addHook('onClose', async () => clearInterval(timer));
  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    if (!over || reading === undefined || alwaysServed(req.method, req.url)) return;
    const used = Math.round(reading.used() / 1048576); // first: it picks the cgroup whose limit is read next
    const limit = reading.limit;
    return reply
      .code(503)
      .header('retry-after', retryAfter)
      .header('connection', 'close')
      .type(PROBLEM_JSON)
      .send(
        problem(
          baseOf(o.baseUrl, req),
          'memory-pressure',
          `the hub is near its memory limit (${used} of ${Math.round(limit / 1048576)} MB); retry in ${retryAfter} s`,
        ),
      );
  });
  return { shedding: () => over, sample, setReading, stop: () => clearInterval(timer) };
}
