// @slow: starts a hub as a process (npm run test:fast skips this file; npm test runs it)
/**
 * What `hearth start` loads. A recorder preloaded into the spawned CLI writes every module it loads (ESM
 * loads through a loader hook, CommonJS requires through the module loader) to a file. The device process
 * must come up without the MCP SDK and zod (loaded on the first authenticated MCP request), Node-RED (only
 * with --flows), the registry, directory and index-builder services, the MQTT client (only for an external
 * broker) and YAML (only for a YAML file), nor ajv's compiler once built, nor the advice engine (loaded on the
 * first advice call), nor the hub's tool definitions (the first MCP request or MQTT command); and the SDK, the
 * tools and the engine must then load when MCP and advice are used. The build's modules are checked unbundled
 * (one by one); the bundle bin/hearth.mjs runs (scripts/build-bundle.mjs) is checked to leave the same libraries
 * out and to run from its one file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t, { type Test } from 'tap';
import { TokenStore, tokensMigration } from '../../platform/http/auth.js';
import { MigrationRegistry } from '../../platform/sqlite/migrations.js';
import { distIsFresh, spawnCli } from '../../test-support/cli.js';
import { openDatabase } from '../store/db.js';

const READY = /hearth ready (http:\/\/127\.0\.0\.1:\d+)\n/;

const RECORDER = `
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
const out = process.env.HEARTH_MODULE_LOG;
const hooks = \`import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(\${JSON.stringify(out)}, url + '\\\\n');
  return next(url, context);
}\`;
register('data:text/javascript,' + encodeURIComponent(hooks));
const Module = createRequire(import.meta.url)('node:module');
const load = Module._load;
Module._load = function (request, parent, isMain) {
  try {
    appendFileSync(out, 'require:' + Module._resolveFilename(request, parent, isMain) + '\\n');
  } catch {}
  return load.apply(this, arguments);
};
`;

/** Path fragments `hearth start` must not load until the feature is used. */
const DEFERRED: Record<string, RegExp> = {
  // From node_modules, or the build's one bundled file of the SDK with zod (scripts/build-vendor.mjs).
  'the MCP SDK': /node_modules\/@modelcontextprotocol\/|\/dist\/vendor\/mcp-server\.cjs$/,
  'the A2A SDK': /node_modules\/@a2a-js\//,
  'GraphQL (graphql-js, mercurius)': /node_modules\/(graphql|mercurius|graphql-jit)\//,
  zod: /node_modules\/zod\//,
  'Node-RED': /node_modules\/(@node-red|node-red)\//,
  'the registry service': /\/services\/registry\//,
  'the directory service': /\/services\/catalog\//,
  'the index builder': /\/services\/index\/(build\/build|cli|serve\/server|serve\/static|serve\/mcp)\./,
  'the MQTT client': /node_modules\/mqtt\//,
  YAML: /node_modules\/yaml\//,
  // The rules, tables and free-text reader; the routes, tools and skill load them on the first advice call.
  'the advice engine': /\/services\/advice\/(index|ask|constraints|rules-care|rules-cook|tables)\.(ts|js)$/,
  // The hub's tool definitions: the first MCP request or MQTT command loads them (the stop's own module is loaded).
  "the hub's tool definitions": /\/runtime\/mcp\/tools(-(advice|leases|market|notify|team))?\.(ts|js)$/,
  'the hardware buses': /node_modules\/(serialport|@serialport\/bindings-cpp|i2c-bus|onoff)\//,
};

// With a fresh build (what spawnCli then runs), every validator of a default start was compiled at build time
// (scripts/build-route-validators.mjs): ajv itself stays out; the built code needs only its small runtime helpers.
if (distIsFresh()) DEFERRED["ajv's compiler"] = /node_modules\/ajv\/dist\/(ajv|core|2020|compile\/)/;

/**
 * Start `hearth start` (a fresh data directory holding one read token) with the recorder preloaded; `loaded()`
 * reads what it has loaded so far. `unbundled`: the build's modules one by one rather than bin/hearth.mjs's bundle.
 */
async function startRecorded(t: Test, o: { unbundled?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-graph-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, 'modules.txt');
  const recorder = join(dir, 'recorder.mjs');
  writeFileSync(recorder, RECORDER);
  writeFileSync(log, '');
  const dataDir = join(dir, 'data');
  const db = openDatabase(dataDir);
  new MigrationRegistry().add(tokensMigration).migrate(db);
  const token = new TokenStore(db).create({ name: 'graph', scopes: ['read'] }).token;
  db.close();
  const { child, match } = await spawnCli(
    ['start', '--http-port', '0', '--mqtt-port', '0', '--data-dir', dataDir, '--sim-speed', 'manual', '--log-level', 'warn'],
    READY,
    {
      timeoutMs: 60_000,
      env: { ...process.env, HEARTH_MODULE_LOG: log, NODE_OPTIONS: `--import=${pathToFileURL(recorder).href}` },
      unbundled: o.unbundled,
    },
  );
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return {
    url: match[1] as string,
    token,
    loaded: () => readFileSync(log, 'utf8').split('\n'),
    stop: () => {
      child.kill('SIGTERM');
      return exit;
    },
  };
}

