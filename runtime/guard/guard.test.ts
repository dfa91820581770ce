/**
 * The heat guard as a real process (spawned from runtime/guard/main.ts) on a folder of simulated wires: the
 * levels asserted are those in the value files, as the wire would carry them. Lease timings are shortened;
 * nothing here asserts how fast anything happens, only what the wire carries once an event has happened.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { readWire } from '../../drivers/buses/pin-file.js';
import { STOP_GRACE_MS, startHeatGuard } from './client.js';
import type { GuardSpec } from './spec.js';
import { guardArgv, prewarmHeatGuard } from './warm.js';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function specIn(dir: string, extra: Partial<GuardSpec> = {}): GuardSpec {
  return {
    socket: join(dir, 'g.sock'),
    root: join(dir, 'wires'),
    simulated: true,
    lines: [
      { heater: 'fryer', line: 17, activeLow: false },
      { heater: 'pot', line: 27, activeLow: true },
    ],
    leaseMs: 300,
    checkMs: 20,
    connectMs: 60_000,
    watchdogFeedMs: 50,
    ...extra,
  };
}

async function until(cond: () => boolean, ms = 30_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await sleep(10);
  }
  return cond();
}

interface Running {
  child: ChildProcess;
  sock: Socket;
  heard: string[];
  send(line: string): void;
  exited: Promise<number | null>;
}

async function startGuard(spec: GuardSpec): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', main, '--spec', JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.resume();
  if (!(await until(() => out.includes('heat-guard ready'), 60_000))) throw new Error('the guard did not start');
  const sock = await new Promise<Socket>((resolve) => {
    const s = createConnection(spec.socket, () => resolve(s));
  });
  const heard: string[] = [];
  sock.setEncoding('utf8');
  sock.on('data', (d: string) => heard.push(...d.split('\n').filter(Boolean)));
  sock.on('error', () => {});
  return { child, sock, heard, send: (l) => sock.write(`${l}\n`), exited };
}

/** A guard process on a fresh folder of wires, ended and removed at the test's teardown. */
async function guardIn(t: Test, extra: Partial<GuardSpec> = {}): Promise<{ spec: GuardSpec; g: Running }> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-guard-t-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const spec = specIn(dir, extra);
  const g = await startGuard(spec);
  t.teardown(() => g.child.kill('SIGKILL'));
  return { spec, g };
}

t.test('lines start off; a late renewal with heat on cuts, is reported, and holds off until acknowledged', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-guard-t-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const spec = specIn(dir);
  // A dead process left both relays energized: 17 (active-high) at 1, 27 (active-low) at 0.
  for (const [line, level] of [
    [17, '1'],
    [27, '0'],
  ] as const) {
    mkdirSync(join(spec.root, `gpio${line}`), { recursive: true });
    writeFileSync(join(spec.root, `gpio${line}`, 'value'), level);
  }
  const g = await startGuard(spec);
  t.teardown(() => g.child.kill('SIGKILL'));
  t.equal(readWire(spec.root, 17), 0, 'active-high line off (LOW) once the guard holds it');
  t.equal(readWire(spec.root, 27), 1, 'active-low line off (HIGH) once the guard holds it');

  const renew = setInterval(() => g.send('R'), 50);
  g.send('W fryer 1');
  g.send('W pot 1');
  t.ok(await until(() => readWire(spec.root, 17) === 1 && readWire(spec.root, 27) === 0), 'both loads energized on request');
  clearInterval(renew);
  t.ok(await until(() => g.heard.some((l) => l.startsWith('T '))), 'the guard reports the cut');
  t.equal(readWire(spec.root, 17), 0, 'active-high line cut to LOW');
  t.equal(readWire(spec.root, 27), 1, 'active-low line cut to HIGH');
  t.match(
    g.heard.find((l) => l.startsWith('T ')),
    /^T \d+ (fryer,pot|pot,fryer) \d+$/,
  );

  g.send('W fryer 1');
  t.ok(await until(() => g.heard.includes('X fryer tripped')), 'switching on again is refused until hearth acknowledges');
  t.equal(readWire(spec.root, 17), 0, 'and the wire stays off');
  g.send('A');
  g.send('W fryer 1');
  t.ok(await until(() => readWire(spec.root, 17) === 1), 'after the acknowledgement heat may be asked for again');
  g.send('Q');
  t.equal(await g.exited, 0, 'Q: the guard exits');
  t.equal(readWire(spec.root, 17), 0, 'after cutting the line');
  t.notOk(existsSync(spec.socket), 'and removing its socket');
});

