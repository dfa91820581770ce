import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { publicRecord } from '../../core/keys.js';
import { type BusEvents, EventBus } from '../events/bus.js';
import { deviceStore, indexFixture } from './index-fixture.js';
import { readTrustFile, SyncService, summaryLine } from './service.js';

t.test('each outcome is logged and emitted; a rejection carries its reason; syncs do not overlap', async (t) => {
  const f = await indexFixture(t.testdir(), { count: 4 });
  t.teardown(() => f.close());
  const dev = deviceStore();
  const bus = new EventBus();
  const events: BusEvents['sync'][] = [];
  bus.on('sync', (e) => events.push(e));
  const warnings: string[] = [];
  const log = { info: () => {}, warn: (_o: object, msg?: string) => warnings.push(msg ?? '') };
  const svc = new SyncService({ store: dev.store, recalls: dev.recalls, indexes: [f.url], trusted: [publicRecord(f.key)], bus, log });

  const [a, b] = await Promise.all([svc.syncNow(), svc.syncNow()]);
  t.equal(a, b, 'a second request joins the running sync');
  t.equal(a?.[0]?.outcome, 'applied');
  t.same(
    events.map((e) => e.kind),
    ['started', 'applied'],
  );

  const file = join(f.siteDir, 'v1/manifest.json');
  writeFileSync(file, readFileSync(file, 'utf8').replace('"version":"1"', '"version":"2"'));
  const [r] = await svc.syncNow();
  t.equal(r?.outcome, 'rejected');
  const last = events.at(-1);
  t.equal(last?.kind, 'rejected');
  t.match(last?.message, /rejected: manifest bad_signature; kept version 1$/);
  t.equal(last?.detail?.reason, 'manifest bad_signature');
  t.match(warnings.at(-1), /manifest bad_signature/);
  t.equal(summaryLine(r as NonNullable<typeof r>), `${f.url}: rejected: manifest bad_signature; kept version 1`);
  const st = svc.status() as { indexes: { version: string; last: { outcome: string } }[]; trustedKeys: string[] };
  t.equal(st.indexes[0]?.version, '1');
  t.equal(st.indexes[0]?.last.outcome, 'rejected');
  t.same(st.trustedKeys, [f.key.kid]);
});

t.test('trust files: a record, an array or a discovery document; anything else is a clear error', async (t) => {
  const dir = t.testdir({
    one: JSON.stringify({ kid: 'k', alg: 'EdDSA', publicKey: 'A'.repeat(43), actor: 'a', validFrom: '2026-01-01T00:00:00Z' }),
    discovery: JSON.stringify({
      keys: [{ kid: 'k', alg: 'EdDSA', publicKey: 'A'.repeat(43), actor: 'a', validFrom: '2026-01-01T00:00:00Z' }],
    }),
    empty: '[]',
    broken: '{',
  });
  t.equal(readTrustFile(join(dir, 'one'))[0]?.kid, 'k');
  t.equal(readTrustFile(join(dir, 'discovery'))[0]?.kid, 'k');
  t.throws(() => readTrustFile(join(dir, 'empty')), /holds no key records/);
  t.throws(() => readTrustFile(join(dir, 'broken')), /not valid JSON/);
  t.throws(() => readTrustFile(join(dir, 'missing')), /cannot read \(ENOENT\)/);
});
