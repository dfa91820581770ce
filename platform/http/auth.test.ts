import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import websocket from '@fastify/websocket';
import Database from 'better-sqlite3';
import t from 'tap';
import { WebSocket } from 'ws';
import { MigrationRegistry } from '../sqlite/migrations.js';
import { createHttpApp } from './app.js';
import { hashToken, installBearerAuth, TokenStore, tokensMigration, VERIFIED_CACHE_SIZE } from './auth.js';

function setup() {
  const db = new Database(':memory:');
  new MigrationRegistry().add(tokensMigration).migrate(db);
  const tokens = new TokenStore(db, () => Date.parse('2026-01-01T00:00:00Z'));
  const app = createHttpApp({ baseUrl: 'http://dev' });
  installBearerAuth(app, { tokens });
  app.get('/open', async (req) => ({ who: req.principal?.name ?? null }));
  app.post('/cook', { config: { scope: 'cook' } }, async (req) => ({ who: req.principal?.name, kind: req.principal?.kind }));
  app.get('/either', { config: { scope: ['read', 'admin'] } }, async () => ({ ok: true }));
  return { db, tokens, app };
}

t.test('tokens are stored hashed and can be listed and revoked', (t) => {
  const { db, tokens } = setup();
  const { token, info } = tokens.create({ name: 'kitchen tablet', scopes: ['read', 'cook', 'read'], kind: 'human' });
  t.match(token, /^hth_[A-Za-z0-9_-]{43}$/);
  t.same(info.scopes, ['read', 'cook']);
  const row = db.prepare('SELECT * FROM tokens').get() as Record<string, unknown>;
  t.equal(row.hash, hashToken(token));
  t.notOk(JSON.stringify(row).includes(token), 'secret not stored');
  t.same(tokens.verify(token), { id: info.id, name: 'kitchen tablet', kind: 'human', scopes: ['read', 'cook'] });
  t.equal(tokens.verify(`${token}x`), null);
  t.equal(tokens.list().length, 1);
  t.equal(tokens.revoke('kitchen tablet'), 1);
  t.equal(tokens.revoke(info.id), 0);
  t.equal(tokens.verify(token), null);
  t.equal(tokens.list()[0]?.revokedAt, '2026-01-01T00:00:00.000Z');
  t.throws(() => tokens.create({ scopes: [] }), /at least one scope/);
  t.throws(() => tokens.create({ scopes: ['Bad Scope'] }), /bad scope/);
  t.throws(() => tokens.create({ scopes: ['read'], kind: 'robot' as 'human' }), /kind/);
  t.end();
});

t.test('401, 403 and success', async (t) => {
  const { tokens, app } = setup();
  const cook = tokens.create({ name: 'agent-1', scopes: ['cook'], kind: 'agent' }).token;
  const reader = tokens.create({ name: 'viewer', scopes: ['read'] }).token;

  const none = await app.inject({ method: 'POST', url: '/cook' });
  t.equal(none.statusCode, 401);
  t.equal(none.headers['www-authenticate'], 'Bearer realm="hearth"');
  t.equal(none.json().type, 'http://dev/errors/unauthorized');

  const bad = await app.inject({ method: 'POST', url: '/cook', headers: { authorization: 'Bearer hth_nope' } });
  t.equal(bad.statusCode, 401);
  t.match(bad.headers['www-authenticate'], /error="invalid_token"/);

  const basic = await app.inject({ method: 'POST', url: '/cook', headers: { authorization: 'Basic Zm9vOmJhcg==' } });
  t.equal(basic.statusCode, 401);

  const wrong = await app.inject({ method: 'POST', url: '/cook', headers: { authorization: `Bearer ${reader}` } });
  t.equal(wrong.statusCode, 403);
  t.equal(wrong.headers['www-authenticate'], 'Bearer realm="hearth", error="insufficient_scope", scope="cook"');
  t.equal(wrong.json().type, 'http://dev/errors/forbidden');

  const ok = await app.inject({ method: 'POST', url: '/cook', headers: { authorization: `bearer ${cook}` } });
  t.equal(ok.statusCode, 200);
  t.same(ok.json(), { who: 'agent-1', kind: 'agent' });

  t.equal((await app.inject({ method: 'GET', url: '/either', headers: { authorization: `Bearer ${reader}` } })).statusCode, 200);
  t.equal((await app.inject({ method: 'GET', url: '/either', headers: { authorization: `Bearer ${cook}` } })).statusCode, 403);

  // Routes without a scope never refuse, even for a bad token.
  const open = await app.inject({ method: 'GET', url: '/open', headers: { authorization: 'Bearer garbage' } });
  t.equal(open.statusCode, 200);
  t.same(open.json(), { who: null });
});

