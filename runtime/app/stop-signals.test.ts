// @slow: starts hubs as processes, dozens of times, and signals their process groups (npm run test:fast skips this file)
/**
 * Stopping is not a fault; dying is (docs/safety.md, "Stopping, dying and the latch"). `hearth start` runs as a
 * terminal or systemd runs it: leading its own process group, which its heat guard joins (test-support/signal-hub.ts).
 * Ctrl-C sends SIGINT to the whole group, `systemctl stop` (KillMode=control-group) SIGTERM to the whole group, a
 * plain `kill` SIGTERM to hearth alone: each must leave every heater wire off, exit 0, record no trip, and let the
 * next start come up unlatched, every time (the group's two processes race on every signal, so each is tried ten
 * times with heat on). A kill -9 (an OOM kill; of the whole group: a power cut) with heat on must bring the next
 * start up latched `unclean_stop`, naming the heater; with no heat on it must not. Frozen (SIGSTOP) or with its loop
 * blocked while heating, the first status after it runs again must tell the wire the guard cut, and the trip must
 * name the control that cut first, with its time (the last two with the guard's and the watchdog's default timing).
 *
 * Everything is judged from outside hearth: the wire levels in the value files the guard drives, the exit status,
 * the group's processes, the latch row in the store file, and what the next start answers. The loops run the
 * simulated rig with a minute of stall tolerance (tolerantRigFile): the lease is not what they are about, and a
 * loaded machine must not latch a watchdog stop in them.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { scratchFiles, tolerantRigFile } from '../../test-support/cli.js';
import { heatOn } from '../../test-support/guard-scenarios.js';
import { groupGone, hubToken, killGroup, type SignalHub, startSignalHub, storedLatch, until } from '../../test-support/signal-hub.js';

const HEATERS = ['fryer', 'pot', 'pan'];

type Supervisor = { latched: boolean; trip?: { reason: string; subject: string; message: string } };
const supervisorOf = async (hub: SignalHub) => (await hub.call('GET', '/sim/v1/state')).body.supervisor as Supervisor;

/** A data directory and rig file kept across the starts of one test, and a hub killed at teardown if one is left. */
async function bench(t: Test, prefix: string) {
  const { dir: root } = scratchFiles(t, prefix);
  const dir = join(root, 'data');
  mkdirSync(dir);
  const rigFile = tolerantRigFile(root);
  const token = await hubToken(dir);
  let current: SignalHub | undefined;
  t.teardown(() => killGroup(current));
  return {
    dir,
    start: async () => {
      current = await startSignalHub({ dir, rigFile, token });
      return current;
    },
  };
}

/**
 * `times` starts on one data directory, each with heat on when `signal` goes to `to`: every one must exit 0 with
 * its whole group, every heater wire off, no trip logged or stored, and the next start not latched.
 */
async function stopsCleanly(t: Test, signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP', to: 'group' | 'hearth', times: number) {
  const b = await bench(t, `hearth-${signal.toLowerCase()}-${to}-`);
  for (let i = 1; i <= times; i++) {
    const hub = await b.start();
    const before = await supervisorOf(hub);
    t.equal(before.latched, false, `start ${i}: not latched${i > 1 ? ' after the previous stop' : ''}`, { trip: before.trip });
    const heater = await heatOn(hub);
    process.kill(to === 'group' ? -hub.pid : hub.pid, signal);
    const end = await groupGone(hub);
    t.same({ code: end.code, groupLeft: end.groupLeft }, { code: 0, groupLeft: false }, `stop ${i}: hearth exits 0 and its guard is gone`);
    t.same(
      HEATERS.filter((h) => hub.energized(h)),
      [],
      `stop ${i}: every wire off (${heater} was on)`,
    );
    t.notMatch(hub.output(), /safety_trip/, `stop ${i}: no trip logged`);
    t.equal(storedLatch(b.dir), undefined, `stop ${i}: no trip stored`);
  }
  const last = await b.start();
  t.equal((await supervisorOf(last)).latched, false, 'the start after the last stop is not latched');
  process.kill(-last.pid, 'SIGTERM');
  t.equal((await groupGone(last)).code, 0);
}

t.test('Ctrl-C (SIGINT to the process group) with heat on, ten times: heat off, no trip, the next start unlatched', (t) =>
  stopsCleanly(t, 'SIGINT', 'group', 10),
);

t.test('systemctl stop (SIGTERM to the whole group) with heat on, ten times: heat off, no trip, unlatched', (t) =>
  stopsCleanly(t, 'SIGTERM', 'group', 10),
);

t.test('SIGTERM to hearth alone with heat on: heat off, no trip, unlatched', (t) => stopsCleanly(t, 'SIGTERM', 'hearth', 3));

t.test('a closed terminal (SIGHUP to the process group) with heat on: heat off, no trip, unlatched', (t) =>
  stopsCleanly(t, 'SIGHUP', 'group', 3),
);

