/**
 * A memory cgroup for a test (root only): create one with a limit, start processes inside it, read its counters,
 * remove it. cgroup v1 (`/sys/fs/cgroup/memory`: memory.limit_in_bytes, memory.oom_control, memory.failcnt,
 * memory.max_usage_in_bytes, memory.stat total_rss) and v2 (`/sys/fs/cgroup` with the memory controller:
 * memory.max, memory.events, memory.peak, memory.stat anon), whichever the machine has.
 *
 * A test cgroup is made below the cgroup this process is in (so whatever limits the test run itself stays above
 * it), else at the root of the hierarchy; it is named `hearth-test-<pid>-<n>`. `remove` kills what is left in
 * it and removes it; every cgroup still there when this process exits is removed then, and one left by a test
 * process that was killed outright is removed by the next `createMemoryCgroup` (its pid is gone).
 *
 * Processes are started inside (`spawn`) rather than moved in: a shell writes its own pid into `cgroup.procs`
 * and then execs the command, so every page the command ever touches is charged here (memory a process had
 * before a move stays charged where it was).
 */
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = '/sys/fs/cgroup';

export type CgroupVersion = 1 | 2;

export interface MemoryCgroup {
  version: CgroupVersion;
  /** The cgroup's directory. */
  dir: string;
  /** The limit set, bytes. */
  limit: number;
  /** The pids inside now. */
  procs(): number[];
  /** Start `cmd args` inside the cgroup (through /bin/sh, which moves itself in and execs the command). */
  spawn(cmd: string, args: readonly string[], opts?: SpawnOptions): ChildProcess;
  /** Bytes charged now (v1 memory.usage_in_bytes, v2 memory.current: page cache included). */
  usage(): number;
  /** The most ever charged (v1 memory.max_usage_in_bytes, v2 memory.peak; undefined on a v2 kernel without it). */
  peak(): number | undefined;
  /** Anonymous memory now (v1 memory.stat total_rss, v2 anon): what the hub sheds by (platform/http/shed.ts). */
  anon(): number;
  /** Processes the kernel's OOM killer killed in this cgroup (v1 memory.oom_control oom_kill, v2 memory.events oom_kill). */
  oomKills(): number;
  /** Times the usage hit the limit (v1 memory.failcnt, v2 memory.events max). */
  limitHits(): number;
  /**
   * Start a memory hog inside: a node process that allocates (and touches) 1 MB at a time until the cgroup's
   * anonymous memory reaches `bytes`, then holds it. Resolves with the process once it holds.
   */
  fillTo(bytes: number): Promise<ChildProcess>;
  /** Kill whatever is left inside and remove the cgroup; idempotent. */
  remove(): Promise<void>;
}

/** The hog's program: argv[1] the memory.stat file, argv[2] the field, argv[3] the bytes to reach. */
const HOG = [
  'const [file, name, want] = process.argv.slice(1);',
  "const used = () => Number(new RegExp('^' + name + ' (\\\\d+)$', 'm').exec(require('fs').readFileSync(file, 'utf8'))[1]);",
  'const held = [];',
  'while (used() < Number(want)) held.push(Buffer.alloc(1 << 20, 1));',
  "console.log('held ' + held.length);",
  'setInterval(() => held.length, 1000);',
].join('\n');

interface Hierarchy {
  version: CgroupVersion;
  /** Where the memory hierarchy is mounted. */
  mount: string;
  /** Where to make test cgroups, best first: below this process's own cgroup, then the hierarchy's root. */
  parents: string[];
}

const read = (file: string) => readFileSync(file, 'utf8');
const field = (text: string, name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? Number.NaN);

/** This process's path in a hierarchy from /proc/self/cgroup: the v1 memory controller's, or v2's (`0::`). */
function ownPath(version: CgroupVersion, self: string): string | undefined {
  for (const line of self.trim().split('\n')) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!m) continue;
    if (version === 1 && m[1]?.split(',').includes('memory')) return m[2];
    if (version === 2 && m[1] === '') return m[2];
  }
  return undefined;
}

function hierarchy(): Hierarchy | string {
  if (process.platform !== 'linux') return 'not Linux: no cgroups';
  let self: string;
  try {
    self = read('/proc/self/cgroup');
  } catch {
    return 'no /proc/self/cgroup';
  }
  let version: CgroupVersion;
  let mount: string;
  if (existsSync(join(ROOT, 'memory', 'memory.limit_in_bytes'))) {
    version = 1;
    mount = join(ROOT, 'memory');
  } else if (existsSync(join(ROOT, 'cgroup.controllers')) && read(join(ROOT, 'cgroup.controllers')).split(/\s+/).includes('memory')) {
    version = 2;
    mount = ROOT;
  } else return `neither cgroup v1's memory controller (${ROOT}/memory) nor cgroup v2 with memory (${ROOT}) is mounted`;
  const own = ownPath(version, self);
  const parents = [...(own && own !== '/' ? [join(mount, own)] : []), mount].filter((d) => existsSync(d));
  return { version, mount, parents };
}

/** Why memory cgroups cannot be used here, or undefined when they can (checked by making and removing one). */
export function memoryCgroupUnavailable(): string | undefined {
  if (typeof process.getuid === 'function' && process.getuid() !== 0) return 'not root: cgroups are not writable';
  const h = hierarchy();
  if (typeof h === 'string') return h;
  try {
    const dir = makeDir(h, `hearth-probe-${process.pid}`);
    rmdirSync(dir);
    return undefined;
  } catch (err) {
    return `cannot make a memory cgroup: ${(err as Error).message}`;
  }
}

