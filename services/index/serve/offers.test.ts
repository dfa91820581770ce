/**
 * The index's market: `hearth index build` publishes the reference's offer feed and providers on their pages
 * (checked against market.schema.json: a bad document stops the build naming the file and the member), and
 * `hearth index serve` searches them at `GET /v1/offers` and with the MCP tool `search_offers`, over a socket.
 */
import { copyFileSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t from 'tap';
import { buildIndex } from '../build/build.js';
import { FIXED_NOW, testKey } from '../test-helpers.js';
import { createIndexServer } from './server.js';

const reference = fileURLToPath(new URL('../../../../shared/reference/', import.meta.url));
const key = testKey();

function catalog(root: string): string {
  const dir = join(root, 'catalog');
  cpSync(join(reference, 'examples/market'), dir, { recursive: true });
  copyFileSync(join(reference, 'examples/koshari.cookwala.json'), join(dir, 'koshari.cookwala.json'));
  return dir;
}

t.test('GET /v1/offers and MCP search_offers find the offers of the market pages', async (t) => {
  const root = t.testdir({});
  const out = join(root, 'site');
  buildIndex({ recipesDir: catalog(root), outDir: out, key, now: FIXED_NOW });
  const { app } = createIndexServer({ dir: out, now: FIXED_NOW, ratePerSecond: 1000, burst: 1000 });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => app.close());
  const get = async (q: string) => {
    const res = await fetch(`${base}/v1/offers${q}`);
    return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Record<string, unknown> };
  };
  const ids = async (q: string) => ((await get(q)).body.items as { id: string }[]).map((o) => o.id);

  const lamb = await get('?q=lamb');
  t.equal(lamb.status, 200);
  t.match(lamb.body, {
    version: '1',
    total: 1,
    items: [{ id: 'gg-lamb-1kg', provider: 'did:web:greengrocer.example', providerName: 'Green Grocer Cairo' }],
  });
  t.same(await ids('?q=koshari'), ['gg-koshari-kit']);
  t.same(await ids('?ingredientId=cw.ing.lamb_shoulder&credential=halal_certified&country=EG'), ['gg-lamb-1kg']);
  t.same(await ids('?country=US'), [], 'the grocer serves Egypt only');
  t.same(await ids('?provider=did:web:greengrocer.example&type=meal_kit'), ['gg-koshari-kit']);
  t.same(await ids('?maxPrice=10&currency=USD'), ['gg-koshari-kit'], 'the lamb costs 11.50');
  t.same(await ids('?maxPrice=10&currency=EUR'), [], 'no offer in euros');
  t.same(await ids(''), ['gg-koshari-kit', 'gg-lamb-1kg'], 'no query: every offer');
  const bad = await get('?country=Egypt');
  t.equal(bad.status, 422);
  t.match(bad.type, /application\/problem\+json/);
  t.match(bad.body, { type: /\/errors\/validation-failed$/, detail: /country/ });
  t.equal((await get('?colour=red')).status, 422, 'an unknown parameter is refused, not ignored');

  const client = new Client({ name: 'index-offers-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/v1/mcp`)));
  t.teardown(() => client.close());
  const r = await client.callTool({ name: 'search_offers', arguments: { q: 'lamb shoulder', inStock: true } });
  t.notOk(r.isError);
  t.match(r.structuredContent, { total: 1, items: [{ id: 'gg-lamb-1kg' }] }, 'no token needed on the index');
  const wrong = await client.callTool({ name: 'search_offers', arguments: { maxPrice: 'cheap' } });
  t.equal(wrong.isError, true, 'arguments are checked');
});

t.test('a market document that does not validate stops the build with its file and the fault', async (t) => {
  const root = t.testdir({});
  const dir = catalog(root);
  const feed = JSON.parse(readFileSync(join(dir, 'offer-feed.json'), 'utf8')) as { offers: Record<string, unknown>[] };
  (feed.offers[0] as Record<string, unknown>).pricing = { model: 'per_unit', price: { amount: 11.5, currency: 'USD' } };
  writeFileSync(join(dir, 'offer-feed.json'), JSON.stringify(feed));
  t.throws(() => buildIndex({ recipesDir: dir, outDir: join(root, 'site'), key, now: FIXED_NOW }), {
    name: 'BuildInputError',
    message: /offer-feed\.json: not a valid OfferFeed: \/offers\/0\/pricing\/price\/amount must be string/,
  });
  const provider = JSON.parse(readFileSync(join(reference, 'examples/market/provider-grocer.json'), 'utf8')) as Record<string, unknown>;
  const root2 = t.testdir({});
  const dir2 = catalog(root2);
  writeFileSync(join(dir2, 'provider-grocer.json'), JSON.stringify({ ...provider, endpoints: { quotes: 'ftp://x' } }));
  t.throws(() => buildIndex({ recipesDir: dir2, outDir: join(root2, 'site'), key, now: FIXED_NOW }), {
    message: /provider-grocer\.json: not a valid Provider: \/endpoints\/quotes/,
  });
});