t.test('kill -9 with heat on: the next start is latched unclean_stop until a person resets it; idle, it is not', async (t) => {
  const b = await bench(t, 'hearth-kill9-');
  // An OOM kill: hearth alone dies; its guard sees the socket close and cuts.
  let hub = await b.start();
  const heater = await heatOn(hub);
  process.kill(hub.pid, 'SIGKILL');
  t.equal((await groupGone(hub)).groupLeft, false, 'the guard leaves after hearth died');
  t.same(
    HEATERS.filter((h) => hub.energized(h)),
    [],
    'and has cut the wire',
  );
  hub = await b.start();
  let s = await supervisorOf(hub);
  t.equal(s.latched, true, 'the next start is latched');
  t.equal(s.trip?.reason, 'unclean_stop');
  t.match(s.trip?.message, new RegExp(`"${heater}" .*since \\d{4}-\\d\\d-\\d\\dT`), 'naming what was heating and since when');
  t.equal(storedLatch(b.dir)?.reason, 'unclean_stop', 'and the latch is stored');
  // A person at the appliance resets it.
  await hub.call('POST', '/sim/v1/presence', { present: true });
  const reset = await hub.call('POST', '/svc/v1/safety/reset', {});
  t.equal(reset.status, 200, 'a person resets it');
  t.equal((await supervisorOf(hub)).latched, false);

  // A power cut mid-heat: the whole group dies at once, the guard without cutting.
  await heatOn(hub);
  process.kill(-hub.pid, 'SIGKILL');
  await groupGone(hub);
  hub = await b.start();
  s = await supervisorOf(hub);
  t.equal(s.trip?.reason, 'unclean_stop', 'after a power cut mid-heat the next start is latched too');
  t.same(
    HEATERS.filter((h) => hub.energized(h)),
    [],
    'with every wire off',
  );
  await hub.call('POST', '/sim/v1/presence', { present: true });
  t.equal((await hub.call('POST', '/svc/v1/safety/reset', {})).status, 200);
  t.equal((await supervisorOf(hub)).latched, false);

  // Idle (no heat on): a kill -9 of the whole group is no reason to latch.
  process.kill(-hub.pid, 'SIGKILL');
  await groupGone(hub);
  hub = await b.start();
  s = await supervisorOf(hub);
  t.equal(s.latched, false, 'a kill -9 with no heat on does not latch', { trip: s.trip });
  process.kill(-hub.pid, 'SIGTERM');
  t.equal((await groupGone(hub)).code, 0);
});

t.test('hearth frozen (SIGSTOP) with heat on, then resumed: status tells the wire the guard cut, and who cut first', async (t) => {
  // The guard's default lease and the loop watchdog's default threshold: this is about them.
  const { dir: root, file } = scratchFiles(t, 'hearth-sigstop-');
  const dir = join(root, 'data');
  mkdirSync(dir);
  const rigFile = file('rig.json', { kind: 'simulated' });
  const hub = await startSignalHub({ dir, rigFile, token: await hubToken(dir) });
  t.teardown(() => killGroup(hub));
  const heater = await heatOn(hub);
  process.kill(hub.pid, 'SIGSTOP');
  t.ok(await until(() => !hub.energized(heater), 30_000), 'the guard cuts the wire of the frozen hearth');
  // Frozen past the loop watchdog's threshold too, so that both controls have something to say on resume.
  await new Promise((r) => setTimeout(r, 1500));
  process.kill(hub.pid, 'SIGCONT');
  const [state, safety] = await Promise.all([hub.call('GET', '/sim/v1/state'), hub.call('GET', '/svc/v1/safety')]);
  t.notOk(hub.energized(heater), 'the wire is still off');
  const sim = state.body as { heaters: Record<string, number>; supervisor: { heaters: Record<string, { power: number }> } };
  t.equal(sim.heaters[heater], 0, `the first state after resuming says ${heater} is not heating`);
  t.equal(sim.supervisor.heaters[heater]?.power, 0, 'so does the supervisor in it');
  t.equal((safety.body.heaters as Record<string, { power: number }>)[heater]?.power, 0, 'and the safety status');
  t.ok(await until(async () => (await supervisorOf(hub)).latched, 30_000), 'the stop latches');
  const trip = (await supervisorOf(hub)).trip as Supervisor['trip'] & { source?: string };
  t.comment(`trip: ${trip?.message}`);
  t.equal(trip?.source, 'heat guard', 'the trip names the heat guard, which cut first');
  t.match(trip?.message, /heat guard cut .* at \d{4}-\d\d-\d\dT[\d:.]+Z/, 'and when');
});

t.test("hearth's loop blocked with heat on: the trip names the control that cut first, and when", async (t) => {
  const { dir: root, file } = scratchFiles(t, 'hearth-blocked-');
  const dir = join(root, 'data');
  mkdirSync(dir);
  const rigFile = file('rig.json', { kind: 'simulated' });
  // Loaded into this hub only: SIGUSR2 blocks its main loop for 1.5 s (past the guard's lease and the watchdog's threshold).
  const block = `process.on('SIGUSR2', () => { const end = Date.now() + 1500; while (Date.now() < end) {} });`;
  const nodeOptions = ['--import', `data:text/javascript,${encodeURIComponent(block)}`];
  const hub = await startSignalHub({ dir, rigFile, token: await hubToken(dir), nodeOptions });
  t.teardown(() => killGroup(hub));
  const heater = await heatOn(hub);
  process.kill(hub.pid, 'SIGUSR2');
  t.ok(await until(async () => (await supervisorOf(hub)).latched, 30_000), 'the stop latches');
  t.notOk(hub.energized(heater), 'the wire is off');
  const trip = (await supervisorOf(hub)).trip as Supervisor['trip'] & { source?: string };
  t.comment(`trip: ${trip?.message}`);
  const cuts = [...(trip?.message ?? '').matchAll(/the (heat guard|loop watchdog) [^;]*? at (\d{4}-\d\d-\d\dT[\d:.]+Z)/g)].map((m) => ({
    by: m[1],
    at: Date.parse(m[2] as string),
  }));
  t.ok(cuts.length >= 1, 'the trip names the controls that cut, each with its time');
  t.equal(trip?.source, cuts[0]?.by ?? 'no control named', 'its source is the first named');
  t.same(
    cuts.map((c) => c.at),
    [...cuts.map((c) => c.at)].sort((a, b) => a - b),
    'which cut first',
  );
});
