/** docs/safety-case.md's hazard table covers every safety control, and each row's control and scenario exist. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { hazardTableMarkdown, loadHazards } from '../runtime/hil/hazards.js';
import { repoDir } from '../runtime/hil/scenario.js';
import { checkHazardTable, hazardRows, withGeneratedTable } from './hazard-table.js';

const doc = readFileSync(join(repoDir, 'docs/safety-case.md'), 'utf8');

t.test('the hazard table is complete and names only what exists', async (t) => {
  t.ok((hazardRows(doc) ?? []).length > 0, 'the table is there');
  t.same(checkHazardTable(doc), []);
});

t.test("the doc's table is the one generated from hil-tests/hazards.yaml, the safety report's source", async (t) => {
  const rows = loadHazards();
  t.equal(doc, withGeneratedTable(doc, rows), 'regenerate it with: npx tsx hil-tests/hazard-table.ts --write');
  t.same(checkHazardTable(hazardTableMarkdown(rows)), [], 'the source itself names only what exists');
  const edited = doc.replace('| heat off +250 ms, one sample [250 ms] |', '| heat off +250 ms |');
  t.not(edited, doc);
  t.not(edited, withGeneratedTable(edited, rows), 'a hand edit of the doc table is caught');
});

t.test('the check fails on a control without a row, a hazard without a scenario, and names that do not exist', async (t) => {
  const head = '| hazard | control | scenario | measured bound |\n|---|---|---|---|\n';
  const scenarios = new Map([
    ['hot', ['a']],
    ['cold', ['b']],
  ]);
  const check = (rows: string) => checkHazardTable(head + rows, ['a', 'b'], scenarios);
  t.same(check('| too hot | `a` | `hot` | 1 s |\n| too cold | `b` | `cold` | 2 s |\n'), []);
  t.match(check('| too hot | `a` | `hot` | 1 s |\n'), ['control `b` has no row']);
  t.match(check('| too hot | `a` | `hot` | 1 s |\n| too cold | `b` |  | 2 s |\n'), [/the hazard "too cold" has no scenario/]);
  t.match(check('| too hot | `a` | `hot` | 1 s |\n| too cold | `b` | `frozen` | 2 s |\n'), [/no scenario `frozen`/]);
  t.match(check('| too hot | `a` | `hot` | 1 s |\n| too cold | `b`, `c` | `cold` | 2 s |\n'), [/no control `c`/]);
  t.match(check('| too hot | `a` | `hot` | 1 s |\n| too cold | `b` | `hot` | 2 s |\n'), [/`hot` does not prove `b`/]);
  t.match(check('| too hot | `a` | `hot` | 1 s |\n| too cold | `b` | `cold` |  |\n'), [/no measured bound/]);
  t.match(checkHazardTable('no table here'), [/no table/]);
});
