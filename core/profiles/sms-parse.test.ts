import t from 'tap';
import { parseSms } from './sms-parse.js';

t.test('preparation and unknown commands', async (t) => {
  t.same(parseSms(''), { ok: false, error: 'empty' });
  t.same(parseSms('  \n\t '), { ok: false, error: 'empty' });
  t.same(parseSms(42), { ok: false, error: 'empty' });
  t.same(parseSms('hello there'), { ok: false, error: 'unknown_command' });
  t.same(parseSms('OFFERS 36KG MILK C'), { ok: false, error: 'unknown_command' });
  t.same(parseSms('help me please'), { ok: true, command: 'HELP' });
});

t.test('OFFER and FARM', async (t) => {
  t.same(parseSms('OFFER 12KG CHICKEN F T-18 BB2012'), {
    ok: true,
    command: 'OFFER',
    kg: 12,
    item: 'chicken',
    storage: 'frozen',
    tempC: -18,
    dateMark: { kind: 'best_before', dayMonth: '20-12' },
    foodClasses: ['poultry'],
  });
  t.same(parseSms('OFFER 36KG C C 4C 5C YOGURT'), {
    ok: true,
    command: 'OFFER',
    kg: 36,
    item: 'c 5c yogurt',
    storage: 'chilled',
    tempC: 4,
    foodClasses: ['dairy'],
  });
  t.same(
    parseSms('offer 0.5kg rice a'),
    { ok: true, command: 'OFFER', kg: 0.5, item: 'rice', storage: 'ambient' },
    'rice alone is no class',
  );
  t.same(
    parseSms('OFFER 5KG FISH EGGS A T0'),
    { ok: true, command: 'OFFER', kg: 5, item: 'fish eggs', storage: 'ambient', tempC: 0, foodClasses: ['fish', 'egg'] },
    'T0 is a temperature',
  );
  t.same(
    parseSms('OFFER 5KG YOGURTS A').ok && (parseSms('OFFER 5KG YOGURTS A') as Record<string, unknown>).foodClasses,
    undefined,
    'plural does not match',
  );
  t.same(
    parseSms('OFFER 5KG MILK C UB0101 BB0202'),
    {
      ok: true,
      command: 'OFFER',
      kg: 5,
      item: 'milk',
      storage: 'chilled',
      dateMark: { kind: 'best_before', dayMonth: '02-02' },
      foodClasses: ['dairy'],
    },
    'a later mark replaces',
  );
  t.same(
    parseSms('FARM ۲۰KG OKRA A HV3102 HV0103'),
    { ok: true, command: 'OFFER', kg: 20, item: 'okra', storage: 'ambient', origin: 'farm', harvested: '01-03' },
    'Persian digits, later HV wins',
  );
  t.same(
    parseSms('FARM २०KG OKRA A'),
    { ok: true, command: 'OFFER', kg: 20, item: 'okra', storage: 'ambient', origin: 'farm' },
    'Devanagari digits',
  );
  t.same(parseSms('OFFER 40KG UB3313'), { ok: false, error: 'usage' });
  t.same(parseSms('OFFER 40KG MILK UB3313'), { ok: false, error: 'bad_date' });
  t.same(parseSms('OFFER 40KG MILK C UB0013'), { ok: false, error: 'bad_date' });
  t.same(parseSms('OFFER 40KG MILK C UB3200'), { ok: false, error: 'bad_date' });
  t.same(parseSms('OFFER 40KG MILK T4'), { ok: false, error: 'usage' }, 'no storage');
  t.same(parseSms('OFFER 40KG C T4 UB0101'), { ok: false, error: 'usage' }, 'no item words');
  t.same(parseSms('OFFER 40 MILK C'), { ok: false, error: 'usage' }, 'token 2 must be kg');
  t.same(parseSms('OFFER .5KG MILK C'), { ok: false, error: 'usage' });
  t.same((parseSms('OFFER 1KG COOKED RICE TRAYS H') as Record<string, unknown>).foodClasses, ['cooked_food', 'cooked_rice']);
});

t.test('CLAIM, CANCEL, HAND', async (t) => {
  t.same(parseSms('CLAIM B9Q 15'), { ok: true, command: 'CLAIM', offer: 'B9Q', kg: 15 });
  t.same(parseSms('claim b9q 15kg'), { ok: true, command: 'CLAIM', offer: 'B9Q', kg: 15 });
  t.same(parseSms('CLAIM B9Q 15LB'), { ok: false, error: 'usage' });
  t.same(parseSms('CLAIM B9Q ALL NOW'), { ok: false, error: 'usage' });
  t.same(parseSms('CANCEL'), { ok: false, error: 'usage' });
  t.same(parseSms('CANCEL A B'), { ok: false, error: 'usage' });
  t.same(parseSms('HAND B9Q 0 REJ 11 TEMP T49'), {
    ok: true,
    command: 'HAND',
    offer: 'B9Q',
    kgAccepted: 0,
    kgRejected: 11,
    reason: 'temp_out_of_range',
    reasonCode: 'TEMP',
    tempC: 49,
  });
  t.same(parseSms('HAND B9Q 5 REJ 1 WEIRD 4C REJ 3C'), {
    ok: true,
    command: 'HAND',
    offer: 'B9Q',
    kgAccepted: 5,
    kgRejected: 1,
    reason: 'other',
    reasonCode: 'WEIRD',
    tempC: 3,
  });
  t.same(parseSms('HAND B9Q 12 REJ'), { ok: false, error: 'usage' });
  t.same(parseSms('HAND B9Q 12 REJ X PACK'), { ok: false, error: 'usage' });
  t.same(parseSms('HAND B9Q 36KG'), { ok: false, error: 'usage' });
  t.same(parseSms('HAND B9Q'), { ok: false, error: 'usage' });
});

t.test('DIST and MENU', async (t) => {
  t.same(parseSms('DIST 10 MEALS 8 PEOPLE 3.5KG'), { ok: true, command: 'DIST', meals: 10, people: 8, kg: 3.5 });
  t.same(parseSms('DIST 10.5 MEALS 8 PEOPLE 3KG'), { ok: false, error: 'usage' });
  t.same(parseSms('DIST 10 MEALS 8 PEOPLE 3KG EXTRA'), { ok: false, error: 'usage' });
  t.same(parseSms('DIST 10 MEAL 8 PEOPLE 3KG'), { ok: false, error: 'usage' });
  t.same(parseSms('MENU D1 PROTEIN20 KCAL500 KCAL600'), {
    ok: true,
    command: 'MENU',
    distribution: 'D1',
    perMeal: { proteinG: 20, energyKcal: 600 },
  });
  t.same(parseSms('MENU D1'), { ok: false, error: 'usage' });
  t.same(parseSms('MENU D1 SUGAR5'), { ok: false, error: 'usage' });
});
