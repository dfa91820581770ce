import t from 'tap';
import { dataPath, readData } from './data.js';

t.test('data files are found beside the schema modules', async (t) => {
  t.match(dataPath('vocab/ops.json'), /schemas\/vocab\/ops\.json$/);
  t.equal(dataPath('vocab/none.json'), undefined);
  t.equal((readData('packs/safety-limits.default.json') as { kind: string }).kind, 'SafetyLimits');
  t.throws(() => readData('vocab/none.json'), /data file schemas\/vocab\/none\.json is missing/);
  t.throws(() => readData('index.ts'), /is not valid JSON/);
});
