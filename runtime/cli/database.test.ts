import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openCliDatabase, withCliDatabase } from './database.js';
import { CliError } from './errors.js';

const migration = { id: 'test.1', up: (db: import('../store/db.js').Database) => db.exec('CREATE TABLE things (id TEXT)') };

t.test('the store of a data directory: migrated, closed after use, a bad directory is a CLI error', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-cli-db-'));
  let kept: import('../store/db.js').Database | undefined;
  const n = withCliDatabase(dir, [migration], (db) => {
    kept = db;
    db.prepare('INSERT INTO things VALUES (?)').run('a');
    return (db.prepare('SELECT count(*) AS n FROM things').get() as { n: number }).n;
  });
  t.equal(n, 1);
  t.equal(kept?.open, false, 'closed after the function');
  const again = openCliDatabase(dir, [migration]);
  t.same(again.prepare('SELECT id FROM things').all(), [{ id: 'a' }], 'a migration runs once');
  again.close();

  const file = join(dir, 'not-a-dir');
  writeFileSync(file, 'x');
  t.throws(() => withCliDatabase(file, [migration], () => 1), CliError);
  t.throws(
    () =>
      openCliDatabase(dir, [
        {
          id: 'test.2',
          up: () => {
            throw new Error('broken migration');
          },
        },
      ]),
    /broken migration/,
  );
});
