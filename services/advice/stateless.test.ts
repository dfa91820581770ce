/**
 * The index's advice over a real socket: stateless (the catalog and what the request carries; nothing kept),
 * answers validate against the AdviceResponse schema, and personal data is refused.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t from 'tap';
import { validate } from '../../schemas/index.js';
import { scratchFiles } from '../../test-support/cli.js';
import { buildIndex } from '../index/build/build.js';
import { createIndexServer } from '../index/serve/server.js';
import { FIXED_NOW, testKey } from '../index/test-helpers.js';

// A directory of its own, not tap's root fixture: this file may share its process with others (scripts/test-run.mjs).
const root = scratchFiles(t, 'hearth-advice-').dir;
for (const sub of ['recipes', 'out']) mkdirSync(join(root, sub));
for (const n of ['koshari', 'shakshuka'])
  copyFileSync(fileURLToPath(new URL(`../../examples/recipes/${n}.svc.json`, import.meta.url)), join(root, 'recipes', `${n}.svc.json`));
buildIndex({ recipesDir: join(root, 'recipes'), outDir: join(root, 'out'), key: testKey(), now: FIXED_NOW });

t.test('POST /v1/advise/{intent} on the index: stateless answers', async (t) => {
  const { app } = createIndexServer({ dir: join(root, 'out'), now: FIXED_NOW, ratePerSecond: 1000, burst: 1000 });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => app.close());
  const post = async (intent: string, body: unknown) => {
    const r = await fetch(`${base}/v1/advise/${intent}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  };
  const pantry = {
    query: {
      servings: 4,
      ingredients: ['egg_chicken_large', 'tomato_crushed_canned', 'bell_pepper_red', 'onion_yellow', 'olive_oil', 'garlic'].map((i) => ({
        ingredientId: `cw.ing.${i}`,
        qty: { value: 2000, unit: 'g' },
      })),
    },
  };
  const r = await post('cook_from', pantry);
  t.equal(r.status, 200);
  t.ok(validate.adviceResponse(r.body).valid, 'a valid AdviceResponse');
  t.same(r.body.context, { source: 'request', used: ['catalog'] }, 'only the request and the catalog');
  t.same((r.body.options as { recipeIds: string[] }[])[0]?.recipeIds, ['example-shakshuka']);
  // An ingredient on two lines (koshari's vinegar: in the sauce and the daqqa) is one missing ingredient.
  const koshari = [
    'rice_short',
    'vermicelli_wheat',
    'vegetable_oil',
    'lentils_brown',
    'pasta_short',
    'onion_yellow',
    'wheat_flour',
    'tomato_passata',
    'garlic',
  ];
  const short = await post('cook_from', {
    query: { ingredients: koshari.map((i) => ({ ingredientId: `cw.ing.${i}`, qty: { value: 5000, unit: 'g' } })) },
  });
  const kOpt = (short.body.options as { recipeIds: string[]; coverage: { missing: string[] } }[]).find(
    (o) => o.recipeIds[0] === 'example-koshari',
  );
  t.same(
    kOpt?.coverage.missing.sort(),
    ['cw.ing.chickpeas_cooked', 'cw.ing.vinegar_white'],
    'two ingredients short, vinegar counted once: still offered',
  );
  const again = await post('cook_from', { query: { servings: 4 } });
  t.same(again.body.options, [], 'nothing of the first request was kept: an empty pantry covers nothing');
  const stored = await post('store', { query: { recipeId: 'example-shakshuka', duration: 'P3D' } });
  t.equal(stored.body.status, 'answered');
  const personal = await post('personalize', { query: { recipeIds: ['example-shakshuka'] } });
  t.equal(personal.status, 403);
  t.match(personal.body.type, /policy-deny$/);
  t.equal((await post('nope', {})).status, 404);

  const client = new Client({ name: 'advice-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/v1/mcp`)));
  t.teardown(() => client.close());
  const asked = await client.callTool({ name: 'ask', arguments: { text: 'How long can I keep shakshuka in the fridge?' } });
  t.notOk(asked.isError);
  t.equal((asked.structuredContent as { intent: string }).intent, 'store');
  const viaMcp = await client.callTool({
    name: 'advise',
    arguments: {
      intent: 'recover',
      query: { incident: { type: 'cw.incident.time_temp_abuse', observations: { minutesInDangerZone: 45 } } },
    },
  });
  t.equal(
    (viaMcp.structuredContent as { safety: { verdict: string } }).safety.verdict,
    'safe_with_conditions',
    '45 min is within the limit',
  );
});
