// @slow: starts `hearth start` and its heat guard inside memory cgroups and sends them the hostile mix (npm run test:fast skips this file)
/**
 * Issue 26 on a small board's terms: `hearth start` and its heat guard inside one memory cgroup limited to 192 MB,
 * the unit's `MemoryMax=` (systemd/hearth.service), with the unit's environment (MALLOC_ARENA_MAX=2) and shedding by
 * the cgroup's numbers as under the unit. The hostile mix of `npm run fuzz` comes from outside the cgroup (this
 * process) over real sockets, and between its rounds a heater is brought up and a stop sent over each path (REST,
 * REST with any body, the dashboard, MCP, MQTT, the rig's button) while the mix goes on.
 *
 * Judged from outside hearth: the kernel's OOM-kill counter of the cgroup, both processes alive, the wire levels in
 * the value files the guard drives (every stop cut the heat), and a status read answered 200 afterwards.
 *
 * Then the shedding: a memory hog started inside the same cgroup pushes its anonymous memory past the hub's shed
 * threshold (85 % of the limit, platform/http/shed.ts): new requests get 503 `memory-pressure` with Retry-After,
 * an e-stop is still served and the guard still cuts the wire, nobody is OOM-killed, and once the hog is gone the
 * hub answers again. Skipped, with the reason, where memory cgroups cannot be made (not root, no controller).
 */
import { existsSync } from 'node:fs';
import t, { type Test } from 'tap';
import { createMemoryCgroup, type MemoryCgroup, memoryCgroupUnavailable } from '../../test-support/cgroup.js';
import { type CgroupHub, energizedHeaters, processMb, STOPS, startHubInCgroup, unitMemory, until } from '../../test-support/cgroup-hub.js';
import { hostileMix } from '../../test-support/cgroup-mix.js';
import { heatOn } from '../../test-support/guard-scenarios.js';

const MB = 1024 * 1024;
/** The unit's MemoryMax= (192M). */
const LIMIT = unitMemory().memoryMax;
/** Hostile requests in the run (HEARTH_CGROUP_REQUESTS for a longer one by hand; `npm run fuzz` sends 30,000). */
const REQUESTS = Number(process.env.HEARTH_CGROUP_REQUESTS) || 3000;
const unavailable = memoryCgroupUnavailable();

const alive = (pid: number | undefined) => {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const mb = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : `${(bytes / MB).toFixed(1)} MB`);

/** A cgroup of `LIMIT` with a hub inside; both gone at teardown, whatever happened. */
async function hubIn(t: Test): Promise<{ cg: MemoryCgroup; hub: CgroupHub; guard: number }> {
  const cg = createMemoryCgroup(LIMIT);
  t.teardown(() => cg.remove());
  const hub = await startHubInCgroup(cg);
  t.teardown(() => hub.stop());
  const line =
    hub
      .output()
      .split('\n')
      .find((l) => l.includes('memory limit: shedding load near it')) ?? '';
  t.match(
    line,
    `"limitMb":${Math.round(LIMIT / MB)},"source":"cgroup v${cg.version} ${cg.dir}"`,
    'the hub sheds by the numbers of this cgroup',
  );
  const guard = (await until(() => hub.guardPid() !== undefined, 30_000)) ? hub.guardPid() : undefined;
  if (guard === undefined) throw new Error('no heat guard in the cgroup');
  return { cg, hub, guard };
}

/** Reset whatever the last stop latched (the button released first), so a heater can come on again. */
async function clearStop(hub: CgroupHub): Promise<void> {
  await hub.call('POST', '/sim/v1/estop', { pressed: false });
  const state = (await hub.call('GET', '/sim/v1/state')).body as { supervisor?: { latched?: boolean } };
  if (state.supervisor?.latched) {
    const r = await hub.call('POST', '/svc/v1/safety/reset', {});
    if (r.status !== 200) throw new Error(`reset answered ${r.status}: ${JSON.stringify(r.body)}`);
  }
}

