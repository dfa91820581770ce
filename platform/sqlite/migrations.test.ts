import Database from 'better-sqlite3';
import t from 'tap';
import { MigrationRegistry } from './migrations.js';

t.test('migrations apply once, in order, and are recorded', (t) => {
  const db = new Database(':memory:');
  const order: string[] = [];
  const reg = new MigrationRegistry().add(
    {
      id: 'a.1',
      up: (d) => {
        order.push('a.1');
        d.exec('CREATE TABLE a (x)');
      },
    },
    {
      id: 'b.1',
      up: (d) => {
        order.push('b.1');
        d.exec('CREATE TABLE b (y)');
      },
    },
  );
  t.same(reg.migrate(db), ['a.1', 'b.1']);
  t.same(reg.migrate(db), []);
  reg.add({ id: 'a.2', up: (d) => d.exec('ALTER TABLE a ADD COLUMN z') });
  t.same(reg.migrate(db), ['a.2']);
  t.same(order, ['a.1', 'b.1']);
  t.throws(() => reg.add({ id: 'a.1', up: () => {} }), /twice/);
  t.end();
});

t.test('a failing migration rolls back and is not recorded', (t) => {
  const db = new Database(':memory:');
  const reg = new MigrationRegistry().add({
    id: 'bad.1',
    up: (d) => {
      d.exec('CREATE TABLE half (x)');
      throw new Error('broken');
    },
  });
  t.throws(() => reg.migrate(db), /broken/);
  t.same(db.prepare("SELECT name FROM sqlite_master WHERE name = 'half'").all(), []);
  t.same(db.prepare('SELECT id FROM schema_migrations').all(), []);
  t.end();
});
