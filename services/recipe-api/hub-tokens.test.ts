import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { TokenStore, tokensMigration } from '../../platform/http/auth.js';
import { PairingStore, pairingKeyMigration, pairingMigration } from '../../runtime/pairing/store.js';
import { referenceDir } from '../../test-support/shared.js';
import { createRecipeApi } from './server.js';
import { copyReferenceCatalog } from './test-helpers.js';

/** A hub's store file as the hub writes it: the tokens and pairing tables in dataDir/hearth.db (WAL). */
function hubStore(dataDir: string) {
  const db = new Database(join(dataDir, 'hearth.db'));
  db.pragma('journal_mode = WAL');
  tokensMigration.up(db);
  pairingMigration.up(db);
  pairingKeyMigration.up(db);
  const tokens = new TokenStore(db);
  return { db, tokens, pairing: new PairingStore(db, tokens) };
}

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

t.test('/mcp opens with a token the hub issued by pairing, and closes when the hub revokes it', async (t) => {
  const dataDir = t.testdir({ catalog: {}, 'other-hub': {} });
  const hub = hubStore(dataDir);
  t.teardown(() => hub.db.close());
  // The agent asks to pair, a person approves the code on the hub, the agent polls and gets its token.
  const asked = hub.pairing.start({ name: 'recipe agent', kind: 'agent', scopes: ['read'] });
  hub.pairing.approve(asked.userCode, 'person');
  const issued = hub.pairing.poll(asked.pollSecret);
  if (issued.kind !== 'issued') throw new Error(`pairing gave ${issued.kind}`);
  const otherHub = hubStore(join(dataDir, 'other-hub'));
  t.teardown(() => otherHub.db.close());
  const other = otherHub.tokens.create({ name: 'elsewhere', scopes: ['read'] }).token;

  copyReferenceCatalog(join(dataDir, 'catalog'));
  const api = createRecipeApi({ dir: join(dataDir, 'catalog'), hubData: dataDir });
  const address = await api.app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => api.app.close());
  const rpc = (token?: string) =>
    fetch(`${address}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(INIT),
    });

  const ok = await rpc(issued.token);
  t.equal(ok.status, 200, 'the paired token opens /mcp');
  t.match(await ok.text(), /hearth-recipe-api/);
  t.equal((await rpc()).status, 401, 'no token: 401');
  t.equal((await rpc(other)).status, 401, "another hub's token: 401");

  const made = hub.tokens.create({ name: 'made by hand', scopes: ['cook'] });
  t.equal((await rpc(made.token)).status, 200, 'a token made with hearth token create opens it too');
  hub.tokens.revoke(issued.tokenId);
  const revoked = await rpc(issued.token);
  t.equal(revoked.status, 401, 'revoked on the hub: refused at once');
  t.same(Object.keys((await revoked.json()) as object).sort(), ['detail', 'error']);
});

t.test('--hub-data that is not a hub store stops the start with the path and the reason', async (t) => {
  const dir = t.testdir({ catalog: {}, empty: {}, 'x.db': 'not sqlite' });
  copyReferenceCatalog(join(dir, 'catalog'));
  const open = (hubData: string) => () =>
    createRecipeApi({ dir: join(dir, 'catalog'), hubData, certificationsDir: `${referenceDir}examples/certifications` });
  t.throws(open(join(dir, 'empty')), { name: 'HubTokensError', message: /empty\/hearth\.db: no hub store here/ });
  t.throws(open(join(dir, 'missing')), /missing: cannot read the hub's data directory \(ENOENT\)/);
  t.throws(open(join(dir, 'x.db')), /x\.db: not a hub store with tokens/);
});
