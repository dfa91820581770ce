import t from 'tap';
import { checkSignal, truthy } from './signal-policy.js';

const demand = {
  kind: 'DemandSignal',
  region: { country: 'EG', admin1: 'Giza' },
  ingredientClass: 'cw.ing.class.grain',
  contributingSources: 30,
  delayDays: 7,
  prices: 'none',
};

t.test('every rule is evaluated, reasons sorted', async (t) => {
  t.same(checkSignal(demand), { ok: true, reasons: [] });
  t.same(checkSignal({ ...demand, contributingSources: 3, delayDays: 1, ingredientClass: 'cw.ing.rice' }), {
    ok: false,
    reasons: ['class_level_required', 'delay_too_short', 'too_few_sources'],
  });
  t.same(checkSignal({ ...demand, prices: null }).reasons, ['prices_not_allowed'], 'explicit null prices on a demand signal');
  t.same(checkSignal({ ...demand, unitPrice: 'none', price: null }).reasons, []);
  t.same(checkSignal({ ...demand, price: 0 }).reasons, ['prices_not_allowed']);
  t.same(checkSignal({ ...demand, region: { admin2: 'Dokki' } }).reasons, ['region_too_fine']);
  t.same(checkSignal({ ...demand, region: { pcode: 'EG0101' }, contributingSources: 100 }).reasons, []);
  t.same(checkSignal({ ...demand, region: { admin2: '', pcode: 0 } }).reasons, [], 'falsy fine-region fields do not count');
  t.same(checkSignal({ ...demand, contributingSources: '50' }).reasons, ['too_few_sources'], 'non-numeric counts fail closed');
  t.same(checkSignal({ ...demand, ingredientClass: 'x-coop.beans' }).reasons, []);
  t.same(checkSignal({ kind: 'SupplySignal', ingredientClass: 'cw.ing.class.fruit', openToAll: 'true' }).reasons, ['must_be_open_to_all']);
  t.same(checkSignal({ kind: 'SupplySignal', ingredientClass: 'cw.ing.class.fruit', openToAll: true, prices: 'none' }), {
    ok: true,
    reasons: [],
  });
  t.same(checkSignal({ kind: 'Rumour', openToAll: true, price: '1', prices: 'x' }).reasons, [
    'class_level_required',
    'prices_not_allowed',
    'unknown_kind',
  ]);
  t.same(checkSignal(null).reasons, ['class_level_required', 'unknown_kind']);
});

t.test('truthy like the reference', async (t) => {
  for (const v of ['a', 1, -1, true, [0], { a: 0 }]) t.ok(truthy(v), JSON.stringify(v));
  for (const v of ['', 0, false, null, undefined, [], {}, Number.NaN]) t.notOk(truthy(v), String(JSON.stringify(v)));
});