t.test('a lapse with every line off trips nothing', async (t) => {
  const { spec, g } = await guardIn(t);
  // Silent for many leases, with nothing on.
  await sleep(spec.leaseMs * 4);
  g.send('W fryer 1');
  t.ok(await until(() => readWire(spec.root, 17) === 1), 'heat is granted at once: no trip was latched');
  t.notOk(
    g.heard.some((l) => l.startsWith('T ') || l.startsWith('X ')),
    'no trip and no refusal',
  );
  g.sock.destroy();
  t.equal(await g.exited, 0);
});

t.test('hearth gone (its socket closes) with heat on: the guard cuts and exits', async (t) => {
  const { spec, g } = await guardIn(t, { leaseMs: 60_000 });
  g.send('W pot 1');
  t.ok(await until(() => readWire(spec.root, 27) === 0), 'active-low load energized');
  g.sock.destroy();
  t.equal(await g.exited, 0, 'the guard leaves');
  t.equal(readWire(spec.root, 27), 1, 'with the active-low line HIGH (off), long before any lease would lapse');
});

t.test('SIGTERM to the guard with heat on: it cuts before it exits', async (t) => {
  const { spec, g } = await guardIn(t, { leaseMs: 60_000 });
  g.send('W fryer 1');
  t.ok(await until(() => readWire(spec.root, 17) === 1));
  g.child.kill('SIGTERM');
  t.equal(await g.exited, 0);
  t.equal(readWire(spec.root, 17), 0, 'line off');
});

t.test('a stop signal to the guard: it cuts, then says which signal (S) before its socket closes', async (t) => {
  const { spec, g } = await guardIn(t, { leaseMs: 60_000 });
  g.send('W pot 1');
  t.ok(await until(() => readWire(spec.root, 27) === 0), 'active-low load energized');
  const closed = new Promise<string[]>((resolve) => g.sock.once('close', () => resolve([...g.heard])));
  g.child.kill('SIGINT');
  t.equal(await g.exited, 0);
  t.equal(readWire(spec.root, 27), 1, 'line off (HIGH)');
  t.equal((await closed).at(-1), 'S SIGINT', 'the last thing hearth hears is the signal');
});

t.test('hearth side: a guard gone on a stop signal is no fault once hearth stops too; alone, it is', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-guard-t-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // With hearth: the guard's signal is handled first, hearth's own stop begins a moment later (as with Ctrl-C).
  const withHearth = await startHeatGuard(specIn(dir, { leaseMs: 60_000 }), { log: () => {} });
  const lost: string[] = [];
  withHearth.onLost((why) => lost.push(why));
  withHearth.line('fryer').write(true);
  t.ok(await until(() => withHearth.level('fryer') === 1));
  process.kill(withHearth.pid, 'SIGINT');
  t.ok(await until(() => withHearth.level('fryer') === 0), 'the wire is off at once');
  await sleep(50);
  withHearth.expectStop();
  await withHearth.close();
  await sleep(STOP_GRACE_MS + 200);
  t.same(lost, [], 'nothing is reported lost');

  // Alone: hearth runs on without its guard, which is reported (the app latches) once the grace has passed.
  const alone = await startHeatGuard(specIn(dir, { leaseMs: 60_000, socket: join(dir, 'g2.sock') }), { log: () => {} });
  alone.onLost((why) => lost.push(why));
  alone.line('fryer').write(true);
  t.ok(await until(() => alone.level('fryer') === 1));
  process.kill(alone.pid, 'SIGTERM');
  t.ok(await until(() => lost.length > 0, STOP_GRACE_MS * 10), 'reported lost');
  t.match(lost[0], /the heat guard stopped on SIGTERM while hearth kept running/);
  t.equal(alone.level('fryer'), 0, 'with the wire off');
  await alone.close();
});

