// @slow: it runs `hearth recipe-api serve` as a process several times, each with a cache place of its own.
/**
 * The index cache is on by default: which folder it goes in by the environment, that `--no-index-cache` writes
 * nothing, and that a place that cannot be written only warns (the API still serves). Every spawned server gets
 * temporary HOME and XDG_CACHE_HOME folders (and no CACHE_DIRECTORY), so no test writes into a real home.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { runCli, scratchFiles, spawnCli } from '../../test-support/cli.js';
import { cacheFileName, defaultCacheDir, defaultCacheFile } from './cache-location.js';
import { copyReferenceCatalog } from './test-helpers.js';

const { dir, file } = scratchFiles(t, 'hearth-recipe-api-cache-place-');
const catalog = join(dir, 'catalog');
copyReferenceCatalog(catalog);

t.test('the folder: $CACHE_DIRECTORY, else $XDG_CACHE_HOME/hearth, else ~/.cache/hearth', async (t) => {
  t.equal(defaultCacheDir({ CACHE_DIRECTORY: '/var/cache/hearth', XDG_CACHE_HOME: '/x', HOME: '/h' }), '/var/cache/hearth');
  t.equal(defaultCacheDir({ CACHE_DIRECTORY: '/var/cache/a:/var/cache/b', HOME: '/h' }), '/var/cache/a', 'the first of several');
  t.equal(defaultCacheDir({ XDG_CACHE_HOME: '/x/cache', HOME: '/h' }), '/x/cache/hearth');
  t.equal(defaultCacheDir({ XDG_CACHE_HOME: 'relative', HOME: '/h' }), '/h/.cache/hearth', 'a relative XDG_CACHE_HOME is ignored');
  t.equal(defaultCacheDir({ HOME: '/h' }), '/h/.cache/hearth');
});

t.test('one file per catalog, named by its real path', async (t) => {
  const link = join(dir, 'catalog-link');
  symlinkSync(catalog, link);
  t.equal(cacheFileName(link), cacheFileName(catalog), 'a link to the catalog shares its cache');
  t.not(cacheFileName(join(catalog, 'kids')), cacheFileName(catalog));
  t.match(cacheFileName(catalog), /^recipe-api-[0-9a-f]{32}\.cache$/);
  const made = defaultCacheFile(catalog, { XDG_CACHE_HOME: join(dir, 'made') });
  t.same(made, { file: join(dir, 'made', 'hearth', cacheFileName(catalog)) });
  t.ok(existsSync(join(dir, 'made', 'hearth')), 'the folder is created');
  file('plain-file', 'not a folder');
  t.match(defaultCacheFile(catalog, { XDG_CACHE_HOME: join(dir, 'plain-file') }), { error: /cannot create/ });
});

/** A fresh HOME and XDG_CACHE_HOME (both empty folders) for one spawned server, with `extra` on top. */
function envFor(name: string, extra: NodeJS.ProcessEnv = {}): { env: NodeJS.ProcessEnv; home: string; xdg: string } {
  const home = join(dir, name, 'home');
  const xdg = join(dir, name, 'xdg');
  mkdirSync(home, { recursive: true });
  mkdirSync(xdg, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CACHE_HOME: xdg, ...extra };
  if (!('CACHE_DIRECTORY' in extra)) delete env.CACHE_DIRECTORY;
  return { env, home, xdg };
}

const SERVING = /recipe API serving (\d+) recipes .*\(loaded in \d+ ms([^)]*)\) at (http:\/\/\S+)\n/;

async function serve(
  t: Test,
  env: NodeJS.ProcessEnv,
  more: string[] = [],
): Promise<{ how: string; count: string; url: string; child: ChildProcess; output: () => string }> {
  const { child, match, output } = await spawnCli(['recipe-api', 'serve', '--catalog', catalog, '--port', '0', ...more], SERVING, {
    env,
    timeoutMs: 120_000,
  });
  t.teardown(() => {
    child.kill('SIGTERM');
  });
  const url = match[3] as string;
  const res = await fetch(`${url}/api/search?q=lentil`);
  t.equal(res.status, 200, 'it answers');
  await res.arrayBuffer();
  return { how: match[2] as string, count: match[1] as string, url, child, output };
}

const stopped = (child: ChildProcess) =>
  new Promise<void>((r) => {
    if (child.exitCode !== null) return r();
    child.once('exit', () => r());
    child.kill('SIGTERM');
  });

t.test('by default the cache goes in $XDG_CACHE_HOME/hearth, and the next start uses it', async (t) => {
  const { env, home, xdg } = envFor('default');
  const first = await serve(t, env);
  t.equal(first.how, '', 'the first start is a full load');
  await stopped(first.child);
  t.same(readdirSync(join(xdg, 'hearth')), [cacheFileName(catalog)], 'one file, named by the catalog');
  t.same(readdirSync(home), [], 'nothing in HOME');
  const again = await serve(t, env);
  t.equal(again.how, ', from the index cache');
  await stopped(again.child);
});

