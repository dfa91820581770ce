/**
 * The unit passes `systemd-analyze verify` (on a copy whose ExecStart points at this node and this checkout), has
 * the service settings Hearth relies on, and the install script does what it says (dry run: nothing is changed).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { distIsFresh, repoRoot } from '../test-support/cli.js';

const unitText = readFileSync(join(repoRoot, 'systemd/hearth.service'), 'utf8');

function settings(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m?.[1]) out.set(m[1], m[2] ?? '');
  }
  return out;
}

function verify(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-unit-'));
  try {
    const file = join(dir, 'hearth.service');
    writeFileSync(file, text);
    return spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const local = unitText.replace('/usr/bin/node', process.execPath).replaceAll('/opt/hearth', repoRoot.replace(/\/$/, ''));

t.test('systemd-analyze verify accepts the unit without a warning', async (t) => {
  const r = verify(local);
  t.equal(r.status, 0, r.stderr);
  t.equal(r.stderr.trim(), '', 'no warnings');
  const typo = verify(local.replace('NoNewPrivileges=yes', 'NoNewPrivilege=yes'));
  t.match(typo.stderr, /Unknown key/, 'the check notices a misspelt setting');
});

t.test('the unit has the settings Hearth relies on', async (t) => {
  const s = settings(unitText);
  t.equal(s.get('Type'), 'notify');
  t.equal(s.get('NotifyAccess'), 'all', 'systemd-notify sends from a child process');
  t.match(s.get('WatchdogSec'), /^\d+$/);
  t.ok(Number(s.get('WatchdogSec')) <= 5, 'a frozen process is killed (and its heat switched off) within seconds');
  t.match(s.get('ExecStartPre'), /bin\/hearth\.mjs safe-off --config /, 'outputs off before start');
  t.match(s.get('ExecStopPost'), /bin\/hearth\.mjs safe-off --config /, 'and after any stop, kill -9 included');
  t.equal(s.get('Restart'), 'on-failure');
  t.equal(s.get('User'), 'hearth');
  t.same(s.get('SupplementaryGroups')?.split(/\s+/).sort(), ['dialout', 'gpio', 'i2c']);
  t.equal(s.get('ProtectSystem'), 'strict');
  t.equal(s.get('StateDirectory'), 'hearth');
  t.equal(s.get('NoNewPrivileges'), 'yes');
  t.equal(s.get('KillSignal'), 'SIGTERM');
  t.equal(s.get('KillMode'), 'control-group', 'the heat guard (a child of hearth) is stopped with the unit, and cuts as it goes');
  t.match(s.get('ExecStart'), /bin\/hearth\.mjs start /);
});

t.test("npm start runs hearth with the unit's allocator settings (glibc reads them only as a process starts)", async (t) => {
  const fromUnit = [...unitText.matchAll(/^Environment=(MALLOC_\w+=\S+)$/gm)].map((m) => m[1]).sort();
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const start = pkg.scripts.start ?? '';
  const fromScript = [...start.matchAll(/\b(MALLOC_\w+=\S+)/g)].map((m) => m[1]).sort();
  t.ok(fromUnit.length >= 3, fromUnit.join(' '));
  t.same(fromScript, fromUnit);
  t.match(start, / node bin\/hearth\.mjs start$/);
});

t.test('install.sh: valid shell; a dry run creates the user and groups, installs and enables the unit', async (t) => {
  const script = join(repoRoot, 'systemd/install.sh');
  t.equal(spawnSync('bash', ['-n', script]).status, 0, 'bash -n');
  const r = spawnSync('bash', [script], { encoding: 'utf8', env: { ...process.env, DRY_RUN: '1' } });
  t.equal(r.status, 0, r.stderr);
  const out = r.stdout;
  if (spawnSync('id', ['hearth']).status !== 0) t.match(out, /\+ useradd --system --gid hearth .* hearth\n/);
  t.match(out, /\+ usermod -a -G gpio,i2c,dialout hearth/);
  // With the checkout's own build fresh (as `npm ci` leaves it), only production dependencies go on the device.
  if (distIsFresh()) {
    t.match(out, /npm ci --omit=dev .*npm rebuild/);
    t.notMatch(out, /npm run build/);
  } else t.match(out, /npm ci .*npm run build .*npm prune --omit=dev/);
  t.match(out, /hearth\.service -> \/etc\/systemd\/system\/hearth\.service/);
  t.match(out, /\+ systemctl enable hearth\.service/);
  // The recipe API's unit goes beside it, pointed at the same node and program; enabled only over a catalog.
  t.match(out, /hearth-recipe-api\.service -> \/etc\/systemd\/system\/hearth-recipe-api\.service \(ExecStart node /);
  if (spawnSync('test', ['-d', '/var/lib/hearth/catalog']).status !== 0) {
    t.notMatch(out, /systemctl enable hearth-recipe-api/);
    t.match(out, /hearth-recipe-api\.service\) is installed, not enabled: put a catalog in \/var\/lib\/hearth\/catalog/);
  } else t.match(out, /\+ systemctl enable hearth-recipe-api\.service/);
  t.match(out, /token create --scopes/);
});

t.test('the recipe API unit: verified, its index cache in CacheDirectory=, its memory bounded', async (t) => {
  const text = readFileSync(join(repoRoot, 'systemd/hearth-recipe-api.service'), 'utf8');
  const r = verify(text.replace('/usr/bin/node', process.execPath).replaceAll('/opt/hearth', repoRoot.replace(/\/$/, '')));
  t.equal(r.status, 0, r.stderr);
  t.equal(r.stderr.trim(), '', 'no warnings');
  const s = settings(text);
  t.match(s.get('ExecStart'), /bin\/hearth\.mjs recipe-api serve --catalog \S+/);
  t.notMatch(s.get('ExecStart'), /--no-index-cache|--index-cache/, 'the default cache place, which is CACHE_DIRECTORY');
  t.equal(s.get('CacheDirectory'), 'hearth', 'systemd sets CACHE_DIRECTORY for the index cache');
  const env = text
    .split('\n')
    .filter((l) => l.startsWith('Environment='))
    .map((l) => l.slice('Environment='.length));
  for (const e of ['MALLOC_ARENA_MAX=2', 'MALLOC_TRIM_THRESHOLD_=131072', 'MALLOC_MMAP_THRESHOLD_=131072'])
    t.ok(env.includes(e), `${e}: the allocator settings of hearth.service`);
  t.match(s.get('MemoryMax'), /^\d+M$/);
  t.equal(s.get('User'), 'hearth');
  t.equal(s.get('ProtectSystem'), 'strict');
  t.equal(s.get('NoNewPrivileges'), 'yes');
  t.equal(s.get('PrivateDevices'), 'yes', 'it needs no device');
  // Every setting has its reason written above it, or is one of the plain ones.
  const lines = text.split('\n');
  for (const key of ['CacheDirectory', 'MemoryMax', 'Environment=MALLOC_ARENA_MAX', 'Environment=MALLOC_TRIM_THRESHOLD_'])
    t.match(lines[lines.findIndex((l) => l.startsWith(key)) - 1], /^#/, `${key} has its reason above it`);
});
