/**
 * Spec §4.7 against what runs (issue 16): the MCP tools table is read from the spec itself
 * (`../shared/spec/index-hub-executor.md` beside the repository, as test-support/shared.ts finds it), then
 * - every tool the table puts on the hub is in the hub's `tools/list` (over a real socket, the SDK client), with the
 *   table's scope in the hub's TOOL_SCOPES and in the scope matrix's copy of the table (scope-table.ts), which
 *   calls each tool with every scope and expects success or `forbidden`;
 * - every tool the table puts on the index is in the index's `/v1/mcp` `tools/list`, is read-only, needs no token,
 *   and answers a call with its row's input;
 * - the hub has the table's resources and prompts;
 * - docs/hub.md shows each tool called in an example (the walkthrough's `mcp <tool> '{…}'`, a JSON-RPC
 *   `"name":"<tool>"`, an SDK `name: '<tool>'`, an MQTT `command/<tool>` or the Inspector's `--tool-name <tool>`).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import pino from 'pino';
import t, { type Test } from 'tap';
import { parseJson } from '../../core/canonical.js';
import { ManualClock } from '../../drivers/clock.js';
import { buildIndex } from '../../services/index/build/build.js';
import { createIndexServer } from '../../services/index/serve/server.js';
import { FIXED_NOW, testKey } from '../../services/index/test-helpers.js';
import { sharedDir } from '../../test-support/shared.js';
import { App } from '../app/app.js';
import { defaultConfig } from '../config/config.js';
import { packageRoot } from '../config/paths.js';
import { type Hub, hubFeature } from '../hub/feature.js';
import { testRecipesDir } from '../hub/test-helpers.js';
import { SPEC_TOOL_SCOPES } from '../hub/testing/scope-table.js';
import { EXTRA_TOOL_SCOPES, TOOL_SCOPES } from './tool-scopes.js';

interface Row {
  tools: string[];
  where: string;
  io: string;
  /** The row's scope per tool; undefined where the row lists fewer scopes than tools (not read positionally). */
  scopes: (string | null | undefined)[];
  /** On the index: the row says so and the tool needs no write scope (the index's endpoint is read-only). */
  index: boolean[];
  hub: boolean;
}

const SPEC_FILE = join(sharedDir, 'spec/index-hub-executor.md');
const ticks = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);

/** Scopes that let a token change something; a tool that needs one is not on the read-only index. */
const WRITE_SCOPES = new Set(['cook', 'inventory', 'order:create', 'notify', 'admin', 'relief']);

/** `none`/`any` → null; `none on index, read on hub` → the hub's scope. */
function scopeWord(word: string): string | null {
  const onHub = /(\S+) on hub/.exec(word);
  const w = (onHub?.[1] ?? word).trim();
  return w === 'none' || w === 'any' ? null : w;
}

/** §4.7: the table's rows, the resources and the prompts. */
function readSpec(text: string): { rows: Row[]; resources: string[]; prompts: string[] } {
  const start = text.indexOf('### 4.7 MCP tools');
  if (start < 0) throw new Error('the spec has no section "### 4.7 MCP tools"');
  const end = text.indexOf('\n### ', start + 10);
  const section = text.slice(start, end < 0 ? undefined : end);
  const rows: Row[] = [];
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 6 || !cells[1]?.startsWith('`')) continue;
    const [, toolCell = '', where = '', io = '', scopeCell = ''] = cells;
    const tools = ticks(toolCell);
    const words = scopeCell.includes(' on hub') ? [scopeCell] : scopeCell.split(',').map((s) => s.trim());
    const positional = words.length === 1 || words.length === tools.length;
    // The scope of each tool: one for the row, else one per tool; where a row lists fewer scopes than tools, the
    // hub's scope is not read from it, and for the index the last scope covers the rest.
    const scopes = tools.map((_, i) => (positional ? scopeWord(words[words.length === 1 ? 0 : i] ?? '') : undefined));
    const loose = tools.map((_, i) => scopeWord(words[Math.min(i, words.length - 1)] ?? ''));
    // The index's endpoint is read-only: of a row it holds the tools that need no write scope.
    const onIndex = /(\S+) on index/.exec(scopeCell)?.[1];
    const index = tools.map((_, i) => /\bindex\b/.test(where) && !WRITE_SCOPES.has(onIndex ?? loose[i] ?? ''));
    rows.push({ tools, where, io, scopes, index, hub: /\bhub\b/.test(where) });
  }
  const after = (label: string) => ticks(new RegExp(`${label}:(.*?)(?:\\.\\s+[A-Z][a-z]+:|\\n|$)`).exec(section)?.[1] ?? '');
  return { rows, resources: after('Resources'), prompts: after('Prompts') };
}

