// @slow: serial over socat pty pairs (npm run test:fast skips this file; npm test runs it)
/**
 * The serial appliance over a real pty pair made by socat: the host driver opens one end with serialport's
 * native binding, the simulated appliance listens on the other. socat is a test dependency
 * (scripts/test-deps.mjs installs it); without it this test fails rather than skips.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import t from 'tap';
import { ManualClock, systemClock } from '../clock.js';
import { serveApplianceOn } from '../sim/serial-links.js';
import { SimAppliance } from '../sim/sim-appliance.js';
import { SerialApplianceHeater, SerialApplianceSensor } from './serial-appliance.js';
import { openSerialAppliance } from './serial-open.js';

/**
 * Wait for a condition with a generous timeout (a loaded machine is slow; never a timing assertion). The
 * time-based parts under test run on manual clocks: a peer that is merely slow to be scheduled stays slow, it
 * never looks like a lost link or a lapsed lease.
 */
async function until(check: () => boolean, what: () => string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function ptyPair(): Promise<{ child: ChildProcess; a: string; b: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('socat', ['-d', '-d', 'pty,raw,echo=0', 'pty,raw,echo=0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    const timer = setTimeout(() => reject(new Error(`socat gave no pty pair in time: ${err}`)), 60_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`cannot run socat (install the Debian package socat): ${e.message}`));
    });
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
      const ptys = [...err.matchAll(/PTY is (\S+)/g)].map((m) => m[1] as string);
      if (ptys.length >= 2 && /starting data transfer loop/.test(err)) {
        clearTimeout(timer);
        resolve({ child, a: ptys[0] as string, b: ptys[1] as string });
      }
    });
  });
}

t.test('host driver and simulated appliance talk over a socat pty pair', async (t) => {
  const { child, a, b } = await ptyPair();
  t.teardown(() => {
    child.kill();
  });
  const applianceClock = new ManualClock(0);
  const appliance = new SimAppliance({ clock: applianceClock, ambientC: 22 });
  const device = await serveApplianceOn(b, appliance);
  t.teardown(() => device.close());
  // The host's answer timeout runs on its own manual clock: it fires only when the test moves that clock.
  const hostClock = new ManualClock(0);
  const client = await openSerialAppliance(a, 115200, hostClock);
  t.teardown(() => client.close());
  await client.open();
  const sensor = new SerialApplianceSensor(client, hostClock, 'pan', 'cw.sense.pan_surface_temp', 'pan_surface');
  const heater = new SerialApplianceHeater(client, 'pan', 'pan_surface', ['pan'], 1800);
  t.equal((await sensor.read()).tempC, 22);
  await heater.set(1);
  t.equal(appliance.permille, 1000);
  for (let i = 0; i < 30; i++) {
    applianceClock.advance(1000);
    await client.request('HBT', i);
  }
  const hot = await sensor.read();
  t.ok((hot.tempC as number) > 60, `heated to ${hot.tempC} °C`);
  heater.off();
  await client.request('FLT');
  t.equal(appliance.permille, 0);
  appliance.linkLost = true;
  let ended = false;
  const silent = sensor.read().finally(() => {
    ended = true;
  });
  await new Promise((r) => setImmediate(r));
  t.notOk(ended, 'the read waits for an answer');
  hostClock.advance(10_000); // ten seconds of silence on the host's clock: past any answer timeout
  await new Promise((r) => setImmediate(r));
  if (!t.ok(ended, 'the read ends once the host clock passes the answer timeout')) return;
  const lost = await silent;
  t.equal(lost.fault, 'bus_error', 'a silent appliance is a bus error');
  t.match(lost.detail, /no answer to TMP within \d+ ms/);
});

t.test('kill -9 of the host ends heat on the appliance by its own lease, without the host', async (t) => {
  const { child, a, b } = await ptyPair();
  t.teardown(() => {
    child.kill();
  });
  // The appliance's lease runs on a manual clock the test moves: only time the test gives it can run it out.
  const applianceClock = new ManualClock(0);
  const appliance = new SimAppliance({ clock: applianceClock, ambientC: 22 });
  t.teardown(() => appliance.close());
  const device = await serveApplianceOn(b, appliance);
  t.teardown(() => device.close());
  // The host: another process that opens the port, switches the heat on and keeps heartbeating until killed.
  // Its answer timeout is a minute: an appliance slow to answer on a loaded machine must not fail its start.
  const script = `
    const { systemClock } = await import(${JSON.stringify(new URL('../clock.ts', import.meta.url).href)});
    const { openSerialAppliance } = await import(${JSON.stringify(new URL('./serial-open.ts', import.meta.url).href)});
    const { SerialApplianceHeater } = await import(${JSON.stringify(new URL('./serial-appliance.ts', import.meta.url).href)});
    const client = await openSerialAppliance(${JSON.stringify(a)}, 115200, systemClock, { timeoutMs: 60_000 });
    await client.open();
    await new SerialApplianceHeater(client, 'pan', 'pan_surface', ['pan'], 1800).set(1);
    console.log('heating');
    setInterval(() => {}, 1000);
  `;
  const host = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => host.kill('SIGKILL'));
  let said = '';
  host.stdout?.on('data', (d: Buffer) => {
    said += d.toString();
  });
  host.stderr?.on('data', (d: Buffer) => {
    said += d.toString();
  });
  await until(
    () => said.includes('heating'),
    () => `the host to switch the heat on (it said: ${said})`,
    120_000,
  );
  t.equal(appliance.permille, 1000, 'heat on at the appliance');
  // Heartbeats keep the lease (2 s) alive while the host lives: after each one that arrives the appliance's clock
  // moves 1.5 s, 4.5 s in all, which runs the lease out unless every heartbeat renewed it.
  for (let i = 0; i < 3; i++) {
    const seen = appliance.received.length;
    await until(
      () => appliance.received.length > seen,
      () => `heartbeat ${i + 1}`,
    );
    applianceClock.advance(1500);
  }
  t.equal(appliance.permille, 1000, 'still on while renewed');
  t.equal(appliance.leaseExpiries, 0);
  host.kill('SIGKILL');
  await new Promise((r) => host.once('exit', r));
  // Frames the host wrote before it died may still be on their way, each renewing the lease: move the appliance's
  // clock on in half seconds until the lease has run out with nothing more arriving.
  await until(
    () => {
      applianceClock.advance(500);
      return appliance.permille === 0;
    },
    () => 'the appliance to switch itself off',
  );
  t.equal(appliance.permille, 0, 'heat off with the host dead');
  t.equal(appliance.leaseExpiries, 1, 'by the lease running out, not by a frame');
});

t.test('opening a serial path that does not exist fails clearly', async (t) => {
  await t.rejects(
    openSerialAppliance('/dev/does-not-exist-hearth', 115200, systemClock),
    /cannot open serial port \/dev\/does-not-exist-hearth/,
  );
});
