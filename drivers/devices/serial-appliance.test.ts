import t from 'tap';
import { ManualClock, systemClock } from '../clock.js';
import { openMockApplianceLink } from '../sim/serial-links.js';
import { SimAppliance } from '../sim/sim-appliance.js';
import { SerialApplianceClient, SerialApplianceHeater, SerialApplianceSensor } from './serial-appliance.js';
import { encodeFrame } from './serial-protocol.js';

let n = 0;
async function setup() {
  const applianceClock = new ManualClock(0);
  const appliance = new SimAppliance({ clock: applianceClock, ambientC: 20 });
  const path = `/dev/mock-hob-${++n}`;
  const link = await openMockApplianceLink(path, appliance);
  const client = new SerialApplianceClient({ path, link, clock: systemClock, timeoutMs: 200, heartbeatMs: 100 });
  const heater = new SerialApplianceHeater(client, 'pan', 'pan_surface', ['pan'], 1800, 300);
  const sensor = new SerialApplianceSensor(client, systemClock, 'pan', 'cw.sense.pan_surface_temp', 'pan_surface');
  t.teardown(() => client.close());
  return { appliance, applianceClock, link, client, heater, sensor, path };
}

t.test('over the mock binding: probe, read, set power, heat, switch off', async (t) => {
  const s = await setup();
  await s.client.open();
  t.equal((await s.sensor.read()).tempC, 20);
  await s.heater.set(0.5);
  t.equal(s.appliance.permille, 500);
  t.equal(s.heater.power, 0.5);
  t.ok(s.appliance.received.includes(encodeFrame('PWR', 500, 2000).trim()), 'PWR carries the 2 s heat lease');
  for (let i = 0; i < 60; i++) {
    s.applianceClock.advance(1000); // appliance time; the heartbeat keeps its own lease alive
    await s.client.request('HBT', i);
  }
  const warm = await s.sensor.read();
  t.ok((warm.tempC as number) > 60, `the pan warmed to ${warm.tempC}`);
  s.heater.off();
  t.equal(s.heater.power, 0);
  await s.client.request('FLT');
  t.equal(s.appliance.permille, 0, 'the off frame reached the appliance');
  t.ok(
    s.appliance.received.every((l) => /^\$[A-Z]{3}(,[0-9-]+){0,2}\*[0-9A-F]{2}$/.test(l)),
    'every frame the host sent is well formed',
  );
});

t.test('faults: open probe, appliance cut-out, lost link, refused frames', async (t) => {
  const s = await setup();
  await s.client.open();
  s.appliance.probeOpen = true;
  t.equal((await s.sensor.read()).fault, 'open_circuit');
  s.appliance.probeOpen = false;
  s.link.inject(encodeFrame('FLT', 'E3'));
  await s.client.request('HBT', 1);
  const cut = await s.sensor.read();
  t.equal(cut.fault, 'bus_error');
  t.match(cut.detail, /E3: appliance over-temperature/);
  s.link.inject('$TMP,2100*00\n');
  await s.client.request('HBT', 2);
  t.equal(s.client.rejected, 1, 'a frame with a bad checksum is counted and ignored');
  await t.rejects(s.client.request('XYZ'), /NAK CMD/);
  await t.rejects(s.client.request('PWR', 2000), /NAK ARG/);
  s.appliance.linkLost = true;
  const lost = await s.sensor.read();
  t.equal(lost.fault, 'bus_error');
  t.match(lost.detail, /no answer to TMP within 200 ms/);
  await t.rejects(s.heater.set(1), /no answer/);
});

t.test('open() fails clearly when nothing answers', async (t) => {
  const s = await setup();
  s.appliance.linkLost = true;
  await t.rejects(s.client.open(), new RegExp(`no serial appliance answering on ${s.path}`));
});

t.test('the appliance switches itself off when the host goes quiet: its own timer, no frame needed', async (t) => {
  const clock = new ManualClock(0);
  const a = new SimAppliance({ clock, timeoutMs: 2000 });
  const out: string[] = [];
  a.send = (b) => out.push(b.toString());
  a.receive(Buffer.from(encodeFrame('PWR', 800)));
  t.equal(a.permille, 800);
  t.equal(out[0], encodeFrame('OKP', 800, 2000), 'the answer carries the lease in force');
  clock.advance(1500);
  a.receive(Buffer.from(encodeFrame('HBT', 7)));
  clock.advance(1500);
  t.equal(a.permille, 800, 'heartbeats keep it on');
  clock.advance(600);
  t.equal(a.permille, 0, 'off once the lease ran out, with nothing received and nobody asking');
  t.equal(a.leaseExpiries, 1);
  a.receive(Buffer.from(encodeFrame('PWR', 600, 300)));
  t.equal(out.at(-1), encodeFrame('OKP', 600, 300), 'the host sets the lease with PWR');
  clock.advance(299);
  t.equal(a.permille, 600);
  clock.advance(2);
  t.equal(a.permille, 0, 'the shorter lease applies');
  a.receive(Buffer.from(encodeFrame('PWR', 600, 50)));
  t.equal(out.at(-1), encodeFrame('NAK', 'ARG'), 'a lease under 100 ms is refused');
  t.equal(a.permille, 0);
  a.receive(Buffer.from('$PWR,500*00\n'));
  t.equal(out.at(-1), encodeFrame('NAK', 'CS'));
  t.equal(a.permille, 0, 'a bad frame changes nothing');
});
