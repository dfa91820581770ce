import t from 'tap';
import { durationSeconds } from './duration.js';

t.test('ISO 8601 durations', async (t) => {
  t.equal(durationSeconds('PT5M'), 300);
  t.equal(durationSeconds('PT1H30M'), 5400);
  t.equal(durationSeconds('PT45S'), 45);
  t.equal(durationSeconds('PT0.5S'), 0.5);
  t.equal(durationSeconds('P1DT1S'), 86401);
  for (const bad of ['P', 'PT', '5M', 'PT5X', '', 5, null, undefined]) t.equal(durationSeconds(bad), undefined, String(bad));
});
