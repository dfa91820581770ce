/**
 * Planning over a real socket (issue 16 item 7): plan_preview scales inside the recipe's envelope (REST and MCP),
 * match_kitchen reads the inventory, the household's level and allergens refuse recipes, `away` refuses heat in
 * the executor's start path (the fryer stays cold) and `saver` ranks the cheapest plan first.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t from 'tap';
import { documentHash } from '../../../core/hash.js';
import { executeRequest, newKey } from '../../app/testing.js';
import { FRY_RECIPE, startHub, type TestHub, testRecipesDir } from '../test-helpers.js';

const SHAKSHUKA = 'example-shakshuka';
const SERVE_AT = '2026-06-01T19:00:00Z';

async function mcp(h: TestHub, scopes: string[]): Promise<Client> {
  const client = new Client({ name: 'planning-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${h.url}/svc/v1/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${h.token(scopes, 'agent')}` } },
    }),
  );
  return client;
}

type Line = { ref: string; need?: { value: number; unit: string } };

t.test('plan-preview scales inside the envelope, over REST and MCP', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const token = h.token(['read']);
  const r = await h.call('POST', '/svc/v1/plan-preview', { token, body: { recipeId: SHAKSHUKA, scale: 2, serveAt: SERVE_AT } });
  t.equal(r.status, 200, String(r.body.detail ?? ''));
  const scaled = r.body.scaled as { scale: number; servings: number; ingredients: Line[] };
  t.equal(scaled.scale, 2);
  t.equal(scaled.servings, 8, 'shakshuka serves 4; 2× serves 8');
  t.same(scaled.ingredients.find((i) => i.ref === 'oil')?.need ?? scaled.ingredients.find((i) => i.ref === 'oil'), {
    ref: 'oil',
    ingredientId: 'cw.ing.olive_oil',
    name: '2 tbsp olive oil',
    qty: { value: 60, unit: 'ml' },
  });
  t.same((r.body.cost as { total: number }).total, 13, 'the cost scales too');
  t.ok(typeof r.body.startBy === 'string', 'when to start for the serving time');
  const bySrv = await h.call('POST', '/svc/v1/plan-preview', { token, body: { recipeId: SHAKSHUKA, servings: 6 } });
  t.equal((bySrv.body.scaled as { scale: number }).scale, 1.5, 'servings give the scale');

  const over = await h.call('POST', '/svc/v1/plan-preview', { token, body: { recipeId: SHAKSHUKA, scale: 3 } });
  t.equal(over.status, 409);
  t.match(over.body.type, /\/errors\/no-feasible-plan$/);
  t.match(over.body.detail, /0\.5× to 2×/);
  const unknown = await h.call('POST', '/svc/v1/plan-preview', { token, body: { recipeId: 'nope' } });
  t.equal(unknown.status, 404);

  const client = await mcp(h, ['read']);
  t.teardown(() => client.close());
  const viaMcp = await client.callTool({ name: 'plan_preview', arguments: { recipeId: SHAKSHUKA, scale: 0.5 } });
  t.notOk(viaMcp.isError);
  const ing = (viaMcp.structuredContent as { scaled: { ingredients: { ref: string; qty?: { value: number } }[] } }).scaled.ingredients;
  t.equal(ing.find((i) => i.ref === 'oil')?.qty?.value, 15, 'MCP scales the same way');
  const refused = await client.callTool({ name: 'plan_preview', arguments: { recipeId: SHAKSHUKA, scale: 4 } });
  t.ok(refused.isError);
  t.equal((refused.structuredContent as { error: string }).error, 'no-feasible-plan');
});

t.test('match_kitchen lists what the inventory lacks, scaled', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const inv = h.token(['inventory']);
  const put = await h.call('PATCH', '/svc/v1/inventory', {
    token: inv,
    body: {
      upsert: [
        { name: 'Eggs', quantity: 6, unit: 'pcs' },
        { name: 'Olive oil', quantity: 0.05, unit: 'l' },
        { name: 'Onion', quantity: 3, unit: 'pcs' },
      ],
    },
  });
  t.equal(put.status, 200);
  const client = await mcp(h, ['read']);
  t.teardown(() => client.close());
  type Item = { entry: { id: string }; scale: number; stock: { have: Line[]; short: Line[]; missing: Line[] } };
  const get = async (args: Record<string, unknown>) => {
    const r = await client.callTool({ name: 'match_kitchen', arguments: args });
    t.notOk(r.isError, 'match_kitchen answers');
    return (r.structuredContent as { items: Item[] }).items;
  };
  const shak = (await get({ limit: 50 })).find((i) => i.entry.id === SHAKSHUKA);
  if (!shak) throw new Error('shakshuka does not match');
  const refs = (l: Line[]) => l.map((x) => x.ref).sort();
  t.ok(refs(shak.stock.have).includes('onion'), 'onions in stock');
  t.ok(refs(shak.stock.have).includes('oil'), '50 ml of oil covers 30 ml');
  t.ok(refs(shak.stock.missing).includes('pepper'), 'no pepper in stock: listed as missing');
  t.notOk(refs(shak.stock.missing).includes('onion'));
  const doubled = (await get({ servings: 8, limit: 50 })).find((i) => i.entry.id === SHAKSHUKA);
  t.equal(doubled?.scale, 2);
  const oil = doubled?.stock.short.find((l) => l.ref === 'oil');
  t.same(oil?.need, { value: 60, unit: 'ml' }, 'for 8 the recipe needs 60 ml of oil and 50 ml is short');
  const given = (await get({ inventory: { items: [{ name: 'red bell pepper', quantity: 2, unit: 'pcs' }] }, limit: 50 })).find(
    (i) => i.entry.id === SHAKSHUKA,
  );
  t.ok(refs(given?.stock.have ?? []).includes('pepper'), 'an inventory in the request replaces the hub’s');
});

t.test('the household’s level and allergens refuse recipes', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const admin = h.token(['admin', 'read']);
  const cook = h.token(['cook']);
  const agentAdmin = h.token(['admin'], 'agent');
  const byAgent = await h.call('PUT', '/svc/v1/household', { token: agentAdmin, body: { minLevel: 'V3' } });
  t.equal(byAgent.status, 403, 'an agent cannot set the household’s constraints');
  t.match(byAgent.body.type, /not-human-approver$/);
  const set = await h.call('PUT', '/svc/v1/household', { token: admin, body: { minLevel: 'V2' } });
  t.equal(set.status, 200);
  t.equal((await h.call('GET', '/svc/v1/household', { token: admin })).body.minLevel, 'V2');
  const low = await h.call('POST', '/svc/v1/sessions', {
    token: cook,
    body: { recipes: [{ recipeId: 'example-koshari' }], serveAt: SERVE_AT, mode: 'assisted' },
  });
  t.equal(low.status, 409, 'koshari is V1');
  t.match(low.body.type, /\/errors\/verification-level$/);
  t.equal(low.body.minLevel, 'V2');
  const ok = await h.call('POST', '/svc/v1/sessions', {
    token: cook,
    body: { recipes: [{ recipeId: SHAKSHUKA }], serveAt: SERVE_AT, mode: 'assisted' },
  });
  t.equal(ok.status, 201, 'shakshuka is V2');
  const preview = await h.call('POST', '/svc/v1/plan-preview', { token: admin, body: { recipeId: 'example-koshari' } });
  t.match(preview.body.type, /\/errors\/verification-level$/, 'plan_preview refuses it too');

  await h.call('PUT', '/svc/v1/household', { token: admin, body: { excludeAllergens: ['eggs'] } });
  const eggs = await h.call('POST', '/svc/v1/sessions', {
    token: cook,
    body: { recipes: [{ recipeId: SHAKSHUKA }], serveAt: SERVE_AT, mode: 'assisted' },
  });
  t.equal(eggs.status, 403);
  t.match(eggs.body.type, /\/errors\/policy-deny$/);
  t.match(eggs.body.detail, /contains eggs/);
});

t.test('away refuses heat in the executor’s start path; the fryer stays cold', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  await h.presence(true);
  const person = h.token(['cook', 'admin', 'read']);
  const fryer = () => h.app.ctx.rig.heaters.get('fryer')?.power ?? -1;
  t.equal((await h.call('PUT', '/svc/v1/mode', { token: person, body: { mode: 'away' } })).status, 200);
  const created = await h.call('POST', '/svc/v1/sessions', {
    token: person,
    body: { recipes: [{ recipeId: FRY_RECIPE }], serveAt: SERVE_AT, mode: 'assisted' },
  });
  const id = created.body.id as string;
  const rules = (created.body.confirmation as { requiredRules: string[] }).requiredRules;
  t.equal((await h.call('POST', `/svc/v1/sessions/${id}/confirm`, { token: person, body: { acknowledgedRules: rules } })).status, 200);
  const start = await h.call('POST', `/svc/v1/sessions/${id}/start`, { token: person });
  t.equal(start.status, 403, 'the session start is refused');
  t.match(start.body.type, /\/errors\/policy-deny$/);
  t.match(start.body.detail, /away/);

  // The executor's own route, another transport, meets the same refusal.
  const key = newKey();
  const direct = await h.call('POST', '/v1/executions', { token: person, key, body: executeRequest(h.app, FRY_RECIPE, key) });
  t.equal(direct.status, 202);
  t.equal(direct.body.state, 'refused');
  t.match((direct.body.refusal as { detail: string }).detail, /away/);
  await h.clock.advanceAsync(5000);
  t.equal(fryer(), 0, 'the fryer never heated');

  const preview = await h.call('POST', '/svc/v1/plan-preview', { token: person, body: { recipeId: FRY_RECIPE } });
  t.match((preview.body.modeRefusal as { detail: string }).detail, /away/, 'the preview says so');

  t.equal((await h.call('PUT', '/svc/v1/mode', { token: person, body: { mode: 'normal' } })).status, 200);
  const again = await h.call('POST', `/svc/v1/sessions/${id}/start`, { token: person });
  t.equal(again.status, 202, 'in normal mode the same session starts');
  t.ok(await h.runUntil(() => fryer() > 0, 120_000, 1000), 'and the fryer heats');
  await h.call('POST', `/svc/v1/sessions/${id}/abort`, { token: person, body: { reason: 'test over' } });
});

t.test('saver ranks the cheapest plan first', async (t) => {
  // The fried onions cost less than the shakshuka; in normal mode the shakshuka ranks first (more automated).
  const dir = testRecipesDir();
  const file = join(dir, `${FRY_RECIPE}.svc.json`);
  const { hash: _old, ...doc } = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const cheap: Record<string, unknown> = { ...doc, cost: { currency: 'USD', total: 1.2 } };
  cheap.hash = documentHash(cheap);
  writeFileSync(file, JSON.stringify(cheap));
  const h = await startHub({ recipes: dir });
  t.teardown(() => h.close());
  const admin = h.token(['admin', 'read']);
  const normal = await matchIds(h, admin);
  t.equal(normal[0], SHAKSHUKA, 'normal mode: by stock and automation');
  await h.call('PUT', '/svc/v1/mode', { token: admin, body: { mode: 'saver' } });
  const saver = await matchIds(h, admin);
  t.same(saver.slice(0, 2), [FRY_RECIPE, SHAKSHUKA], 'saver: cheapest first, recipes without a cost last');
});

async function matchIds(h: TestHub, token: string): Promise<string[]> {
  const client = new Client({ name: 'planning-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${h.url}/svc/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  const r = await client.callTool({ name: 'match_kitchen', arguments: { limit: 50 } });
  await client.close();
  return (r.structuredContent as { items: { entry: { id: string } }[] }).items.map((i) => i.entry.id);
}
