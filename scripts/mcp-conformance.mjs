#!/usr/bin/env node
// `npm run interop`: the MCP conformance suite (@modelcontextprotocol/conformance, which needs Node 22: npx fetches
// Node 22 from npm as the `node` package and runs the suite with it) against both of Hearth's MCP endpoints, each
// on a real process with free ports and throwaway files:
//
// - hub: `/svc/v1/mcp` of `hearth start` (the simulated rig). The suite sends no bearer token, so a small local
//   proxy adds a paired token (scopes read, cook) to every request and forwards it unchanged (Host included, for
//   the DNS-rebinding scenario). Expected failures: scripts/mcp-conformance-baseline.yaml.
// - index: `/v1/mcp` of `hearth index serve` over an index built from examples/recipes with a throwaway key (no
//   token: the index's MCP is public). Its per-IP rate limit is raised for the run (the suite sends bursts of
//   requests; the limit is not what is under test). Expected failures: scripts/mcp-conformance-index-baseline.yaml.
//
// The expected failures are the scenarios that call the suite's own fixtures (test_* tools, prompts and test://
// resources of its reference server) or capabilities the server does not declare (reasons: docs/hub.md "MCP
// conformance"); any other failure, or a baseline entry that passes, fails the run.
//
//   npm run interop                                   both, hub first
//   npm run interop -- --target index                 one of them (hub | index)
//   npm run interop -- --scenario tools-list --verbose   anything else goes to the suite
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const hearth = join(root, 'bin/hearth.mjs');
const SUITE = '@modelcontextprotocol/conformance@0.1.16';

const TARGETS = ['hub', 'index'];
const argv = process.argv.slice(2);
let targets = TARGETS;
const at = argv.indexOf('--target');
if (at >= 0) {
  const wanted = argv[at + 1];
  if (!TARGETS.includes(wanted ?? '')) {
    console.error(`mcp-conformance: --target takes ${TARGETS.join(' or ')}, not ${JSON.stringify(wanted ?? '')}`);
    process.exit(2);
  }
  targets = [wanted];
  argv.splice(at, 2);
}

/** Run the hearth CLI to completion; its stdout, or exit with its stderr. */
function hearthSync(args) {
  const r = spawnSync(process.execPath, [hearth, ...args], { encoding: 'utf8', cwd: root });
  if (r.status !== 0) throw new Error(`hearth ${args.slice(0, 2).join(' ')} failed: ${(r.stderr || r.stdout).trim()}`);
  return r.stdout.trim();
}

/** Start a long-running hearth command; resolves with the URL its ready line names, and a stop. */
async function startHearth(args, ready, what) {
  const child = spawn(process.execPath, [hearth, ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd: root });
  let out = '';
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const closed = new Promise((resolve) => child.on('close', resolve));
    child.kill('SIGTERM');
    await closed;
  };
  try {
    const url = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${what} did not get ready in 120 s:\n${out}`)), 120_000);
      const seen = (d) => {
        out += d.toString();
        const m = out.match(ready);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      };
      child.stdout.on('data', seen);
      child.stderr.on('data', seen);
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${what} exited (${code}):\n${out}`));
      });
    });
    return { url, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A proxy on 127.0.0.1 that adds `Authorization: Bearer token` to every request it forwards to `url`. */
async function tokenProxy(url, token) {
  const target = new URL(url);
  const proxy = http.createServer((req, res) => {
    const up = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${proxy.address().port}`, close: () => new Promise((resolve) => proxy.close(resolve)) };
}

/** The hub: `hearth start` behind the token-adding proxy. */
async function hub(dir) {
  const token = hearthSync(['token', 'create', '--scopes', 'read,cook', '--name', 'conformance', '--data-dir', dir]);
  const started = await startHearth(
    ['start', '--http-port', '0', '--mqtt-port', '0', '--data-dir', dir, '--sim-speed', 'manual'],
    /hearth ready (http:\/\/\S+)/,
    'hearth start',
  );
  const proxy = await tokenProxy(started.url, token);
  return {
    endpoint: `${proxy.url}/svc/v1/mcp`,
    about: `a token-adding proxy in front of ${started.url}/svc/v1/mcp`,
    stop: async () => {
      await proxy.close();
      await started.stop();
    },
  };
}

/** The index: examples/recipes built with a throwaway key and served by `hearth index serve`. */
async function index(dir) {
  const key = join(dir, 'index-key.json');
  const site = join(dir, 'site');
  hearthSync(['keygen', '--kid', 'https://index.test#conformance', '--actor', 'index.test', '--out', key]);
  hearthSync([
    'index',
    'build',
    '--recipes',
    join(root, 'examples/recipes'),
    '--out',
    site,
    '--key',
    key,
    '--name',
    'Conformance index',
    '--json',
  ]);
  const started = await startHearth(
    ['index', 'serve', '--dir', site, '--port', '0', '--rate', '1000', '--burst', '1000'],
    /at (http:\/\/\S+)/,
    'hearth index serve',
  );
  return { endpoint: `${started.url}/v1/mcp`, about: `hearth index serve over ${site}`, stop: started.stop };
}

const SERVERS = {
  hub: { start: hub, baseline: join(root, 'scripts/mcp-conformance-baseline.yaml') },
  index: { start: index, baseline: join(root, 'scripts/mcp-conformance-index-baseline.yaml') },
};

/** The suite against `endpoint` with `baseline`; its exit code. */
function runSuite(endpoint, baseline) {
  const suite = spawn(
    'npx',
    ['--yes', '-p', 'node@22', '-p', SUITE, '--', 'conformance', 'server', '--url', endpoint, '--expected-failures', baseline, ...argv],
    { stdio: 'inherit', cwd: root },
  );
  return new Promise((resolve) => suite.on('close', (c) => resolve(c ?? 1)));
}

const results = [];
for (const name of targets) {
  const dir = mkdtempSync(join(tmpdir(), `hearth-mcp-conformance-${name}-`));
  let code = 1;
  try {
    const server = await SERVERS[name].start(dir);
    console.log(`mcp-conformance: ${name}: ${server.endpoint} (${server.about})`);
    try {
      code = await runSuite(server.endpoint, SERVERS[name].baseline);
    } finally {
      await server.stop();
    }
  } catch (err) {
    console.error(`mcp-conformance: ${name}: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`mcp-conformance: ${name}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`}`);
  results.push(code);
}
process.exit(results.every((c) => c === 0) ? 0 : 1);
