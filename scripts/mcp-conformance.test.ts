// @slow: runs the MCP conformance suite (Node 22 from npm) against a started hub and a served index (npm run test:fast skips this file; npm test runs it)
/**
 * `npm run interop` inside `npm test`: the MCP conformance suite against the hub's `/svc/v1/mcp` (`hearth start`)
 * and the index's `/v1/mcp` (`hearth index serve` over a built index) must pass every scenario that applies; the
 * expected failures (the suite's own fixtures, capabilities a server does not declare) are listed with their
 * reasons in scripts/mcp-conformance-baseline.yaml, scripts/mcp-conformance-index-baseline.yaml and docs/hub.md.
 * A new failure, or an expected failure that starts to pass, fails this test.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { repoRoot } from '../test-support/cli.js';

// The first run fetches Node 22 and the suite from npm (a few minutes on a slow line).
t.setTimeout(1_200_000);

function interop(args: string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [join(repoRoot, 'scripts/mcp-conformance.mjs'), ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    out += d.toString();
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

t.test('the MCP conformance suite passes the hub and the index, apart from the listed expected failures', async (t) => {
  const { code, out } = await interop([]);
  t.equal(code, 0, 'npm run interop exits 0', { output: out.slice(-6000) });
  t.match(out, /mcp-conformance: hub: http:\/\/127\.0\.0\.1:\d+\/svc\/v1\/mcp/, 'the hub was checked');
  t.match(out, /mcp-conformance: index: http:\/\/127\.0\.0\.1:\d+\/v1\/mcp \(hearth index serve/, 'the index was checked');
  t.match(out, /mcp-conformance: hub: passed/);
  t.match(out, /mcp-conformance: index: passed/);
  t.equal(out.match(/Baseline check passed/g)?.length, 2, 'the suite says every failure is an expected one, for both');
  t.equal(out.match(/dns-rebinding-protection: 2 passed, 0 failed/g)?.length, 2, 'the DNS-rebinding scenario passed on both');
  t.equal(out.match(/✓ tools-list: 1 passed, 0 failed/g)?.length, 2, 'tools-list passed on both');
});

t.test('npm run interop refuses an unknown --target with one line', async (t) => {
  const { code, out } = await interop(['--target', 'registry']);
  t.equal(code, 2);
  t.match(out, /^mcp-conformance: --target takes hub or index, not "registry"\n$/);
});