t.test('a WebSocket route with config.scope refuses before the upgrade, and the server still closes', async (t) => {
  const { tokens, app } = setup();
  await app.register(websocket);
  const checked: string[] = [];
  app.get(
    '/feed',
    { websocket: true, config: { scope: 'read' }, preValidation: async (req) => void checked.push(req.principal?.name ?? '-') },
    (socket: WebSocket) => socket.send('hello'),
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const reader = tokens.create({ name: 'viewer', scopes: ['read'] }).token;
  const cook = tokens.create({ name: 'agent-1', scopes: ['cook'], kind: 'agent' }).token;

  const connect = (token?: string) =>
    new Promise<{ status: number; challenge?: string; message?: string }>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/feed`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
      ws.on('unexpected-response', (_req, res) => {
        resolve({ status: res.statusCode ?? 0, challenge: String(res.headers['www-authenticate']) });
        res.resume();
        ws.terminate();
      });
      ws.on('message', (data) => {
        resolve({ status: 101, message: String(data) });
        ws.close();
      });
      ws.on('error', reject);
    });

  t.same(await connect(), { status: 401, challenge: 'Bearer realm="hearth"' });
  t.match(await connect('hth_nope'), { status: 401, challenge: /error="invalid_token"/ });
  t.match(await connect(cook), { status: 403, challenge: /error="insufficient_scope", scope="read"/ });
  t.same(await connect(reader), { status: 101, message: 'hello' });
  t.same(checked, ['viewer'], "the route's own preValidation runs after the scope check");

  const closed = await Promise.race([app.close().then(() => 'closed'), new Promise((r) => setTimeout(r, 5000, 'hung')).then(String)]);
  t.equal(closed, 'closed', 'no refused upgrade is left open');
});

t.test('a token revoked by another process is refused at the next request, and kept principals stay few', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-auth-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = new Database(join(dir, 'hearth.db'));
  db.pragma('journal_mode = WAL');
  t.teardown(() => db.close());
  new MigrationRegistry().add(tokensMigration).migrate(db);
  const tokens = new TokenStore(db);
  const app = createHttpApp({ baseUrl: 'http://dev' });
  installBearerAuth(app, { tokens });
  app.get('/read', { config: { scope: 'read' } }, async (req) => ({ who: req.principal?.name }));
  const get = async (token: string) =>
    (await app.inject({ method: 'GET', url: '/read', headers: { authorization: `Bearer ${token}` } })).statusCode;

  const tablet = tokens.create({ name: 'tablet', scopes: ['read'] }).token;
  const phone = tokens.create({ name: 'phone', scopes: ['read'] }).token;
  t.equal(await get(tablet), 200);
  t.equal(await get(tablet), 200, 'answered again (the principal kept from the first request)');
  t.ok(Object.isFrozen(tokens.verify(tablet)), 'the principal handed to requests cannot be changed by one of them');

  // `hearth token revoke` is another process: another connection to the same file.
  const other = new Database(join(dir, 'hearth.db'));
  t.equal(new TokenStore(other).revoke('tablet'), 1);
  other.close();
  t.equal(await get(tablet), 401, 'refused at the very next request');
  t.equal(await get(phone), 200);

  // Another store on the same connection (pairing keeps its own TokenStore).
  t.equal(await get(phone), 200);
  t.equal(new TokenStore(db).revoke('phone'), 1);
  t.equal(await get(phone), 401);

  // A scope taken away in the database directly, by another connection, is seen at once too.
  const cook = tokens.create({ name: 'cook', scopes: ['read'] }).token;
  t.equal(await get(cook), 200);
  const third = new Database(join(dir, 'hearth.db'));
  third.prepare(`UPDATE tokens SET scopes = '["cook"]' WHERE name = 'cook'`).run();
  third.close();
  t.equal(await get(cook), 403);

  // Many valid tokens presented in turn: what is kept stays bounded.
  const many = Array.from({ length: VERIFIED_CACHE_SIZE + 20 }, (_, i) => tokens.create({ name: `t${i}`, scopes: ['read'] }).token);
  for (const token of many) t.equal(tokens.verify(token)?.scopes[0], 'read');
  t.equal(tokens.verifiedCount, VERIFIED_CACHE_SIZE);
  for (let i = 0; i < 100; i++) tokens.verify(`hth_unknown${i}`);
  t.equal(tokens.verifiedCount, VERIFIED_CACHE_SIZE, 'unknown tokens are not kept');
});
