// @slow: runs the MCP Inspector CLI (Node 22 from npm) as its own process against a hub (npm run test:fast skips this file; npm test runs it)
/**
 * The MCP Inspector (`@modelcontextprotocol/inspector`, a devDependency) in CLI mode, a third-party client run
 * as a user would, over real HTTP against the hub's `/svc/v1/mcp` with a paired token in `--header`:
 * `tools/list` lists the hub's tools, `tools/call get_recipe` returns the recipe, a call the token has no scope
 * for is refused (`forbidden`, exit 5 for a tool error) and changes nothing, and without a token the Inspector
 * gets no further than the hub's 401. The Inspector needs Node 22: npx fetches it from npm as the `node@22`
 * package, as scripts/mcp-conformance.mjs does for the conformance suite. Its state directory
 * (~/.mcp-inspector) goes to a throwaway HOME.
 */
import { spawn, spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { repoRoot, scratchFiles } from '../../test-support/cli.js';
import { FRY_RECIPE, startHub } from '../hub/test-helpers.js';
import { EXTRA_TOOL_SCOPES, TOOL_SCOPES } from './tool-scopes.js';

// The first run fetches Node 22 from npm (a few minutes on a slow line); each Inspector run starts a fresh process.
t.setTimeout(900_000);

const INSPECTOR = join(repoRoot, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');

/** The hub's tools of the spec's table (§4.7) that every hub has (market and team tools come with their features). */
const SPEC_TOOLS = [
  'search_recipes',
  'get_recipe',
  'match_kitchen',
  'plan_preview',
  'create_session',
  'get_session',
  'list_tasks',
  'confirm_session',
  'start_session',
  'pause_session',
  'abort_session',
  'get_inventory',
  'update_inventory',
  'create_order_intent',
  'notify',
  'emergency_stop',
  'advise',
  'ask',
  'apply_advice',
  'set_mode',
  'get_mode',
];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

t.test('the MCP Inspector CLI lists the hub’s tools, calls one, and is refused as REST refuses', async (t) => {
  const home = scratchFiles(t, 'hearth-inspector-home-').dir;
  const npmCache = process.env.npm_config_cache ?? join(homedir(), '.npm');
  const env = { ...process.env, HOME: home, npm_config_cache: npmCache, MCP_AUTO_OPEN_ENABLED: 'false' };
  const found = spawnSync('npx', ['--yes', '-p', 'node@22', '--', 'node', '-p', 'process.execPath'], {
    cwd: repoRoot,
    env,
    encoding: 'utf8',
  });
  const node22 = found.stdout.trim().split('\n').at(-1) ?? '';
  t.equal(found.status, 0, `npx -p node@22 found a Node 22: ${found.stderr.slice(-500)}`);
  const h = await startHub();
  t.teardown(() => h.close());
  const endpoint = `${h.url}/svc/v1/mcp`;
  const inspector = (args: string[], token?: string): Promise<Run> =>
    new Promise((resolve) => {
      const child = spawn(
        node22,
        [
          INSPECTOR,
          '--cli',
          endpoint,
          '--transport',
          'http',
          ...(token ? ['--header', `Authorization: Bearer ${token}`] : []),
          '--stored-auth-only',
          '--format',
          'json',
          ...args,
        ],
        { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
      });
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  const result = (r: Run) => (JSON.parse(r.stdout.trim().split('\n')[0] ?? '{}') as { result: Record<string, unknown> }).result;
  const reader = h.token(['read'], 'agent', 'inspector');

  // tools/list: every tool of the hub, with its input schema.
  const listed = await inspector(['--method', 'tools/list'], reader);
  t.equal(listed.code, 0, listed.stderr.slice(-1000));
  const tools = result(listed).tools as { name: string; inputSchema: { type: string } }[];
  const names = tools.map((x) => x.name);
  for (const name of SPEC_TOOLS) t.ok(names.includes(name), `tools/list names ${name}`);
  t.ok(
    names.every((n) => n in TOOL_SCOPES || n in EXTRA_TOOL_SCOPES),
    'and only tools the hub has a scope rule for',
  );
  t.ok(
    tools.every((x) => x.inputSchema.type === 'object'),
    'each tool has an object input schema',
  );

  // tools/call get_recipe: the recipe, as data.
  const got = await inspector(['--method', 'tools/call', '--tool-name', 'get_recipe', '--tool-arg', `id=${FRY_RECIPE}`], reader);
  t.equal(got.code, 0, got.stderr.slice(-1000));
  const recipe = result(got);
  t.notOk(recipe.isError);
  t.match(recipe.structuredContent, { entry: { id: FRY_RECIPE }, recipe: { id: FRY_RECIPE } });
  t.match((recipe.content as { text: string }[])[0]?.text, /^Data from the kitchen hub\./, 'labelled as data');

  // A tool the token has no scope for: refused with the REST problem slug, a tool error (exit 5), nothing created.
  const before = h.hub.sessions.sessions.inStates(['planned', 'awaiting_confirmation']).length;
  const args = { recipes: [{ recipeId: FRY_RECIPE }], serveAt: '2026-06-01T19:00:00+02:00', mode: 'assisted' };
  const refused = await inspector(
    ['--method', 'tools/call', '--tool-name', 'create_session', '--tool-args-json', JSON.stringify(args)],
    reader,
  );
  t.equal(refused.code, 5, 'the Inspector exits 5 on a tool error');
  t.match(result(refused), {
    isError: true,
    structuredContent: { error: 'forbidden', requiredScope: 'cook' },
  });
  t.match(refused.stderr, /tool_is_error/);
  t.equal(h.hub.sessions.sessions.inStates(['planned', 'awaiting_confirmation']).length, before, 'no session was created');
  const rest = await h.call('POST', '/svc/v1/sessions', { token: reader, body: args });
  t.equal(rest.status, 403, 'REST refuses the same token the same way');

  // Without a token: the hub answers 401 and the Inspector (told to use stored auth only) stops there.
  const anonymous = await inspector(['--method', 'tools/list']);
  t.not(anonymous.code, 0, 'no token, no tools');
  t.notMatch(anonymous.stdout, /get_recipe/);
  t.match(`${anonymous.stdout}${anonymous.stderr}`, /auth|401|unauthori/i);
});
