/**
 * The test cgroup helper (cgroup.ts) against the machine's real cgroups: a process started inside is charged
 * there, the counters read what it holds, an allocation past the limit is an OOM kill the counter sees, and
 * nothing is left behind (a remove kills what is still inside; a cgroup left by a dead test process is swept).
 * Skipped, with the reason, where memory cgroups cannot be made (not root, no memory controller, read-only).
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from 'tap';
import { createMemoryCgroup, memoryCgroupUnavailable } from './cgroup.js';

/** Whether any swap area is active (/proc/swaps lists one below its header). */
function swapOn(): boolean {
  try {
    return readFileSync('/proc/swaps', 'utf8').trim().split('\n').length > 1;
  } catch {
    return false;
  }
}

const MB = 1024 * 1024;
const unavailable = memoryCgroupUnavailable();

/** A node process that fills `mb` MB of Buffers 4 MB at a time, then prints `held` and waits. */
const HOG =
  'const b=[];for(let i=0;i<Number(process.argv[1]);i+=4)b.push(Buffer.alloc(4<<20,1));console.log("held");setInterval(()=>b.length,1e3)';

function held(child: ChildProcess): Promise<'held' | 'exited'> {
  return new Promise((resolve) => {
    child.stdout?.on('data', (d: Buffer) => d.toString().includes('held') && resolve('held'));
    child.once('exit', () => resolve('exited'));
  });
}

const exited = (child: ChildProcess) =>
  new Promise<NodeJS.Signals | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.signalCode);
    else child.once('exit', (_code, signal) => resolve(signal));
  });

t.test(
  'a process started inside is charged there; an allocation past the limit is an OOM kill the counter sees',
  { skip: unavailable },
  async (t) => {
    const cg = createMemoryCgroup(96 * MB);
    t.teardown(() => cg.remove());
    t.ok(existsSync(cg.dir), `made ${cg.version === 1 ? 'a v1' : 'a v2'} cgroup`);
    t.equal(cg.limit, 96 * MB);
    t.same(cg.procs(), [], 'empty at first');

    const small = cg.spawn(process.execPath, ['-e', HOG, '32'], { stdio: ['ignore', 'pipe', 'inherit'] });
    t.equal(await held(small), 'held', 'a 32 MB allocation fits');
    t.same(cg.procs(), [small.pid], 'the process is inside (the shell that started it became it)');
    t.ok(cg.anon() >= 32 * MB, `its 32 MB are charged as anonymous memory (${(cg.anon() / MB).toFixed(1)} MB)`);
    t.ok(cg.usage() >= cg.anon(), 'usage covers the anonymous memory');
    const peak = cg.peak();
    if (peak !== undefined) t.ok(peak >= cg.usage(), 'the peak is at least the usage');
    t.equal(cg.oomKills(), 0, 'no OOM kill yet');
    small.kill('SIGKILL');
    await exited(small);
    const hog = await cg.fillTo(64 * MB);
    const filled = cg.anon();
    t.ok(filled >= 64 * MB && filled < 96 * MB, `fillTo: 64 MB and more, under the limit (${(filled / MB).toFixed(1)} MB)`);
    hog.kill('SIGKILL');
    await exited(hog);

    // With swap on, the limit (memory only, as the unit's) pushes the hog to swap instead of killing it.
    if (swapOn()) {
      t.comment('swap is on: the OOM kill is not shown on this machine');
      return;
    }
    const big = cg.spawn(process.execPath, ['-e', HOG, '400'], { stdio: ['ignore', 'pipe', 'inherit'] });
    t.equal(await held(big), 'exited', 'a 400 MB allocation does not fit');
    t.equal(await exited(big), 'SIGKILL', 'the kernel killed it');
    t.ok(cg.oomKills() >= 1, `the OOM kill is counted (${cg.oomKills()})`);
    t.ok(cg.limitHits() > 0, 'the limit was hit');
  },
);

t.test(
  'remove kills what is still inside and leaves nothing; a dead test process leaves nothing either',
  { skip: unavailable },
  async (t) => {
    const cg = createMemoryCgroup(64 * MB);
    const child = cg.spawn(process.execPath, ['-e', HOG, '4'], { stdio: ['ignore', 'pipe', 'inherit'] });
    t.equal(await held(child), 'held');
    await cg.remove();
    t.equal(await exited(child), 'SIGKILL', 'the process inside was killed');
    t.notOk(existsSync(cg.dir), 'the cgroup is gone');
    await cg.remove();
    t.pass('a second remove is harmless');

    // A cgroup named for a test process that is gone (killed before its teardown): the next create removes it.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    const stale = join(dirname(cg.dir), `hearth-test-${dead}-1`);
    mkdirSync(stale);
    const next = createMemoryCgroup(64 * MB);
    t.teardown(() => next.remove());
    t.notOk(existsSync(stale), 'the stale cgroup was swept');
  },
);

t.test('where cgroups cannot be made, the reason says why', async (t) => {
  t.ok(unavailable === undefined || unavailable.length > 10, unavailable ?? 'memory cgroups are available here');
});
