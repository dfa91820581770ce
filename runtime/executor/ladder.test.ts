import t from 'tap';
import { runtimeFallback } from './ladder.js';

const liquid = { id: 'liquid', svcSensor: 'cw.sense.liquid_temp' };
const liquid2 = { id: 'liquid2', svcSensor: 'cw.sense.liquid_temp' };
const oil = { id: 'oil', svcSensor: 'cw.sense.oil_temp' };
const item = (fallbacks?: string[], rung = 'cw.sense.liquid_temp') => ({ node: 'n1', op: 'cw.op.boil', rung, fallbacks });
const all = () => true;

t.test('a step that heats can only fall to a person: every other rung needs the heat the trip cut', async (t) => {
  const none = runtimeFallback({
    item: item(['cw.sense.boil_detect', 'model', 'time']),
    failed: liquid,
    heats: true,
    sensors: [liquid],
    healthy: all,
  });
  t.equal(none.rung, null);
  t.equal(none.skipped.length, 3);
  t.match(none, { why: /node n1 \(cw.op.boil\) has no rung after cw.sense.liquid_temp that holds without liquid/ });
  const human = runtimeFallback({ item: item(['model', 'human']), failed: liquid, heats: true, sensors: [liquid], healthy: all });
  t.match(human, { rung: 'human', kind: 'human' });
  t.equal(human.skipped.length, 1, 'model was tried first and skipped');
});

t.test('a step that does not heat falls to another healthy sensor, a cue or time; never to a model', async (t) => {
  const sensors = [liquid, liquid2, oil];
  t.match(runtimeFallback({ item: item(['cw.sense.liquid_temp', 'time']), failed: liquid, heats: false, sensors, healthy: all }), {
    rung: 'cw.sense.liquid_temp',
    kind: 'sensor',
    sensor: 'liquid2',
  });
  const sick = runtimeFallback({
    item: item(['cw.sense.liquid_temp', 'model', 'time']),
    failed: liquid,
    heats: false,
    sensors,
    healthy: (id) => id !== 'liquid2',
  });
  t.match(sick, { rung: 'time', kind: 'time' });
  t.equal(sick.skipped.length, 2, 'the sick second sensor and the model were skipped');
  t.match(runtimeFallback({ item: item(['cw.sense.boil_detect', 'time']), failed: liquid, heats: false, sensors, healthy: all }), {
    rung: 'cw.sense.boil_detect',
    kind: 'cue',
  });
  t.match(runtimeFallback({ item: item(['model']), failed: liquid, heats: false, sensors, healthy: all }), { rung: null });
});

t.test('no fallbacks planned: stop', async (t) => {
  const r = runtimeFallback({ item: item(undefined, 'cw.sense.oil_temp'), failed: oil, heats: true, sensors: [oil], healthy: all });
  t.equal(r.rung, null);
  t.same(r.skipped, []);
});
