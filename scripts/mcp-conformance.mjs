#!/usr/bin/env node
// `npm run interop`: the MCP conformance suite (@modelcontextprotocol/conformance, which needs Node 22: npx fetches
// Node 22 from npm as the `node` package and runs the suite with it) against the hub's MCP endpoint of a real
// `hearth start` (ports 0, a throwaway data directory, the simulated rig). The suite sends no bearer token, so a
// small local proxy adds a paired token (scopes read, cook) to every request and forwards it unchanged (Host
// included, for the DNS-rebinding scenario). Scenarios that call the suite's own fixtures (test_* tools, prompts
// and test:// resources of its reference server) or capabilities Hearth does not declare are the expected
// failures in scripts/mcp-conformance-baseline.yaml (the reasons: docs/hub.md "MCP conformance"); any other
// failure, or a baseline entry that passes, fails the run.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const hearth = join(root, 'bin/hearth.mjs');
const baseline = join(root, 'scripts/mcp-conformance-baseline.yaml');
const dir = mkdtempSync(join(tmpdir(), 'hearth-mcp-conformance-'));

const created = spawnSync(
  process.execPath,
  [hearth, 'token', 'create', '--scopes', 'read,cook', '--name', 'conformance', '--data-dir', dir],
  {
    encoding: 'utf8',
  },
);
if (created.status !== 0) {
  console.error(`mcp-conformance: hearth token create failed: ${created.stderr.trim()}`);
  process.exit(1);
}
const token = created.stdout.trim();

const hub = spawn(process.execPath, [hearth, 'start', '--http-port', '0', '--mqtt-port', '0', '--data-dir', dir, '--sim-speed', 'manual'], {
  stdio: ['ignore', 'pipe', 'pipe'],
});
let hubOut = '';
const url = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`hearth start did not get ready in 120 s:\n${hubOut}`)), 120_000);
  const seen = (d) => {
    hubOut += d.toString();
    const m = hubOut.match(/hearth ready (http:\/\/\S+)/);
    if (m) {
      clearTimeout(timer);
      resolve(m[1]);
    }
  };
  hub.stdout.on('data', seen);
  hub.stderr.on('data', seen);
  hub.on('exit', (code) => reject(new Error(`hearth start exited (${code}):\n${hubOut}`)));
}).catch((err) => {
  console.error(`mcp-conformance: ${err.message}`);
  rmSync(dir, { recursive: true, force: true });
  process.exit(1);
});

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
const endpoint = `http://127.0.0.1:${proxy.address().port}/svc/v1/mcp`;
console.log(`mcp-conformance: ${endpoint} (a token-adding proxy in front of ${url}/svc/v1/mcp)`);

const suite = spawn(
  'npx',
  [
    '--yes',
    '-p',
    'node@22',
    '-p',
    '@modelcontextprotocol/conformance@0.1.16',
    '--',
    'conformance',
    'server',
    '--url',
    endpoint,
    '--expected-failures',
    baseline,
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);
const code = await new Promise((resolve) => suite.on('close', (c) => resolve(c ?? 1)));
proxy.close();
hub.kill('SIGTERM');
await new Promise((resolve) => hub.on('close', resolve));
rmSync(dir, { recursive: true, force: true });
process.exit(code);
