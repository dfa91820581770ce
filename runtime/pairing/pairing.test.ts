import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCli } from '../../test-support/cli.js';
import { startHub } from '../hub/test-helpers.js';

t.test('an agent pairs: a person approves with `hearth pair approve`, the agent polls its token once', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-pair-'));
  const h = await startHub({ dataDir });
  t.teardown(async () => {
    await h.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const start = await h.call('POST', '/svc/v1/pair', {
    key: false,
    body: { name: 'meal planner', kind: 'agent', scopes: ['read', 'cook', 'order:create'] },
  });
  t.equal(start.status, 201);
  const code = start.body.user_code as string;
  const secret = start.body.poll_secret as string;
  t.match(code, /^[A-Z]{4}-[A-Z]{4}$/);
  t.equal(start.body.interval, 5);
  t.equal(start.body.expires_in, 600);

  const pending = await h.call('POST', '/svc/v1/pair/token', { key: false, body: { pollSecret: secret } });
  t.equal(pending.status, 400);
  t.match(pending.body.type, /authorization-pending$/);
  t.equal(pending.body.error, 'authorization_pending');

  const list = await runCli(['pair', 'list', '--data-dir', dataDir, '--json']);
  t.equal(list.code, 0, list.stderr);
  const items = JSON.parse(list.stdout) as { userCode: string; state: string; scopes: string[] }[];
  t.same(
    items.map((i) => [i.userCode, i.state]),
    [[code, 'pending']],
  );

  const approve = await runCli(['pair', 'approve', code.toLowerCase(), '--scopes', 'read,cook', '--data-dir', dataDir]);
  t.equal(approve.code, 0, approve.stderr);
  t.match(approve.stdout, new RegExp(`^${code} approved: meal planner \\(agent\\) scopes read,cook`));

  const issued = await h.call('POST', '/svc/v1/pair/token', { key: false, body: { pollSecret: secret } });
  t.equal(issued.status, 200);
  t.equal(issued.headers.get('cache-control'), 'no-store');
  t.equal(issued.body.token_type, 'Bearer');
  t.equal(issued.body.scope, 'read cook');
  t.equal(issued.body.kind, 'agent');
  const token = issued.body.access_token as string;
  t.equal((await h.call('GET', '/svc/v1/inventory', { token })).status, 200, 'the token works');
  t.equal(
    (await h.call('POST', '/svc/v1/orders', { token, body: { lines: [{ item: 'eggs', quantity: 6, unit: '1' }] } })).status,
    403,
    'order:create was not granted',
  );
  const again = await h.call('POST', '/svc/v1/pair/token', { key: false, body: { pollSecret: secret } });
  t.equal(again.status, 400);
  t.equal(again.body.error, 'expired_token');

  const tokens = await runCli(['token', 'list', '--data-dir', dataDir, '--json']);
  t.match(tokens.stdout, /meal planner/, 'the paired token is an ordinary hub token');
});

t.test('the admin routes and `--hub`: only a person with admin decides; rejection reaches the agent', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const admin = h.token(['admin'], 'human', 'household admin');
  const agentAdmin = h.token(['admin'], 'agent');
  const start = await h.call('POST', '/svc/v1/pair', { key: false, body: { name: 'shopper', kind: 'agent', scopes: ['inventory'] } });
  const code = start.body.user_code as string;
  const byAgent = await h.call('POST', `/svc/v1/pair/requests/${code}/approve`, { token: agentAdmin, body: {} });
  t.equal(byAgent.status, 403);
  t.match(byAgent.body.type, /not-human-approver$/);
  const listed = await h.call('GET', '/svc/v1/pair/requests', { token: admin });
  t.equal((listed.body.items as { userCode: string }[])[0]?.userCode, code);

  const reject = await runCli(['pair', 'reject', code, '--hub', h.url, '--token', admin, '--json']);
  t.equal(reject.code, 0, reject.stderr);
  t.equal(JSON.parse(reject.stdout).state, 'denied');
  const denied = await h.call('POST', '/svc/v1/pair/token', { key: false, body: { pollSecret: start.body.poll_secret } });
  t.equal(denied.status, 403);
  t.match(denied.body.type, /pairing-denied$/);
  t.equal(denied.body.error, 'access_denied');

  const twice = await runCli(['pair', 'approve', code, '--hub', h.url, '--token', admin]);
  t.equal(twice.code, 2);
  t.match(twice.stderr, /409 .*already denied/);
  const badScope = await h.call('POST', '/svc/v1/pair', { key: false, body: { name: 'x', kind: 'agent', scopes: ['root'] } });
  t.equal(badScope.status, 422);
});

t.test('hearth pair: bad input is one line on stderr and exit 2; --help works', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-pair-cli-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const notCode = await runCli(['pair', 'approve', 'hello', '--data-dir', dataDir]);
  t.equal(notCode.code, 2);
  t.equal(notCode.stderr.trim().split('\n').length, 1);
  t.match(notCode.stderr, /not a pairing code/);
  const unknown = await runCli(['pair', 'approve', 'BCDF-GHJK', '--data-dir', dataDir]);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, /no pairing request with code BCDF-GHJK/);
  const scope = await runCli(['pair', 'approve', 'BCDF-GHJK', '--scopes', 'read,root', '--data-dir', dataDir]);
  t.equal(scope.code, 2);
  t.match(scope.stderr, /unknown: root/);
  const empty = await runCli(['pair', 'list', '--data-dir', dataDir]);
  t.equal(empty.stdout, 'no pairing requests\n');
  const help = await runCli(['pair', 'approve', '--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /--scopes <list>/);
});

t.test(
  'a large body on the unauthenticated pairing routes is a 413 problem; a long array is refused, not validated item by item',
  async (t) => {
    const h = await startHub();
    t.teardown(() => h.close());
    const scopes = Array.from({ length: 40_000 }, (_, i) => i);
    const big = await h.call('POST', '/svc/v1/pair', { key: false, body: { name: 'x', kind: 'agent', scopes } });
    t.equal(big.status, 413);
    t.match(big.body.type, /\/errors\/payload-too-large$/);
    const poll = await h.call('POST', '/svc/v1/pair/token', { key: false, body: { pollSecret: 'p'.repeat(10_000) } });
    t.equal(poll.status, 413, 'the poll route too');
    const ok = await h.call('POST', '/svc/v1/pair', { key: false, body: { name: 'agent', kind: 'agent', scopes: ['read'] } });
    t.equal(ok.status, 201, 'an ordinary request still pairs');
    const twice = await h.call('POST', '/svc/v1/pair', { key: false, body: { name: 'agent', kind: 'agent', scopes: ['read', 'read'] } });
    t.equal(twice.status, 422, 'uniqueness is still checked within maxItems');
  },
);
