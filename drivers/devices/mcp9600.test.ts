import t from 'tap';
import { SimI2cBus } from '../buses/sim-i2c.js';
import { ManualClock } from '../clock.js';
import { type ProbeState, SimMcp9600 } from '../sim/sim-mcp9600.js';
import { Mcp9600Sensor } from './mcp9600.js';
import { decodeTemperature, encodeTemperature, MCP9600_REG } from './mcp9600-registers.js';

function rig(probe: ProbeState, deviceId = 0x40) {
  const bus = new SimI2cBus('/dev/i2c-1');
  const chip = new SimMcp9600(() => probe, deviceId);
  bus.attach(0x60, chip);
  const sensor = new Mcp9600Sensor({
    id: 'oil',
    svcSensor: 'cw.sense.oil_temp',
    medium: 'oil',
    bus,
    address: 0x60,
    clock: new ManualClock(0),
    rangeC: { min: -20, max: 300 },
  });
  return { bus, chip, sensor, probe };
}

t.test('register scaling: 0.0625 °C per LSB, two’s complement', async (t) => {
  t.equal(decodeTemperature(Buffer.from([0x0b, 0x40])), 180, '0x0B40 = 180 °C');
  t.equal(decodeTemperature(Buffer.from([0x00, 0x01])), 0.0625);
  t.equal(decodeTemperature(Buffer.from([0xff, 0xf0])), -1, 'negative');
  t.equal(decodeTemperature(Buffer.from([0xfe, 0x70])), -25);
  t.same(encodeTemperature(180), Buffer.from([0x0b, 0x40]));
  t.same(encodeTemperature(-25), Buffer.from([0xfe, 0x70]));
  t.equal(decodeTemperature(encodeTemperature(123.4567)), 123.4375, 'rounded to the chip resolution');
});

t.test('open() probes the device ID and configures a type K thermocouple', async (t) => {
  const r = rig({ hotC: 25, coldC: 22 });
  await r.sensor.open();
  t.equal(r.sensor.model, 'MCP9600');
  t.equal(r.chip.registers.get(MCP9600_REG.sensorConfig), 0x01, 'type K (000), filter 1');
  const r1 = rig({ hotC: 25, coldC: 22 }, 0x41);
  await r1.sensor.open();
  t.equal(r1.sensor.model, 'MCP9601');
});

t.test('an absent chip or a different chip fails clearly at open', async (t) => {
  const bus = new SimI2cBus('/dev/i2c-1');
  const s = new Mcp9600Sensor({ id: 'oil', svcSensor: 'cw.sense.oil_temp', medium: 'oil', bus, address: 0x60, clock: new ManualClock(0) });
  await t.rejects(s.open(), /sensor "oil": no MCP9600 answering at 0x60 on \/dev\/i2c-1 \(.*Remote I\/O error\)/);
  const other = rig({ hotC: 25, coldC: 22 }, 0x54);
  await t.rejects(other.sensor.open(), /not an MCP9600 \(device ID register reads 0x5411, expected 0x40xx or 0x41xx\)/);
});

t.test('read() returns the hot-junction temperature through the registers', async (t) => {
  const r = rig({ hotC: 181.3, coldC: 24 });
  await r.sensor.open();
  const reading = await r.sensor.read();
  t.equal(reading.tempC, 181.3125, 'nearest 1/16 °C');
  t.equal(reading.fault, undefined);
  r.probe.hotC = -5.5;
  t.equal((await r.sensor.read()).tempC, -5.5);
});

t.test('status bits and bus errors become faults, never temperatures', async (t) => {
  const r = rig({ hotC: 150, coldC: 24 });
  await r.sensor.open();
  r.probe.open = true;
  const open = await r.sensor.read();
  t.equal(open.tempC, null);
  t.equal(open.fault, 'open_circuit');
  t.match(open.detail, /status 0x50/);
  r.probe.open = false;
  const r1 = rig({ hotC: 150, coldC: 24, short: true }, 0x41);
  await r1.sensor.open();
  t.equal((await r1.sensor.read()).fault, 'short', 'an MCP9601 flags a short');
  r.probe.nack = true;
  const nack = await r.sensor.read();
  t.equal(nack.fault, 'bus_error');
  t.match(nack.detail, /no ACK/);
  r.probe.nack = false;
  r.probe.hotC = 450;
  const hot = await r.sensor.read();
  t.equal(hot.fault, 'out_of_range');
  t.equal(hot.tempC, null);
});

t.test('an MCP9600 has no short bit: a shorted probe reads its cold junction, and each reading carries it', async (t) => {
  const r = rig({ hotC: 150, coldC: 24 });
  await r.sensor.open();
  t.same(await r.sensor.read(), { sensor: 'oil', tempC: 150, at: 0, coldJunctionC: 24 });
  r.probe.short = true;
  const short = await r.sensor.read();
  t.equal(short.fault, undefined, 'nothing flags it: the supervisor judges it by plausibility');
  t.equal(short.tempC, 24);
  t.equal(short.coldJunctionC, 24);
  const r1 = rig({ hotC: 150, coldC: 24 }, 0x41);
  await r1.sensor.open();
  t.equal((await r1.sensor.read()).coldJunctionC, undefined, 'an MCP9601 needs no cold-junction read');
});

t.test('a converter pinned at full scale is an open probe, whatever the status says', async (t) => {
  const r = rig({ hotC: 2047.9375, coldC: 24 });
  await r.sensor.open();
  const open = await r.sensor.read();
  t.equal(open.fault, 'open_circuit');
  t.equal(open.tempC, null);
  t.match(open.detail, /full scale \(0x7fff\).*plausibility/);
  r.probe.hotC = -2048;
  t.equal((await r.sensor.read()).fault, 'open_circuit');
});