/** An MCP `initialize` request, with a bearer token when given. */
const mcpInitialize = (url: string, auth?: string) =>
  fetch(`${url}/svc/v1/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...(auth ? { authorization: `Bearer ${auth}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'graph-test', version: '1' } },
    }),
  });

/** The GraphQL query `{ mode { mode } }`, answered as JSON. */
const graphqlMode = async (url: string, token: string) =>
  (
    await fetch(`${url}/svc/v1/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: '{ mode { mode } }' }),
    })
  ).json();

t.test('hearth start loads neither the MCP SDK nor other unused libraries until they are used', async (t) => {
  // Module by module: bin/hearth.mjs runs the same modules bundled into one file (checked below).
  const { url, token, loaded, stop } = await startRecorded(t, { unbundled: true });
  const atReady = loaded();

  // The recorder sees both kinds of module: the supervisor (ESM) and better-sqlite3 (CommonJS).
  t.ok(
    atReady.some((m) => /\/runtime\/supervisor\/watchdog\.(ts|js)$/.test(m)),
    'the recorder saw the watchdog module',
  );
  t.ok(
    atReady.some((m) => m.startsWith('require:') && m.includes('node_modules/better-sqlite3/')),
    'the recorder saw a CommonJS require',
  );
  for (const [what, pattern] of Object.entries(DEFERRED)) {
    const hits = atReady.filter((m) => pattern.test(m));
    t.same(hits.slice(0, 3), [], `${what} is not loaded at start`);
  }

  const refused = await mcpInitialize(url);
  t.equal(refused.status, 401, 'an MCP request without a token is refused');
  await refused.text();
  t.notOk(
    loaded().some((m) => DEFERRED['the MCP SDK']?.test(m)),
    'a refused request does not load the SDK',
  );

  const first = await mcpInitialize(url, token);
  const text = await first.text();
  t.equal(first.status, 200, `the first MCP request is served (${text.slice(0, 200)})`);
  t.match(text, /hearth-hub/, 'by the hub MCP server');
  t.ok(
    loaded().some((m) => DEFERRED['the MCP SDK']?.test(m)),
    'the SDK is loaded once MCP is used',
  );
  t.ok(
    loaded().some((m) => DEFERRED["the hub's tool definitions"]?.test(m)),
    'and the tool definitions with it',
  );

  t.same(await graphqlMode(url, token), { data: { mode: { mode: 'normal' } } }, 'the first GraphQL request is served');
  t.ok(
    loaded().some((m) => DEFERRED['GraphQL (graphql-js, mercurius)']?.test(m)),
    'GraphQL is loaded once it is used',
  );

  const advice = await fetch(`${url}/svc/v1/advise/feed`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: { people: 4 } }),
  });
  const answer = (await advice.json()) as { intent?: string; options?: unknown[] };
  t.equal(advice.status, 200, 'the first advice request is served');
  t.equal(answer.intent, 'feed', 'with an answer for its intent');
  t.ok(Array.isArray(answer.options), 'listing its options');
  t.ok(
    loaded().some((m) => DEFERRED['the advice engine']?.test(m)),
    'the advice engine is loaded once advice is asked for',
  );

  t.equal(await stop(), 0, 'the device shuts down cleanly');
});

t.test('the bundled start (bin/hearth.mjs on a fresh build) leaves the same libraries out and runs from one file', async (t) => {
  if (!distIsFresh()) {
    t.pass('no fresh build: bin/hearth.mjs runs the sources (npm run build makes the bundle)');
    return;
  }
  const { url, token, loaded, stop } = await startRecorded(t);
  const atReady = loaded();
  t.ok(
    atReady.some((m) => m.endsWith('/dist/bundle/hearth.mjs')),
    'the start ran the bundle',
  );
  t.same(
    atReady.filter((m) => /\/dist\/(runtime\/(app|hub|supervisor|executor)|platform|core)\//.test(m)).slice(0, 3),
    [],
    'and loaded none of the modules it was built from (the heat guard, a process of its own, loads its few)',
  );
  t.ok(
    atReady.some((m) => m.startsWith('require:') && m.includes('node_modules/better-sqlite3/')),
    'a library kept out of the bundle still loads from node_modules',
  );
  for (const [what, pattern] of Object.entries(DEFERRED)) {
    if (!pattern.source.includes('node_modules')) continue; // our own modules: checked unbundled above
    t.same(atReady.filter((m) => pattern.test(m)).slice(0, 3), [], `${what} is not loaded at start`);
  }
  // Loaded when used, from the bundle too (its import() of a package kept out is a require()).
  const mcp = await mcpInitialize(url, token);
  const text = await mcp.text();
  t.equal(mcp.status, 200, `the first MCP request is served by the bundle (${text.slice(0, 200)})`);
  t.match(text, /hearth-hub/);
  t.same(await graphqlMode(url, token), { data: { mode: { mode: 'normal' } } }, 'and the first GraphQL request');
  const after = loaded();
  t.ok(
    after.some((m) => DEFERRED['the MCP SDK']?.test(m)) && after.some((m) => DEFERRED['GraphQL (graphql-js, mercurius)']?.test(m)),
    'each loading its library then (the MCP SDK from dist/vendor, GraphQL from node_modules)',
  );
  t.equal(await stop(), 0, 'the device shuts down cleanly');
});