t.test('hearth side: a wire the guard cut reads `cut` before its report is read', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-guard-t-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const guard = await startHeatGuard(specIn(dir), { log: () => {} });
  t.teardown(() => guard.close());
  const trips: number[] = [];
  guard.onTrip((tr) => trips.push(tr.cutAt));
  guard.line('pot').write(true);
  await guard.settled();
  t.equal(guard.wire('pot'), 'on', 'on, acknowledged');
  t.equal(guard.wire('fryer'), 'off');
  // This loop blocks past the lease: no renewal goes out, the guard cuts, and its report waits on the socket.
  const end = Date.now() + 30_000;
  while (guard.level('pot') === 0 && Date.now() < end) {
    // busy: nothing of this process runs
  }
  t.equal(guard.wire('pot'), 'cut', 'the wire reads cut while the report is still unread');
  t.same(trips, [], '(it is)');
  t.ok(await until(() => trips.length > 0), 'then the report arrives');
  t.ok((trips[0] as number) > Date.now() - 60_000, 'with the time of the cut');
});

t.test('the hardware watchdog is fed only while leases are healthy, and disarmed after a clean cut', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-guard-t-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // A plain file stands in for the watchdog device: every feed is a byte in it.
  const dev = join(dir, 'watchdog');
  writeFileSync(dev, '');
  const spec = specIn(dir, { watchdogDevice: dev });
  const g = await startGuard(spec);
  t.teardown(() => g.child.kill('SIGKILL'));
  const fed = () => readFileSync(dev, 'utf8').length;
  const renew = setInterval(() => g.send('R'), 50);
  t.ok(await until(() => fed() >= 3), 'fed while hearth renews');
  g.send('W fryer 1');
  clearInterval(renew);
  t.ok(await until(() => g.heard.some((l) => l.startsWith('T '))), 'lease lapsed with heat on');
  const atTrip = fed();
  await sleep(spec.watchdogFeedMs * 10);
  t.equal(fed(), atTrip, 'no feed while the lease is lapsed and the trip unacknowledged');
  g.send('Q');
  await g.exited;
  t.equal(readFileSync(dev, 'utf8').at(-1), 'V', 'magic close once every line read back off');
});

t.test('hearth side: a guard that dies leaves hearth to drive the lines off itself, and say so', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-guard-t-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const spec = specIn(dir, { leaseMs: 60_000 });
  const guard = await startHeatGuard(spec, { log: () => {} });
  const lost: string[] = [];
  guard.onLost((why) => lost.push(why));
  guard.line('pot').write(true);
  t.ok(await until(() => guard.level('pot') === 0), 'active-low load energized through the guard');
  process.kill(guard.pid, 'SIGKILL');
  t.ok(await until(() => lost.length > 0), 'hearth hears the guard is gone');
  t.equal(guard.level('pot'), 1, 'and has driven the active-low line HIGH (off) itself');
  guard.line('pot').write(true);
  t.equal(guard.level('pot'), 1, 'with no guard, switching on does nothing');
  await guard.close();
});

t.test('a spec the guard cannot use: exit 2 with the reason', async (t) => {
  // Spawned as hearth spawns it, from another working directory (tsx must not be looked up from there).
  const child = spawn(process.execPath, guardArgv('--spec', '{"socket":1}'), { stdio: ['ignore', 'pipe', 'pipe'], cwd: tmpdir() });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const code = await new Promise((resolve) => child.once('exit', resolve));
  t.equal(code, 2);
  t.match(err, /heat-guard: bad --spec: spec needs socket, root and lines/);
});

t.test('a guard spawned ahead of its spec holds nothing until the spec comes, then guards', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-guard-t-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const spec = specIn(dir, { leaseMs: 60_000 });
  const warm = prewarmHeatGuard();
  const child = warm.take();
  t.ok(child?.pid, 'the waiting guard runs');
  await sleep(300);
  t.notOk(existsSync(spec.socket), 'without its spec it listens on nothing');
  t.equal(child?.exitCode, null, 'and waits');
  // take() hands the process over once; a second start gets nothing and spawns its own.
  t.equal(warm.take(), undefined);
  const again = prewarmHeatGuard();
  const guard = await startHeatGuard(spec, { log: () => {}, warm: again });
  t.teardown(() => guard.close());
  guard.line('pot').write(true);
  t.ok(await until(() => guard.level('pot') === 0), 'given its spec on stdin, it drives the line (active-low: LOW)');
  child?.ref(); // the waiting guard never keeps its parent alive: this test waits for it on purpose
  child?.stdin?.end();
  const code = await new Promise((resolve) => child?.once('exit', resolve));
  t.equal(code, 0, 'a waiting guard whose stdin closes (hearth gone before the spec) exits 0');
});
