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

function ptyPair(): Promise<{ child: ChildProcess; a: string; b: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('socat', ['-d', '-d', 'pty,raw,echo=0', 'pty,raw,echo=0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    const timer = setTimeout(() => reject(new Error(`socat gave no pty pair in time: ${err}`)), 10_000);
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
  const client = await openSerialAppliance(a, 115200, systemClock);
  t.teardown(() => client.close());
  await client.open();
  const sensor = new SerialApplianceSensor(client, systemClock, 'pan', 'cw.sense.pan_surface_temp', 'pan_surface');
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
  t.equal((await sensor.read()).fault, 'bus_error', 'a silent appliance is a bus error');
});

t.test('opening a serial path that does not exist fails clearly', async (t) => {
  await t.rejects(
    openSerialAppliance('/dev/does-not-exist-hearth', 115200, systemClock),
    /cannot open serial port \/dev\/does-not-exist-hearth/,
  );
});