t.test('the cache is written while the server runs, once it has answered and gone quiet', async (t) => {
  const { env, xdg } = envFor('quiet');
  const first = await serve(t, env);
  const cache = join(xdg, 'hearth', cacheFileName(catalog));
  // The write comes 200-400 ms after the last answer; a minute without it is a failure, not a slow machine.
  for (let waited = 0; !/recipe API index cache written to \S+/.test(first.output()); waited += 50) {
    if (waited > 60_000 || first.child.exitCode !== null) return t.fail(`no index cache written while serving: ${first.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  t.ok(existsSync(cache), 'it says so once the file is there');
  t.equal(first.child.exitCode, null, 'written while it still serves');
  const res = await fetch(`${first.url}/api/search?q=lentil`);
  t.equal(res.status, 200, 'and it answers after');
  await res.arrayBuffer();
  await stopped(first.child);
  const again = await serve(t, env);
  t.equal(again.how, ', from the index cache');
  await stopped(again.child);
  // One file changed since (a new status-change time): its row is loaded again, every other one taken from the cache.
  const sub = join(catalog, readdirSync(catalog).sort()[0] as string);
  const now = new Date();
  utimesSync(join(sub, readdirSync(sub).find((n) => n.endsWith('.json')) as string), now, now);
  const changed = await serve(t, env);
  t.match(changed.how, /^, (\d+) of them from the index cache$/);
  t.equal(Number(/\d+/.exec(changed.how)?.[0]), Number(changed.count) - 1, 'all but the changed one');
  await stopped(changed.child);
});

t.test('a start that cannot listen still writes the index cache (a unit restarting on a taken port)', async (t) => {
  const { env, xdg } = envFor('taken-port');
  const holder = createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
  t.teardown(() => holder.close());
  const port = String((holder.address() as AddressInfo).port);
  const res = await runCli(['recipe-api', 'serve', '--catalog', catalog, '--host', '127.0.0.1', '--port', port], {
    env,
    timeoutMs: 120_000,
  });
  t.not(res.code, 0);
  t.match(res.stderr, /cannot listen on 127\.0\.0\.1:\d+: EADDRINUSE/);
  t.ok(existsSync(join(xdg, 'hearth', cacheFileName(catalog))), 'the cache is there for the next attempt');
});

t.test('$CACHE_DIRECTORY (systemd) wins over XDG_CACHE_HOME; HOME is the last resort', async (t) => {
  const systemd = join(dir, 'systemd-cache');
  mkdirSync(systemd);
  const { env, xdg } = envFor('systemd', { CACHE_DIRECTORY: systemd });
  await stopped((await serve(t, env)).child);
  t.same(readdirSync(systemd), [cacheFileName(catalog)]);
  t.same(readdirSync(xdg), []);
  const home = envFor('home');
  delete home.env.XDG_CACHE_HOME;
  await stopped((await serve(t, home.env)).child);
  t.same(readdirSync(join(home.home, '.cache', 'hearth')), [cacheFileName(catalog)]);
});

t.test('--no-index-cache neither writes nor reads a cache', async (t) => {
  const { env, home, xdg } = envFor('none');
  const s = await serve(t, env, ['--no-index-cache']);
  t.equal(s.how, '');
  await stopped(s.child);
  t.same(readdirSync(xdg), [], 'nothing in XDG_CACHE_HOME');
  t.same(readdirSync(home), [], 'nothing in HOME');
  t.notMatch(s.output(), /warning/);
  await stopped((await serve(t, env)).child);
  const cache = join(xdg, 'hearth', cacheFileName(catalog));
  const written = statSync(cache).mtimeMs;
  const off = await serve(t, env, ['--no-index-cache']);
  t.equal(off.how, '', 'a full load although a matching cache is there');
  await stopped(off.child);
  t.equal(statSync(cache).mtimeMs, written, 'the cache is left as it was');
});

t.test('a cache that cannot be written is a warning on stderr; the API serves', async (t) => {
  // As root no file mode stops a write, so the places are made impossible: a plain file where the folder would
  // be, and a folder where the cache file would be.
  const blocked = envFor('blocked');
  writeFileSync(join(blocked.xdg, 'hearth'), 'a file, not a folder');
  const a = await serve(t, blocked.env);
  t.match(a.output(), /hearth: warning: no index cache: cannot create .*hearth/);
  await stopped(a.child);
  const taken = envFor('taken');
  mkdirSync(join(taken.xdg, 'hearth', cacheFileName(catalog)), { recursive: true });
  // The cache is written once the server is quiet after its first answers, or at the latest when it stops.
  const b = await serve(t, taken.env);
  await stopped(b.child);
  t.match(b.output(), /hearth: warning: the index cache .* could not be written/);
  const c = await serve(t, taken.env, ['--index-cache', join(dir, 'no-such-folder', 'x.cache')]);
  await stopped(c.child);
  t.match(c.output(), /could not be written \(ENOENT\)/, 'a chosen file too');
});
