/**
 * The market documents and the pure parts of search and quoting: the reference's examples validate, broken
 * variants are refused naming the file and the member, quantities are priced per kg or per whole pack, and an
 * item a provider cannot price is listed as unavailable.
 */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { MarketBuilder, type Offer, readMarketDocument } from './documents.js';
import { priceLine, routeQuote } from './quote.js';
import { offerQueryFromUrl, searchOffers } from './search.js';

const DIR = '../shared/reference/examples/market';
const read = (f: string) => JSON.parse(readFileSync(`${DIR}/${f}`, 'utf8')) as Record<string, unknown>;

function market() {
  const b = new MarketBuilder();
  for (const f of ['offer-feed.json', 'provider-grocer.json', 'provider-robot-maker.json']) b.add(f, read(f));
  return b.market();
}

t.test('the reference examples validate; broken ones are refused with the file and the member', async (t) => {
  const m = market();
  t.same(
    m.providers.map((p) => p.id),
    ['did:web:greengrocer.example', 'did:web:robots.example'],
  );
  t.same(
    m.offers.map((o) => `${o.provider} ${o.id}`),
    ['did:web:greengrocer.example gg-koshari-kit', 'did:web:greengrocer.example gg-lamb-1kg'],
  );
  const feed = read('offer-feed.json');
  const offers = feed.offers as Record<string, unknown>[];
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['a provider without roles', { ...read('provider-grocer.json'), roles: [] }, /f\.json: not a valid Provider: \/roles/],
    ['no spec version', (({ cookwala: _c, ...r }) => r)(read('provider-grocer.json')), /svc \(the spec version\) is required/],
    [
      'a price that is not a decimal',
      { ...feed, offers: [{ ...offers[0], pricing: { model: 'per_unit', price: { amount: 'cheap', currency: 'USD' } } }] },
      /OfferFeed: \/offers\/0\/pricing\/price\/amount/,
    ],
    ['an offer of another provider', { ...feed, offers: [{ ...offers[0], provider: 'did:web:other.example' }] }, /not the feed's/],
    ['a recall', { $kind: 'Recall' }, /not a market document/],
  ];
  for (const [what, doc, re] of cases)
    t.throws(() => readMarketDocument('f.json', doc), { name: 'MarketDocumentError', message: re }, what);
  const b = new MarketBuilder();
  b.add('a.json', read('offer-feed.json'));
  t.throws(
    () => b.add('b.json', read('offer-feed.json')),
    /b.json: offer gg-lamb-1kg of did:web:greengrocer.example is also given by a.json/,
  );
});

t.test('pricing: per kg by converted quantity, per pack by whole packs, unpriceable items unavailable', async (t) => {
  const m = market();
  const lamb = m.offers.find((o) => o.id === 'gg-lamb-1kg') as Offer;
  t.match(priceLine(lamb, { quantity: 750, unit: 'g' }, 0), { quantity: 0.75, unit: 'kg', amount: 8.63 }, '0.75 kg × 11.50');
  t.match(priceLine(lamb, {}, 0), { quantity: 1, unit: 'kg', amount: 11.5 }, 'one pack of 1 kg');
  t.equal(priceLine(lamb, { quantity: 2, unit: 'l' }, 0), undefined, 'litres of lamb cannot be priced per kg');
  const packed: Offer = {
    ...lamb,
    pricing: { model: 'per_pack', price: { amount: '3.10', currency: 'USD' } },
    pack: { value: 500, unit: 'g' },
  };
  t.match(priceLine(packed, { quantity: 1.2, unit: 'kg' }, 0), { quantity: 3, unit: 'pack', amount: 9.3 }, '1.2 kg = 3 packs of 500 g');
  t.match(priceLine(packed, { quantity: 2 }, 0), { quantity: 2, unit: 'pack', amount: 6.2 });
  t.equal(
    priceLine({ ...packed, pricing: { ...packed.pricing, model: 'quote_only' } }, {}, 0),
    undefined,
    'quote-only offers are not priced',
  );

  const r = routeQuote(
    m,
    { items: [{ ingredientId: 'cw.ing.lamb_shoulder', quantity: 2, unit: 'kg' }, { offerId: 'nope' }] },
    {
      now: new Date('2026-10-03T10:00:00Z'),
      newId: () => 'qt-1',
    },
  );
  t.match(r.quotes, [
    {
      provider: 'did:web:greengrocer.example',
      unavailable: [1],
      total: { amount: 23, currency: 'USD' },
      validUntil: '2026-10-04T10:00:00.000Z',
    },
  ]);
  t.same(routeQuote(m, { items: [{ offerId: 'nope' }] }, { now: new Date(0), newId: () => 'x' }).routedTo, [], 'nobody offers it');
});

t.test('search: text, filters and paging; URL queries checked', async (t) => {
  const m = market();
  t.equal(searchOffers(m, { q: 'Lamb' }).total, 1);
  t.equal(searchOffers(m, { q: 'lamb shoulder halal' }).total, 1, 'every word must match');
  t.equal(searchOffers(m, { q: 'lamb kit' }).total, 0);
  t.equal(searchOffers(m, { q: 'green grocer' }).total, 2, "the provider's name counts");
  const page = searchOffers(m, { limit: 1 });
  t.match(page, { total: 2, next_offset: 1, items: [{ id: 'gg-koshari-kit' }] });
  t.notOk('next_offset' in searchOffers(m, { limit: 1, offset: 1 }), 'the last page has no next_offset');
  t.same(offerQueryFromUrl({ q: 'lamb', maxPrice: '12.5', inStock: 'true', limit: '5' }), {
    q: 'lamb',
    maxPrice: 12.5,
    inStock: true,
    limit: 5,
  });
  for (const [raw, re] of [
    [{ colour: 'red' }, /unknown query parameter colour/],
    [{ country: 'egypt' }, /country must be/],
    [{ q: ['a', 'b'] }, /more than once/],
    [{ limit: '0' }, /limit must be 1 to 100/],
  ] as const)
    t.throws(() => offerQueryFromUrl(raw as Record<string, unknown>), re);
});
