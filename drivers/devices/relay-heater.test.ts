import t from 'tap';
import { SimGpio } from '../buses/gpio.js';
import { ManualClock } from '../clock.js';
import { RelayHeater } from './relay-heater.js';

function setup(activeLow = false) {
  const clock = new ManualClock(0);
  const gpio = new SimGpio();
  const line = gpio.output(17, activeLow);
  const heater = new RelayHeater({ id: 'fryer', medium: 'oil', sensors: ['oil'], maxPowerW: 2000, line, clock, windowMs: 2000 });
  // What the load sees: the relay's state at the level the wire carries.
  return { clock, gpio, heater, on: () => gpio.energized(17) };
}

t.test('fractional power is time-proportioned over the window', async (t) => {
  const s = setup();
  await s.heater.set(0.25);
  t.equal(s.on(), true);
  s.clock.advance(499);
  t.equal(s.on(), true);
  s.clock.advance(1);
  t.equal(s.on(), false, 'off after 25 % of the window');
  s.clock.advance(1500);
  t.equal(s.on(), true, 'next window starts on');
  let onMs = 0;
  for (let i = 0; i < 2000 * 5; i += 10) {
    if (s.on()) onMs += 10;
    s.clock.advance(10);
  }
  t.equal(onMs, 2500, '25 % over five windows');
});

t.test('full power stays on, off() cuts at once and stops the cycle', async (t) => {
  const s = setup();
  await s.heater.set(1);
  s.clock.advance(10_000);
  t.equal(s.on(), true);
  t.equal(s.heater.power, 1);
  s.heater.off();
  t.equal(s.on(), false);
  t.equal(s.heater.power, 0);
  t.equal(s.clock.pending, 0, 'no timer left to switch it back on');
  await s.heater.set(0.5);
  await s.heater.set(0);
  t.equal(s.on(), false);
  await t.rejects(s.heater.set(Number.NaN), /power must be a number/);
});

t.test('an active-low relay: exported de-energized (wire HIGH), on pulls the wire LOW, off drives it HIGH', async (t) => {
  const s = setup(true);
  t.equal(s.gpio.level(17), 1, 'exported at the off level');
  t.equal(s.on(), false);
  await s.heater.set(1);
  t.equal(s.gpio.level(17), 0);
  t.equal(s.on(), true);
  s.heater.off();
  t.equal(s.gpio.level(17), 1, 'off is HIGH on the wire');
  t.equal(s.on(), false, 'the load is de-energized');
  await s.heater.set(0.5);
  s.clock.advance(1000);
  t.equal(s.on(), false, 'off half of a 50 % window');
  s.clock.advance(1000);
  t.equal(s.on(), true);
});
