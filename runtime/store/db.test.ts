/**
 * Store safety: a zero-byte, unreadable or foreign `hearth.db` stops start-up with the path and what to do; it is
 * never taken for a new device. `hearth init --force` moves a broken store aside (never deletes it) and starts
 * afresh. A listen failure names the file (or option) and the key.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { runCli, scratchFiles } from '../../test-support/cli.js';
import { listenProblem } from '../app/run.js';
import { ConfigError } from '../config/config.js';
import { DB_FILE, initDatabase, openDatabase } from './db.js';

const { dir } = scratchFiles(t, 'hearth-store-');

t.test('a zero-byte, unreadable or foreign store is refused with the path and the remedy', (t) => {
  const cases: [string, (path: string) => void, RegExp][] = [
    ['zero bytes', (p) => writeFileSync(p, ''), /the store is empty \(0 bytes\), not a new device/],
    ['a directory where the file should be', (p) => mkdirSync(p), /cannot read the store \(EISDIR\)/],
    ['not SQLite', (p) => writeFileSync(p, 'hello, this is not a database at all'), /not a SQLite store/],
  ];
  for (const [what, make, msg] of cases) {
    const data = join(dir, what.replace(/\W+/g, '-'));
    mkdirSync(data, { recursive: true });
    const path = join(data, DB_FILE);
    make(path);
    t.throws(() => openDatabase(data), ConfigError, what);
    try {
      openDatabase(data);
    } catch (err) {
      const m = (err as Error).message;
      t.ok(m.startsWith(`${path}: `), `${what}: names the path`);
      t.match(m, msg, what);
      t.match(m, /restore it from a backup, or .*hearth init --force/, `${what}: says what to do`);
    }
  }
  const zero = join(dir, 'zero-bytes', DB_FILE);
  t.equal(readFileSync(zero).length, 0, 'the zero-byte file is left as it was (nothing written over it)');
  t.end();
});

t.test('hearth start stops on a zero-byte store; hearth init --force moves it aside and starts afresh', async (t) => {
  const data = join(dir, 'cli');
  mkdirSync(data, { recursive: true });
  const path = join(data, DB_FILE);
  writeFileSync(path, '');
  const start = await runCli(['start', '--data-dir', data, '--http-port', '0', '--mqtt-port', '0', '--log-level', 'silent']);
  t.equal(start.code, 2, start.stderr);
  t.match(start.stderr, `${path}: the store is empty`);
  t.equal(start.stderr.trim().split('\n').length, 1, 'one line');
  t.equal(readFileSync(path).length, 0, 'start-up wrote nothing');

  const refused = await runCli(['init', '--data-dir', data]);
  t.equal(refused.code, 2, 'init without --force leaves an existing store alone');
  t.match(refused.stderr, /already there; `hearth init --force`/);
  const forced = await runCli(['init', '--data-dir', data, '--force', '--json']);
  t.equal(forced.code, 0, forced.stderr);
  const r = JSON.parse(forced.stdout) as { path: string; movedTo: string };
  t.equal(r.path, path);
  t.ok(existsSync(r.movedTo), 'the old file is kept aside');
  t.equal(readFileSync(r.movedTo).length, 0);
  t.equal(readFileSync(path).subarray(0, 15).toString(), 'SQLite format 3', 'a fresh store');
  openDatabase(data).close();
  t.throws(() => initDatabase(data), /already there/);
});

t.test('a listen failure names the file or option and the key', (t) => {
  const config = { host: 'kitchen.invalid', httpPort: 8080 };
  const enotfound = Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
  t.match(
    listenProblem(enotfound, { config: 'conf/hearth.yaml' }, config),
    /conf\/hearth\.yaml: \/host: "kitchen\.invalid" does not resolve/,
  );
  t.match(listenProblem(enotfound, { host: 'kitchen.invalid' }, config), /^--host: "kitchen\.invalid" does not resolve/);
  t.match(listenProblem(enotfound, {}, config), /^--host \(default\)/);
  const inUse = Object.assign(new Error('in use'), { code: 'EADDRINUSE', port: 8080 });
  t.match(listenProblem(inUse, { config: 'h.yaml' }, config), /h\.yaml: \/httpPort: port 8080 on kitchen\.invalid is in use/);
  t.match(listenProblem(Object.assign(new Error('x'), { code: 'EADDRINUSE', port: 1883 }), {}, config), /^cannot listen on port 1883/);
  t.equal(listenProblem(Object.assign(new Error('x'), { code: 'EPIPE' }), {}, config), undefined);
  t.end();
});

t.test('hearth start with an unresolvable host in the config file: one line naming the file and /host', async (t) => {
  const conf = join(dir, 'bad-host.yaml');
  writeFileSync(conf, 'host: kitchen.invalid\nhttpPort: 0\nmqttPort: 0\nlogLevel: silent\n');
  const r = await runCli(['start', '--config', conf, '--data-dir', join(dir, 'bad-host')]);
  t.equal(r.code, 2, r.stderr);
  t.match(r.stderr, `${conf}: /host: "kitchen.invalid" does not resolve`);
  t.equal(r.stderr.trim().split('\n').length, 1, 'one line, no stack');
});