const specText = existsSync(SPEC_FILE) ? readFileSync(SPEC_FILE, 'utf8') : undefined;

t.test('the spec is found, and its §4.7 table reads', async (t) => {
  if (!specText) {
    t.fail(
      `the spec is not found at ${SPEC_FILE}: this test reads the MCP tools table of spec §4.7 from ../shared/spec beside the repository (CI has it): put the standard's shared folder there to run it`,
    );
    return;
  }
  const { rows, resources, prompts } = readSpec(specText);
  const names = rows.flatMap((r) => r.tools);
  t.ok(names.length >= 25, `${names.length} tools in the table`);
  for (const n of ['search_recipes', 'create_session', 'confirm_session', 'notify', 'emergency_stop', 'ask', 'apply_advice', 'run_flow'])
    t.ok(names.includes(n), `the table has ${n}`);
  t.same(resources, ['svc://recipe/{id}', 'svc://session/{id}', 'svc://inventory']);
  t.same(prompts, ['plan_dinner', 'use_expiring_items']);
});

if (specText) {
  const spec = readSpec(specText);
  const hubTools = spec.rows.flatMap((r) => (r.hub ? r.tools.map((tool, i) => ({ tool, scope: r.scopes[i], row: r })) : []));
  const indexTools = spec.rows.flatMap((r) => r.tools.filter((_, i) => r.index[i]).map((tool) => ({ tool, row: r })));

  t.test('every hub tool of §4.7 is on the hub, with the table’s scope', async (t) => {
    const h = await hubWithFlows(t);
    const token = h.app.ctx.tokens.create({ scopes: ['read'], kind: 'agent', name: 'spec-check' }).token;
    const client = await mcpClient(t, `${h.url}/svc/v1/mcp`, token);
    const listed = new Map((await client.listTools()).tools.map((x) => [x.name, x]));
    for (const { tool, scope, row } of hubTools) {
      t.ok(listed.has(tool), `${tool} is in the hub's tools/list (${row.where})`);
      const enforced = tool in TOOL_SCOPES ? TOOL_SCOPES[tool] : EXTRA_TOOL_SCOPES[tool];
      if (scope === undefined) {
        // The row lists fewer scopes than tools: the hub's own table decides; the matrix checks it is enforced.
        t.equal(SPEC_TOOL_SCOPES[tool], enforced, `${tool}: the scope matrix checks the hub's scope ${enforced ?? 'none'}`);
        continue;
      }
      t.equal(enforced, scope, `${tool} needs ${scope ?? 'no scope'} on the hub`);
      // The scope matrix (scope-matrix.test.ts) calls every tool of its table with a token of every scope.
      if (tool in EXTRA_TOOL_SCOPES) t.ok(testedByName(tool), `${tool} is called by name in a test`);
      else t.equal(SPEC_TOOL_SCOPES[tool], scope, `the scope matrix checks ${tool} with ${scope ?? 'no scope'}`);
    }

    const templates = (await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate);
    const fixed = (await client.listResources()).resources.map((r) => r.uri);
    for (const uri of spec.resources) t.ok(templates.includes(uri) || fixed.includes(uri), `resource ${uri}`);
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    for (const p of spec.prompts) t.ok(prompts.includes(p), `prompt ${p}`);
    const inventory = await client.readResource({ uri: 'svc://inventory' });
    t.same(JSON.parse((inventory.contents[0] as { text: string }).text).items, [], 'svc://inventory reads');
  });

  t.test('every index tool of §4.7 is on the index’s read-only /v1/mcp, needs no token and answers', async (t) => {
    const out = mkdtempSync(join(tmpdir(), 'hearth-spec-index-'));
    t.teardown(() => rmSync(out, { recursive: true, force: true }));
    buildIndex({ recipesDir: join(packageRoot(), 'examples/recipes'), outDir: out, key: testKey(), now: FIXED_NOW });
    const { app } = createIndexServer({ dir: out, now: FIXED_NOW, ratePerSecond: 1000, burst: 1000 });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    t.teardown(() => app.close());
    const client = await mcpClient(t, `${base}/v1/mcp`);
    const listed = new Map((await client.listTools()).tools.map((x) => [x.name, x]));
    for (const { tool, row } of indexTools) {
      const entry = listed.get(tool);
      t.ok(entry, `${tool} is on the index (${row.where})`);
      if (!entry) continue;
      t.equal(entry.annotations?.readOnlyHint, true, `${tool} is read-only there`);
      const args = INDEX_CALLS[tool];
      if (!args) {
        t.fail(`no example call for the index tool ${tool}: add its row's input to INDEX_CALLS`);
        continue;
      }
      const r = await client.callTool({ name: tool, arguments: args.input });
      t.notOk(r.isError, `${tool} answers without a token${r.isError ? ` ${JSON.stringify(r.content)}` : ''}`);
      const answer = (r.structuredContent ?? {}) as Record<string, unknown>;
      t.ok(args.check(answer), `${tool}: ${args.answer}`, { answer: JSON.stringify(answer).slice(0, 400) });
    }
    for (const name of listed.keys())
      t.ok(
        indexTools.some((x) => x.tool === name),
        `${name} on the index is a tool the table puts there`,
      );
  });

  t.test('docs/hub.md calls each tool of §4.7 in an example', async (t) => {
    const doc = readFileSync(join(packageRoot(), 'docs/hub.md'), 'utf8');
    const code = [...doc.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n');
    for (const { tool } of hubTools) {
      const called = new RegExp(`(?:\\bmcp\\s+|"name"\\s*:\\s*"|name:\\s*'|command/|--tool-name\\s+)${tool}\\b`).test(code);
      t.ok(called, `docs/hub.md has an example calling ${tool}`);
    }
  });
}

/** The index tools called with their row's input, and what the answer must hold. */
const INDEX_CALLS: Record<string, { input: Record<string, unknown>; answer: string; check: (r: Record<string, unknown>) => boolean }> = {
  search_recipes: {
    input: { query: 'koshary', filter: { excludeAllergens: ['peanuts'] }, lang: 'en', limit: 5 },
    answer: 'index entries',
    check: (r) => (r.items as { id: string }[]).some((i) => i.id === 'example-koshari'),
  },
  get_recipe: {
    input: { id: 'example-koshari', lang: 'en' },
    answer: 'the recipe',
    check: (r) => (r.recipe as { id: string }).id === 'example-koshari',
  },
  match_kitchen: {
    input: { actors: [device('demo-fryer-robot')] },
    answer: 'match results',
    check: (r) => Array.isArray(r.items) && (r.items as { entry: { id: string } }[]).some((i) => i.entry.id === 'example-koshari'),
  },
  plan_preview: {
    input: { recipeId: 'example-koshari', scale: 1, serveAt: '2026-11-21T19:00:00Z', actors: [device('demo-fryer-robot')] },
    answer: 'a draft session',
    check: (r) =>
      r.state === 'draft' &&
      (r.recipes as { recipeId: string }[])[0]?.recipeId === 'example-koshari' &&
      (r.withoutPerson as { state: string }).state === 'refused' &&
      (r.withPerson as { state: string }).state === 'accepted' &&
      typeof r.startBy === 'string',
  },
  advise: {
    input: { intent: 'feed', query: { people: 6 } },
    answer: 'an AdviceResponse',
    check: (r) => r.$kind === 'AdviceResponse' && r.intent === 'feed',
  },
  ask: {
    input: { text: 'What can I cook with lentils and rice for 4?', lang: 'en' },
    answer: 'an AdviceResponse',
    check: (r) => r.$kind === 'AdviceResponse' && r.intent === 'cook_from',
  },
  search_offers: { input: { q: 'rice' }, answer: 'offers', check: (r) => Array.isArray(r.items) },
  relief_needs: { input: {}, answer: 'needs', check: (r) => Array.isArray(r.items) },
};

function device(name: string): unknown {
  return parseJson(readFileSync(join(packageRoot(), `examples/devices/${name}.json`), 'utf8'));
}

/** A tool outside the scope matrix (`run_flow`, present only with its feature): is it called by name in its tests? */
function testedByName(tool: string): boolean {
  const files = ['runtime/flows/feature.test.ts'];
  return files.some((f) => readFileSync(join(packageRoot(), f), 'utf8').includes(`name: '${tool}'`));
}

async function mcpClient(t: Test, url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'spec-check', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
  );
  t.teardown(() => client.close());
  return client;
}

/** A hub as `hearth start --flows` builds it, its flows stood in for by a stub: `run_flow` exists only with them. */
async function hubWithFlows(t: Test): Promise<{ app: App; url: string; hub: Hub }> {
  const app = await App.create(
    { ...defaultConfig(), host: '127.0.0.1', httpPort: 0, logLevel: 'silent', simSpeed: 'manual', recipes: testRecipesDir() },
    { clock: new ManualClock(Date.UTC(2026, 5, 1, 16, 0, 0)), logger: pino({ level: 'silent' }), database: ':memory:' },
  );
  let hub: Hub | undefined;
  app.use(hubFeature({ onReady: (h) => (hub = h), runFlow: async (flowId, inputs) => ({ flowId, inputs }) }));
  const url = await app.start();
  t.teardown(() => app.stop());
  if (!hub) throw new Error('the hub feature did not start');
  return { app, url, hub };
}
