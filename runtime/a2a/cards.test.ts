/**
 * One agent card per server, each valid for the A2A SDK's 1.0 card type with absolute URLs: the hub's (as
 * served over HTTP behind a paired token, and built from a configured public URL) and the index's (written
 * by `hearth index build --base-url`, and served by `hearth index serve` from its base URL).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { agentCard } from '../../services/index/documents.js';
import { agentCardProblems } from '../../test-support/a2a-card.js';
import { hubAgentCardJson } from '../hub/agent-card.js';
import { startHub } from '../hub/test-helpers.js';

t.test('the 0.3/1.0 mix the hub served before is caught', async (t) => {
  const mixed = { ...((await hubAgentCardJson('http://h.test')) as object), url: 'http://h.test/a2a', security: [{ paired: [] }] };
  t.same(agentCardProblems(mixed), ['/url is not as the A2A 1.0 card type reads it', '/security is not as the A2A 1.0 card type reads it']);
  const relative = agentCardProblems({ ...((await hubAgentCardJson('http://h.test')) as object), documentationUrl: '/docs' });
  t.same(relative, ['/documentationUrl "/docs" is not an absolute http(s) URL']);
});

t.test('the hub card, served behind a token, is a valid A2A 1.0 card naming {hub_url}/a2a', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const token = h.token(['read'], 'agent');
  t.equal((await h.call('GET', '/.well-known/agent-card.json')).status, 401);
  const res = await h.call('GET', '/.well-known/agent-card.json', { token });
  t.equal(res.status, 200);
  t.same(agentCardProblems(res.body), []);
  t.same(res.body.supportedInterfaces, [{ url: `${h.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
  t.same(res.body.securitySchemes, {
    paired: {
      httpAuthSecurityScheme: {
        scheme: 'bearer',
        description: (res.body.securitySchemes as { paired: { httpAuthSecurityScheme: { description: string } } }).paired
          .httpAuthSecurityScheme.description,
      },
    },
  });
  t.same(res.body.securityRequirements, [{ schemes: { paired: {} } }]);
  t.same(res.body.capabilities, { streaming: true, pushNotifications: true, extendedAgentCard: false });
});

t.test('a hub behind a proxy: the card is built from the public URL', async (t) => {
  const card = (await hubAgentCardJson('https://kitchen.example/hub/')) as { supportedInterfaces: { url: string }[] };
  t.same(agentCardProblems(card), []);
  t.equal(card.supportedInterfaces[0]?.url, 'https://kitchen.example/hub/a2a');
});

t.test('the index card, built and served, is a valid A2A 1.0 card with absolute URLs', async (t) => {
  const site = { name: 'Test index', baseUrl: 'https://index.test' };
  const built = agentCard(site);
  t.same(agentCardProblems(built), []);
  t.equal(agentCard({ name: 'x', baseUrl: '' }), undefined, 'no card with relative URLs');
  const { buildIndex } = await import('../../services/index/build/build.js');
  const { createIndexServer } = await import('../../services/index/serve/server.js');
  const { testKey, smallCatalog } = await import('../../services/index/test-helpers.js');
  const dir = mkdtempSync(join(tmpdir(), 'hearth-card-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const out = join(dir, 'site');
  const recipes = join(dir, 'recipes');
  mkdirSync(recipes);
  smallCatalog(recipes, 3);
  buildIndex({ recipesDir: recipes, outDir: out, key: testKey(), name: 'Test index' });
  t.throws(() => readFileSync(join(out, '.well-known/agent-card.json')), 'no static card without --base-url');
  const { app } = createIndexServer({ dir: out });
  t.teardown(() => app.close());
  const served = await app.inject({ method: 'GET', url: '/.well-known/agent-card.json', headers: { host: 'recipes.example:8080' } });
  t.equal(served.statusCode, 200);
  const card = served.json() as { name: string; supportedInterfaces: { url: string }[] };
  t.same(agentCardProblems(card), []);
  t.equal(card.name, 'Test index');
  t.equal(card.supportedInterfaces[0]?.url, 'http://recipes.example:8080/v1/mcp');
  const { app: proxied } = createIndexServer({ dir: out, baseUrl: 'https://recipes.example/idx' });
  t.teardown(() => proxied.close());
  const behind = (await proxied.inject({ method: 'GET', url: '/.well-known/agent-card.json' })).json() as typeof card;
  t.equal(behind.supportedInterfaces[0]?.url, 'https://recipes.example/idx/v1/mcp');
});