/** Make `name` below the first parent where a child gets memory files (v2 needs the controller enabled there). */
function makeDir(h: Hierarchy, name: string): string {
  const errors: string[] = [];
  for (const parent of h.parents) {
    const dir = join(parent, name);
    try {
      if (h.version === 2) {
        try {
          writeFileSync(join(parent, 'cgroup.subtree_control'), '+memory');
        } catch {
          // already on, or not allowed here (a v2 cgroup with processes of its own): the check below tells
        }
      }
      if (!existsSync(dir)) mkdirSync(dir);
      if (existsSync(join(dir, h.version === 1 ? 'memory.limit_in_bytes' : 'memory.max'))) return dir;
      rmdirSync(dir);
      errors.push(`${parent}: no memory controller in its children`);
    } catch (err) {
      errors.push(`${parent}: ${(err as Error).message}`);
    }
  }
  throw new Error(errors.join('; '));
}

const pidsIn = (dir: string) => read(join(dir, 'cgroup.procs')).split('\n').filter(Boolean).map(Number);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** SIGKILL everything in `dir` until it is empty (bounded), then remove it. True when it is gone. */
function killAndRemoveSync(dir: string, tries = 200): boolean {
  for (let i = 0; i < tries && existsSync(dir); i++) {
    let pids: number[] = [];
    try {
      pids = pidsIn(dir);
    } catch {
      return !existsSync(dir);
    }
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    try {
      if (pids.length === 0) rmdirSync(dir);
    } catch {
      // a process still on its way out: try again
    }
    if (existsSync(dir)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
  }
  return !existsSync(dir);
}

const live = new Set<string>();
let exitHook = false;
let seq = 0;

/** Remove test cgroups left by test processes that no longer run (killed before their teardown). */
function sweepStale(h: Hierarchy): void {
  for (const parent of h.parents) {
    let names: string[] = [];
    try {
      names = readdirSync(parent);
    } catch {
      continue;
    }
    for (const name of names) {
      const m = /^hearth-(?:test|probe)-(\d+)(?:-\d+)?$/.exec(name);
      if (m && Number(m[1]) !== process.pid && !alive(Number(m[1]))) killAndRemoveSync(join(parent, name));
    }
  }
}

/** A new memory cgroup limited to `limitBytes`; throws when none can be made (call memoryCgroupUnavailable first). */
export function createMemoryCgroup(limitBytes: number): MemoryCgroup {
  const h = hierarchy();
  if (typeof h === 'string') throw new Error(h);
  sweepStale(h);
  const dir = makeDir(h, `hearth-test-${process.pid}-${++seq}`);
  live.add(dir);
  if (!exitHook) {
    exitHook = true;
    const cleanUp = (tries?: number) => {
      for (const d of live) killAndRemoveSync(d, tries);
    };
    process.once('exit', () => cleanUp());
    // A signal ends the test process without an exit handler: tap's timeout sends SIGALRM and SIGKILL half a
    // second later, so the processes inside are killed first and the removal gets a few short tries (a cgroup
    // left behind is swept by the next run), then the process dies of the signal as before.
    for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGALRM'] as const)
      process.once(sig, () => {
        cleanUp(8);
        process.kill(process.pid, sig);
      });
  }
  const v1 = h.version === 1;
  try {
    // The limit only, as the unit's MemoryMax= sets it (swap, where a machine has it, is not limited).
    writeFileSync(join(dir, v1 ? 'memory.limit_in_bytes' : 'memory.max'), String(limitBytes));
  } catch (err) {
    killAndRemoveSync(dir);
    live.delete(dir);
    throw err;
  }
  const num = (file: string) => Number(read(join(dir, file)).trim());
  return {
    version: h.version,
    dir,
    limit: limitBytes,
    procs: () => pidsIn(dir),
    spawn(cmd, args, opts = {}) {
      // $0 is the procs file, "$@" the command: the shell moves itself in, then becomes the command.
      return spawn('/bin/sh', ['-c', 'echo $$ > "$0" && exec "$@"', join(dir, 'cgroup.procs'), cmd, ...args], opts);
    },
    usage: () => num(v1 ? 'memory.usage_in_bytes' : 'memory.current'),
    peak: () => {
      const file = join(dir, v1 ? 'memory.max_usage_in_bytes' : 'memory.peak');
      return existsSync(file) ? Number(read(file).trim()) : undefined;
    },
    anon: () => field(read(join(dir, 'memory.stat')), v1 ? 'total_rss' : 'anon'),
    oomKills: () => field(read(join(dir, v1 ? 'memory.oom_control' : 'memory.events')), 'oom_kill'),
    limitHits: () => (v1 ? num('memory.failcnt') : field(read(join(dir, 'memory.events')), 'max')),
    fillTo(bytes) {
      const hog = this.spawn(process.execPath, ['-e', HOG, join(dir, 'memory.stat'), v1 ? 'total_rss' : 'anon', String(bytes)], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      return new Promise((resolve, reject) => {
        hog.stdout?.on('data', (d: Buffer) => d.toString().includes('held') && resolve(hog));
        hog.once('exit', (code, signal) => reject(new Error(`the memory hog exited (${signal ?? code}) before it held`)));
      });
    },
    async remove() {
      if (!live.has(dir)) return;
      for (let i = 0; i < 3 && !killAndRemoveSync(dir); i++) await new Promise((r) => setTimeout(r, 200));
      if (existsSync(dir)) throw new Error(`cannot remove the test cgroup ${dir}: still holds ${pidsIn(dir).join(', ')}`);
      live.delete(dir);
    },
  };
}
