import { readFileSync } from 'node:fs';
import t from 'tap';
import { checkQuantity, convert, heatBand, parseUnitsTable, roundQuantity, UnitError } from './units.js';

const table = parseUnitsTable(JSON.parse(readFileSync(new URL('../schemas/vocab/units.json', import.meta.url), 'utf8')));

t.test('the project units table', async (t) => {
  t.equal(table.units.tbsp?.factor, 15);
  t.equal(table.units.cup?.factor, 240);
  t.equal(table.units.degC?.scale, 'interval');
  t.same(heatBand('max', table), { min: 240, max: 280 });
  t.same(heatBand('cw.heat.very_low', table), { min: 90, max: 120 });
  t.equal(heatBand('scorching', table), undefined);
  t.equal(heatBand('toString', table), undefined);
  const levels = Object.values(table.heatLevels);
  for (let i = 1; i < levels.length; i++) t.equal(levels[i]?.min, levels[i - 1]?.max, 'bands are contiguous, low to high');
});

t.test('convert', async (t) => {
  t.equal(convert(2, 'tbsp', 'ml', table), 30);
  t.equal(convert(1, 'cup', 'g', table, { densityGPerMl: 0.53 }), 127.2, 'float noise cut');
  t.equal(convert(3, 'tsp', 'tbsp', table), 1);
  t.equal(convert(1.5, 'l', 'cup', table), 6.25);
  t.equal(convert(500, 'g', 'cup', table, { densityGPerMl: 1 }), 2.08333333333);
  t.equal(convert(2, 'cw.unit.kg', 'g', table), 2000, 'vocabulary ids are accepted');
  t.equal(convert(250, 'Pa', 'kPa', table), 0.25);
  t.equal(convert(0, 'pinch', 'mg', table), 0);
  t.throws(() => convert(1, 'cup', 'g', table), UnitError, 'volume to mass needs a density');
  t.throws(() => convert(1, 'cup', 'g', table), { code: 'needs_density' });
  t.throws(() => convert(1, 'g', 'ml', table, { densityGPerMl: Number.NaN }), { code: 'needs_density' });
  t.throws(() => convert(1, 'degC', 'g', table, { densityGPerMl: 1 }), { code: 'incompatible_units' });
  t.throws(() => convert(1, 'oz', 'g', table), { code: 'unknown_unit' });
  t.throws(() => convert(Number.POSITIVE_INFINITY, 'g', 'kg', table), { code: 'invalid_value' });
  t.throws(() => convert(1, 'cup', 'g', table, { densityGPerMl: 0 }), /density/);
  t.throws(() => convert(1, 'degC', 'g', table), /cannot convert/);
  t.throws(() => convert(1, 'furlong', 'g', table), /unknown unit "furlong"/);
  t.throws(() => convert(Number.NaN, 'g', 'kg', table), /finite/);
  t.throws(() => convert(1, 'constructor', 'g', table), /unknown unit/);
  t.equal(roundQuantity(0.1 + 0.2), 0.3);
});

t.test('checkQuantity', async (t) => {
  t.same(checkQuantity({ value: 94, unit: 'degC', toleranceAbs: 3 }, table), []);
  t.same(checkQuantity({ value: 200, unit: 'g', tolerance: 0.1, 'x-note': 'ok' }, table), []);
  t.same(checkQuantity({ value: 2, unit: 'pcs', massPerPiece: { value: 150, unit: 'g' } }, table), []);
  t.match(checkQuantity({ value: 94, unit: 'degC', tolerance: 0.05 }, table), [/interval scale/]);
  t.match(checkQuantity({ value: 1, unit: 'g', tolerance: 0.1, toleranceAbs: 1 }, table), [/not both/]);
  t.match(checkQuantity({ value: 1, unit: 'g', tolerance: 1.5 }, table), [/between 0 and 1/]);
  t.match(checkQuantity({ value: -1, unit: 'g' }, table), [/value/]);
  t.match(checkQuantity({ value: '1', unit: 'g' }, table), [/value/]);
  t.match(checkQuantity({ value: 1, unit: 'oz' }, table), [/unknown unit/]);
  t.match(checkQuantity({ value: 1, unit: 'g', densityGPerMl: 0 }, table), [/densityGPerMl/]);
  t.match(checkQuantity({ value: 1, unit: 'g', colour: 'red' }, table), [/colour: unknown member/]);
  t.match(checkQuantity({ value: 1, unit: 'pcs', massPerPiece: { value: 1, unit: 'degC', tolerance: 0.1 } }, table), [
    /massPerPiece\/tolerance/,
  ]);
  t.match(checkQuantity('1 g', table), [/object/]);
});

t.test('parseUnitsTable refuses bad tables', async (t) => {
  t.throws(() => parseUnitsTable(null), /units/);
  t.throws(() => parseUnitsTable({ units: { g: { dimension: 'mass', factor: 0, scale: 'ratio' } } }), /positive factor/);
  t.throws(() => parseUnitsTable({ units: { g: { dimension: 'mass', factor: 1 } } }), /scale/);
  t.throws(() => parseUnitsTable({ units: {}, heatLevels: { hot: { min: 3, max: 1 } } }), /band/);
  t.same(parseUnitsTable({ units: {}, heatLevels: { hot: { min: 1, max: 3 } } }).heatLevels, { hot: { min: 1, max: 3 } });
});
