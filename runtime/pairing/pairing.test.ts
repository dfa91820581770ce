import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { generateKeyFile, type KeyFile } from '../../core/keys.js';
import { signDocument } from '../../core/signature.js';
import { toRfc3339Seconds } from '../../core/time.js';
import { runCli } from '../../test-support/cli.js';
import { startHub } from '../hub/test-helpers.js';
import { pairingKid } from './store.js';

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

t.test("a person's key registered at pairing: their mandates verify, and it signs for nobody else", async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const alice = generateKeyFile({ kid: 'local', actor: 'me' });
  const bob = generateKeyFile({ kid: 'local', actor: 'me' });
  /** Pair as a person carrying `key`'s public half; approve; poll the token. */
  const pair = async (name: string, key: KeyFile) => {
    const start = await h.call('POST', '/svc/v1/pair', {
      key: false,
      body: { name, kind: 'human', scopes: ['read'], principalKey: key.publicKey },
    });
    t.equal(start.status, 201, JSON.stringify(start.body));
    const listed = h.hub.pairing.list().find((r) => r.userCode === start.body.user_code);
    t.equal(listed?.principalKey?.kid, pairingKid(key.publicKey), `${name}: the person approving sees which key`);
    h.hub.pairing.approve(start.body.user_code as string, 'test');
    const issued = await h.call('POST', '/svc/v1/pair/token', { key: false, body: { pollSecret: start.body.poll_secret } });
    t.equal(issued.status, 200, JSON.stringify(issued.body));
    t.equal(issued.body.principal, issued.body.token_id, `${name}: the principal is the paired token`);
    return { principal: issued.body.principal as string, kid: issued.body.principal_key_kid as string };
  };
  const a = await pair('alice', alice);
  const b = await pair('bob', bob);
  const registered = h.app.ctx.principalKeys.get(a.kid);
  t.equal(registered?.actor, a.principal, "alice's key is bound to alice's principal");
  t.equal(registered?.publicKey, alice.publicKey);

  const agentToken = h.token(['order:create'], 'agent', 'grocery-bot');
  const agentId = h.app.ctx.tokens.list().find((x) => x.name === 'grocery-bot')?.id;
  const signedAt = toRfc3339Seconds(new Date());
  const mandate = (principal: string, key: KeyFile, kid: string) =>
    signDocument(
      { kind: 'AgentMandate', principal, agent: agentId, scopes: ['order_groceries'], expires: '2099-01-01T00:00:00Z' },
      { ...key, kid },
      { kind: 'AgentMandate', signedAt },
    );
  const order = (m: unknown) =>
    h.call('POST', '/svc/v1/orders', { token: agentToken, body: { lines: [{ item: 'rice', quantity: 1, unit: 'kg' }], mandate: m } });
  const ok = await order(mandate(a.principal, alice, a.kid));
  t.equal(ok.status, 201, `a mandate signed with the key registered at pairing verifies: ${JSON.stringify(ok.body)}`);
  const forBob = await order(mandate(b.principal, bob, b.kid));
  t.equal(forBob.status, 201, "bob's key signs for bob");
  const bobForAlice = await order(mandate(a.principal, bob, b.kid));
  t.equal(bobForAlice.status, 403, "bob's key cannot sign for alice");
  t.equal(bobForAlice.body.mandateReason, 'wrong_principal');
  const aliceKidBobKey = await order(mandate(a.principal, bob, a.kid));
  t.equal(aliceKidBobKey.body.mandateReason, 'bad_signature', "bob's key under alice's kid does not verify");

  const stolen = await h.call('POST', '/svc/v1/pair', {
    key: false,
    body: { name: 'mallory', kind: 'human', scopes: ['read'], principalKey: alice.publicKey },
  });
  t.equal(stolen.status, 409, "alice's key cannot be bound to another principal");
  t.match(stolen.body.type, /\/errors\/conflict$/);
  const agent = await h.call('POST', '/svc/v1/pair', {
    key: false,
    body: { name: 'bot', kind: 'agent', scopes: ['read'], principalKey: generateKeyFile({ kid: 'k', actor: 'x' }).publicKey },
  });
  t.equal(agent.status, 422, 'an agent registers no principal key');
  const carol = generateKeyFile({ kid: 'k', actor: 'x' });
  const asAgent = await h.call('POST', '/svc/v1/pair', {
    key: false,
    body: { name: 'carol', kind: 'human', scopes: ['read'], principalKey: carol.publicKey },
  });
  t.throws(
    () => h.hub.pairing.approve(asAgent.body.user_code as string, 'test', { kind: 'agent' }),
    /approve it as human/,
    'a key-carrying request is not approved as an agent',
  );
  const junk = await h.call('POST', '/svc/v1/pair', {
    key: false,
    body: { name: 'x', kind: 'human', scopes: ['read'], principalKey: 'not a key' },
  });
  t.equal(junk.status, 422, 'a principal key that is not 32 bytes of base64url is refused');
});
