import Database from 'better-sqlite3';
import t from 'tap';
import { TokenStore, tokensMigration } from '../../platform/http/auth.js';
import { MigrationRegistry } from '../../platform/sqlite/migrations.js';
import { SCOPES } from '../hub/types.js';
import { MAX_PENDING, normalizeCode, PAIRING_TTL_MS, PairingError, PairingStore, pairingKeyMigration, pairingMigration } from './store.js';

function setup() {
  const db = new Database(':memory:');
  new MigrationRegistry().add(tokensMigration, pairingMigration, pairingKeyMigration).migrate(db);
  let now = Date.UTC(2026, 5, 1);
  const tokens = new TokenStore(db, () => now);
  const store = new PairingStore(db, tokens, () => now, SCOPES);
  return { db, tokens, store, advance: (ms: number) => (now += ms) };
}

t.test('codes are 8 consonants shown as XXXX-XXXX and typed in any case', async (t) => {
  const { store, advance } = setup();
  const seen = new Set<string>();
  for (let i = 0; i < 50; i++) {
    if (i % MAX_PENDING === 0) advance(PAIRING_TTL_MS + 1);
    const r = store.start({ name: `agent ${i}`, kind: 'agent', scopes: ['read'] });
    t.match(r.userCode, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    t.match(r.pollSecret, /^hps_[A-Za-z0-9_-]{43}$/);
    seen.add(r.userCode);
  }
  t.equal(seen.size, 50);
  t.equal(normalizeCode('bcdf ghjk'), 'BCDF-GHJK');
  t.equal(normalizeCode('bcdfghjk'), 'BCDF-GHJK');
});

t.test('approve then poll: the token is delivered once, with the granted scopes and kind', async (t) => {
  const { store, tokens, db } = setup();
  const r = store.start({ name: 'meal planner', kind: 'agent', scopes: ['read', 'cook', 'order:create'] });
  t.same(store.poll(r.pollSecret), { kind: 'pending' });
  const approved = store.approve(r.userCode.toLowerCase(), 'a person', { scopes: ['read', 'cook'] });
  t.equal(approved.state, 'approved');
  t.same(approved.grantedScopes, ['read', 'cook']);
  const got = store.poll(r.pollSecret);
  if (got.kind !== 'issued') throw new Error(`expected issued, got ${got.kind}`);
  t.same(got.scopes, ['read', 'cook']);
  t.equal(got.principalKind, 'agent');
  const principal = tokens.verify(got.token);
  t.same(principal && { kind: principal.kind, scopes: principal.scopes, name: principal.name }, {
    kind: 'agent',
    scopes: ['read', 'cook'],
    name: 'meal planner',
  });
  t.same(store.poll(r.pollSecret), { kind: 'expired' }, 'a second poll gets nothing');
  const rows = db.prepare('SELECT * FROM pair_requests').all() as Record<string, unknown>[];
  t.notMatch(JSON.stringify(rows), got.token, 'the token is not stored');
  t.notMatch(JSON.stringify(rows), r.pollSecret, 'the polling secret is not stored');
  t.throws(() => store.approve(r.userCode, 'a person'), PairingError, 'a decided code cannot be approved again');
});

t.test('reject, expiry, unknown codes and scopes', async (t) => {
  const { store, advance } = setup();
  const a = store.start({ name: 'a', kind: 'agent', scopes: ['read'] });
  store.reject(a.userCode, 'a person');
  t.same(store.poll(a.pollSecret), { kind: 'denied' });
  const b = store.start({ name: 'b', kind: 'agent', scopes: ['read'] });
  advance(PAIRING_TTL_MS + 1);
  t.same(store.poll(b.pollSecret), { kind: 'expired' });
  t.throws(() => store.approve(b.userCode, 'a person'), /expired/);
  t.equal(store.list().find((x) => x.userCode === b.userCode)?.state, 'expired');
  t.same(store.poll('hps_unknown-secret'), { kind: 'unknown' });
  t.throws(() => store.approve('ZZZZ-ZZZZ', 'a person'), /no pairing request/);
  t.throws(() => store.start({ name: 'c', kind: 'agent', scopes: ['root'] }), /unknown scope root/);
  const c = store.start({ name: 'c', kind: 'agent', scopes: ['read'] });
  t.throws(() => store.approve(c.userCode, 'a person', { scopes: ['everything'] }), /unknown scope/);
  const human = store.approve(c.userCode, 'a person', { kind: 'human' });
  t.equal(human.grantedKind, 'human', 'the person decides the kind');
});

t.test('at most MAX_PENDING requests wait for a person at once', async (t) => {
  const { store, advance } = setup();
  const codes = Array.from({ length: MAX_PENDING }, (_, i) => store.start({ name: `a${i}`, kind: 'agent', scopes: ['read'] }).userCode);
  t.throws(() => store.start({ name: 'one too many', kind: 'agent', scopes: ['read'] }), /already wait for a person/);
  store.reject(codes[0] ?? '', 'a person');
  t.ok(store.start({ name: 'room again', kind: 'agent', scopes: ['read'] }).userCode, 'a decided request frees a place');
  t.throws(() => store.start({ name: 'full again', kind: 'agent', scopes: ['read'] }));
  advance(PAIRING_TTL_MS + 1);
  t.ok(store.start({ name: 'after expiry', kind: 'agent', scopes: ['read'] }).userCode, 'expired requests do not count');
});