t.test(
  '192 MB: hub and guard through the hostile mix, no OOM kill, every stop cuts the heat, the hub answers after',
  { skip: unavailable },
  async (t) => {
    const { cg, hub, guard } = await hubIn(t);
    const peak = { anon: cg.anon(), hub: 0, guard: 0 };
    const sampler = setInterval(() => {
      peak.anon = Math.max(peak.anon, cg.anon());
      peak.hub = Math.max(peak.hub, processMb(hub.pid)?.rss ?? 0);
      peak.guard = Math.max(peak.guard, processMb(guard)?.rss ?? 0);
    }, 100);
    t.teardown(() => clearInterval(sampler));
    const before = { anon: cg.anon(), hub: processMb(hub.pid), guard: processMb(guard) };

    const mix = hostileMix(hub, 26);
    const stops: { via: string; status: number; heater: string; cut: boolean }[] = [];
    const vias = Object.keys(STOPS);
    let lastExecution = '';
    let preempted = 0;
    for (const via of vias) {
      // The mix sends stops of its own (valid tokens among its calls): when one cuts the heat before ours goes out,
      // the round still runs and ours is tried again with the heat on.
      let sent = false;
      for (let attempt = 0; attempt < 4 && !sent; attempt++) {
        await clearStop(hub);
        const heater = await heatOn(hub);
        lastExecution = ((await hub.call('GET', '/sim/v1/state')).body.activeExecution as string | null) ?? lastExecution;
        // The stop goes out while this round of the mix is under way.
        const sentBefore = mix.sent();
        const round = mix.run(Math.floor(REQUESTS / vias.length));
        await until(() => mix.sent() >= sentBefore + 8, 10_000);
        if (hub.energized(heater)) {
          const status = await (STOPS[via] as (h: CgroupHub) => Promise<number>)(hub);
          const cut = await until(() => energizedHeaters(hub).length === 0, 10_000);
          stops.push({ via, status, heater, cut });
          sent = true;
        } else preempted++;
        await round;
      }
      t.ok(sent, `${via}: a stop went out with a heater on`);
    }
    const after = { anon: cg.anon(), hub: processMb(hub.pid), guard: processMb(guard) };
    clearInterval(sampler);

    for (const s of stops) t.ok(s.cut, `${s.via} (answered ${s.status}): every heater wire off ("${s.heater}" was on)`);
    t.equal(cg.oomKills(), 0, 'no OOM kill in the cgroup');
    t.ok(alive(hub.pid) && cg.procs().includes(hub.pid), 'the hub is alive, in the cgroup');
    t.ok(alive(guard) && cg.procs().includes(guard), 'the heat guard is alive, in the cgroup');
    t.same(mix.failures, [], 'the mix: no 5xx but shed load, every error a problem document, no hang');
    // Afterwards: a status read, retried as Retry-After asks while the hub might still be shedding.
    const ok = await until(async () => (await hub.call('GET', `/v1/executions/${lastExecution}`)).status === 200, 30_000, 1000);
    t.ok(ok, 'the hub answers a status read 200 after the run');

    t.comment(
      [
        `cgroup v${cg.version}, limit ${mb(LIMIT)}: ${mix.sent()} hostile requests, ${mix.shed()} shed (503 memory-pressure), ${stops.length} stops all cut: ${stops.every((s) => s.cut)} (${preempted} times the mix's own stop came first)`,
        `anonymous memory of the cgroup: before ${mb(before.anon)}, peak ${mb(peak.anon)} (sampled), after ${mb(after.anon)}; usage peak (page cache included) ${mb(cg.peak())}; limit hits ${cg.limitHits()}, OOM kills ${cg.oomKills()}`,
        `hub RSS before ${before.hub?.rss.toFixed(1)} MB (anon ${before.hub?.anon.toFixed(1)}), peak ${peak.hub.toFixed(1)}, after ${after.hub?.rss.toFixed(1)} (anon ${after.hub?.anon.toFixed(1)})`,
        `guard RSS before ${before.guard?.rss.toFixed(1)} MB (anon ${before.guard?.anon.toFixed(1)}), peak ${peak.guard.toFixed(1)}, after ${after.guard?.rss.toFixed(1)} (anon ${after.guard?.anon.toFixed(1)})`,
      ].join('\n'),
    );
    t.ok(existsSync(cg.dir));
  },
);

t.test(
  'near the limit the hub sheds new requests with 503 memory-pressure, an e-stop still cuts the heat, nobody is OOM-killed',
  { skip: unavailable },
  async (t) => {
    const { cg, hub, guard } = await hubIn(t);
    const heater = await heatOn(hub);
    const execution = (await hub.call('GET', '/sim/v1/state')).body.activeExecution as string;
    const status = () => hub.call('GET', `/v1/executions/${execution}`);
    t.equal((await status()).status, 200, 'below the threshold: a status read is served');
    const before = cg.anon();

    // A hog inside the cgroup takes its anonymous memory to 88 %: past the hub's threshold (85 %), short of the
    // limit with room for memory.stat's lag (the kernel updates it in per-CPU batches).
    const hog = await cg.fillTo(Math.round(LIMIT * 0.88));
    t.teardown(() => hog.kill('SIGKILL'));
    const held = cg.anon();
    t.ok(await until(async () => (await status()).status === 503, 30_000, 250), 'the hub starts shedding');
    const refused = await status();
    t.equal(refused.status, 503, 'a status read is refused');
    t.ok(Number(refused.headers.get('retry-after')) > 0, `with Retry-After (${refused.headers.get('retry-after')})`);
    t.match(refused.headers.get('content-type'), /^application\/problem\+json/, 'as a problem document');
    t.match(refused.body, { type: /\/errors\/memory-pressure$/, status: 503 }, 'memory-pressure');
    const cook = await hub.call('POST', '/v1/executions', { kind: 'ExecuteRequest' });
    t.equal(cook.status, 503, 'a new cook is refused');

    t.ok(hub.energized(heater), `"${heater}" still heats while the hub sheds`);
    const stop = await (STOPS.rest as (h: CgroupHub) => Promise<number>)(hub);
    t.ok(stop === 200 || stop === 202, `the e-stop is served while shedding (${stop})`);
    t.ok(await until(() => energizedHeaters(hub).length === 0, 10_000), 'the guard drove every heater wire off');
    t.equal(cg.oomKills(), 0, 'no OOM kill');
    t.ok(alive(hub.pid) && alive(guard), 'the hub and the heat guard are alive');

    hog.kill('SIGKILL');
    t.ok(await until(async () => (await status()).status === 200, 30_000, 250), 'with the hog gone, the hub answers again');
    t.comment(
      `cgroup v${cg.version}, limit ${mb(LIMIT)}, shed from ${mb(LIMIT * 0.85)}: anonymous memory ${mb(before)} before the hog, ${mb(held)} with it; usage peak ${mb(cg.peak())}, limit hits ${cg.limitHits()}, OOM kills ${cg.oomKills()}`,
    );
  },
);
