/**
 * The journal writes telemetry in batches and everything else at once; a read never misses a queued row.
 */
import t from 'tap';
import { buildCloudEvent } from './cloudevent.js';
import { DEFAULT_RETENTION, EventJournal, type StoredEvent } from './journal.js';
import { openStore } from './testing.js';

function event(journal: EventJournal, category: 'telemetry' | 'device' | 'safety', n: number): StoredEvent {
  const pos = journal.reserve();
  const ce = buildCloudEvent(
    {
      type: category === 'safety' ? 'svc.safety.trip' : category === 'device' ? 'svc.device.heater' : 'svc.telemetry.reading',
      category,
      subject: `s${n}`,
      priority: category === 'safety' ? 'high' : 'low',
      time: new Date(Date.UTC(2026, 10, 20, 12, 0, n)).toISOString(),
      data: { n },
    },
    { id: `ev-${category}-${n}`, seq: pos, kitchenId: 'k1', source: 'svc://k1/hub' },
  );
  return { pos, category, ce, body: JSON.stringify(ce) };
}

const rows = (db: ReturnType<typeof openStore>) => (db.prepare('SELECT COUNT(*) AS n FROM event_journal').get() as { n: number }).n;

t.test('telemetry waits for the batch, a safety event is written at once, in order', async (t) => {
  const db = openStore();
  t.teardown(() => db.close());
  const journal = new EventJournal(db, Date.now, DEFAULT_RETENTION, { flushMs: 30 });
  for (let i = 0; i < 5; i++) journal.write(event(journal, 'telemetry', i));
  t.equal(rows(db), 0, 'telemetry is queued, not yet a statement each');
  await new Promise((r) => setTimeout(r, 80));
  t.equal(rows(db), 5, 'the timer wrote the batch');

  for (let i = 5; i < 8; i++) journal.write(event(journal, 'device', i));
  const trip = event(journal, 'safety', 8);
  journal.write(trip);
  t.equal(rows(db), 9, 'a safety event is stored at once, after the rows queued before it');
  t.same(
    journal.readAfter(0).map((e) => e.pos),
    [1, 2, 3, 4, 5, 6, 7, 8, 9],
    'positions in order',
  );
});

t.test('reads, pruning and flush write the queue first; a full queue goes without waiting', async (t) => {
  const db = openStore();
  t.teardown(() => db.close());
  const journal = new EventJournal(db, Date.now, DEFAULT_RETENTION, { flushMs: 60_000 });
  const first = event(journal, 'telemetry', 1);
  journal.write(first);
  t.equal(journal.readAfter(0).length, 1, 'readAfter sees a queued row');
  journal.write(event(journal, 'telemetry', 2));
  t.equal(journal.positionOf('ev-telemetry-2'), 2, 'positionOf sees a queued row');
  journal.write(event(journal, 'telemetry', 3));
  journal.flush();
  t.equal(rows(db), 3, 'flush writes the queue');
  for (let i = 0; i < 256; i++) journal.write(event(journal, 'telemetry', 10 + i));
  t.equal(rows(db), 259, '256 queued rows are written without the timer');
  journal.write(event(journal, 'telemetry', 999));
  t.equal(journal.prune(), 0, 'prune runs on the written rows');
  t.equal(rows(db), 260);
});

t.test('a batch the store cannot take is reported, never thrown from the timer', async (t) => {
  const db = openStore();
  const errors: unknown[] = [];
  const journal = new EventJournal(db, Date.now, DEFAULT_RETENTION, { flushMs: 10, onError: (err) => errors.push(err) });
  journal.write(event(journal, 'telemetry', 1));
  db.close();
  await new Promise((r) => setTimeout(r, 50));
  t.equal(errors.length, 1, 'the failed batch was reported');
  t.match(String(errors[0]), /not open/);
});

t.test('after a crash that lost queued rows, positions skip past every position handed out', async (t) => {
  const db = openStore();
  t.teardown(() => db.close());
  const journal = new EventJournal(db, Date.now, DEFAULT_RETENTION, { flushMs: 60_000 });
  journal.write(event(journal, 'safety', 1));
  for (let i = 0; i < 200; i++) journal.write(event(journal, 'telemetry', 2 + i));
  const lastSeen = journal.nextPos() - 1;
  t.equal(rows(db), 1, 'the telemetry rows were still queued');
  const reopened = new EventJournal(db); // the process died without flushing
  t.ok(reopened.nextPos() > lastSeen, `the next position (${reopened.nextPos()}) is after ${lastSeen}`);
});
