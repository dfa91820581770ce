import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { spawnCli } from '../../test-support/cli.js';

t.test('`hearth start` serves the hub: pairing, the agent card and the MCP endpoint', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-hub-start-'));
  const { child, match } = await spawnCli(
    ['start', '--http-port', '0', '--data-dir', dataDir, '--log-level', 'silent'],
    /hearth ready (http:\/\/\S+)/,
  );
  t.teardown(() => {
    child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  });
  const url = match[1];
  const pair = await fetch(`${url}/svc/v1/pair`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'probe', kind: 'agent', scopes: ['read'] }),
  });
  t.equal(pair.status, 201);
  t.match(((await pair.json()) as { user_code: string }).user_code, /^[A-Z]{4}-[A-Z]{4}$/);
  const card = await fetch(`${url}/.well-known/agent-card.json`);
  t.equal(card.status, 401);
  t.equal(card.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  const mcp = await fetch(`${url}/svc/v1/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  t.equal(mcp.status, 401);
});
