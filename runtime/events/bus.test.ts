import t from 'tap';
import { EventBus } from './bus.js';

t.test('delivers typed events to named and catch-all listeners in order', (t) => {
  const bus = new EventBus();
  const seen: string[] = [];
  bus.on('heater', (p) => seen.push(`heater:${p.power}`));
  bus.onAny((name) => seen.push(`any:${name}`));
  bus.emit('heater', { heater: 'h1', power: 0.5, at: 'x' });
  t.same(seen, ['heater:0.5', 'any:heater']);
  t.end();
});

t.test('a throwing listener is isolated and reported', (t) => {
  const errors: string[] = [];
  const bus = new EventBus((err, name) => errors.push(`${name}:${(err as Error).message}`));
  let after = false;
  bus.on('safety', () => {
    throw new Error('boom');
  });
  bus.on('safety', () => {
    after = true;
  });
  bus.emit('safety', { kind: 'estop', action: 'heat_off_all', message: 'm', at: 'x' });
  t.ok(after, 'later listener still ran');
  t.same(errors, ['safety:boom']);
  t.end();
});

t.test('unsubscribe stops delivery', (t) => {
  const bus = new EventBus();
  let n = 0;
  const off = bus.on('heater', () => n++);
  bus.emit('heater', { heater: 'h', power: 0, at: 'x' });
  off();
  bus.emit('heater', { heater: 'h', power: 0, at: 'x' });
  t.equal(n, 1);
  t.end();
});
