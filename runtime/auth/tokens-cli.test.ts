import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCli } from '../../test-support/cli.js';

t.test('hearth token create, list, revoke', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-tokens-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const created = await runCli(['token', 'create', '--scopes', 'read,cook', '--name', 'tablet', '--data-dir', dir]);
  t.equal(created.code, 0, created.stderr);
  const token = created.stdout.trim();
  t.match(token, /^hth_[A-Za-z0-9_-]{43}$/, 'the token alone on stdout');
  t.match(created.stderr, /shown once, stored hashed/);
  const agent = await runCli(['token', 'create', '--scopes', 'cook', '--kind', 'agent', '--json', '--data-dir', dir]);
  const a = JSON.parse(agent.stdout);
  t.match(a, { kind: 'agent', scopes: ['cook'] });
  const list = await runCli(['token', 'list', '--json', '--data-dir', dir]);
  const tokens = JSON.parse(list.stdout) as { name: string; id: string }[];
  t.same(tokens.map((x) => x.name).sort(), [a.name, 'tablet'].sort());
  t.notMatch(list.stdout, new RegExp(token.slice(4)), 'list never shows a secret');
  const plain = await runCli(['token', 'list', '--data-dir', dir]);
  t.match(plain.stdout, /tablet\thuman\tread,cook/);
  const revoked = await runCli(['token', 'revoke', 'tablet', '--data-dir', dir]);
  t.equal(revoked.code, 0);
  t.match(revoked.stdout, /revoked 1 token/);
  const again = await runCli(['token', 'revoke', 'tablet', '--data-dir', dir]);
  t.equal(again.code, 2);
  t.match(again.stderr, /^hearth: no active token with id or name "tablet"\n$/);
  t.match((await runCli(['token', 'list', '--data-dir', dir])).stdout, /tablet.*revoked/);
});

t.test('bad input is one line and exit 2', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-tokens-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const args of [
    ['token', 'create', '--scopes', 'Read Everything', '--data-dir', dir],
    ['token', 'create', '--scopes', ',', '--data-dir', dir],
    ['token', 'create', '--scopes', 'read', '--kind', 'robot', '--data-dir', dir],
  ]) {
    const r = await runCli(args);
    t.equal(r.code, 2, args.join(' '));
    t.equal(r.stderr.trim().split('\n').length, 1);
  }
  const help = await runCli(['token', 'create', '--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /--scopes <list>/);
  t.match((await runCli(['start', '--help'])).stdout, /--sim-speed <n>/);
});

t.test('hearth token create --mqtt-publish/--mqtt-subscribe: grants outside svc/, a grant on svc/ refused in one line', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-tokens-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const args = ['token', 'create', '--name', 'plug-1', '--scopes', 'notify', '--json', '--data-dir', dir];
  const made = await runCli([...args, '--mqtt-publish', 'devices/plug-1/#', '--mqtt-subscribe', 'devices/plug-1/set,devices/+/state']);
  t.equal(made.code, 0, made.stderr);
  t.match(JSON.parse(made.stdout), { mqtt: { publish: ['devices/plug-1/#'], subscribe: ['devices/plug-1/set', 'devices/+/state'] } });
  const list = JSON.parse((await runCli(['token', 'list', '--json', '--data-dir', dir])).stdout) as { mqtt?: unknown }[];
  t.same(list[0]?.mqtt, { publish: ['devices/plug-1/#'], subscribe: ['devices/plug-1/set', 'devices/+/state'] });
  for (const [flag, filter] of [
    ['--mqtt-publish', 'svc/kitchen/safety/oil'],
    ['--mqtt-publish', '#'],
    ['--mqtt-subscribe', '+/kitchen/#'],
    ['--mqtt-subscribe', 'homeassistant/#'],
    ['--mqtt-subscribe', '$share/g/devices/#'],
  ] as const) {
    const r = await runCli(['token', 'create', '--scopes', 'notify', '--data-dir', dir, flag, `devices/x,${filter}`]);
    t.equal(r.code, 2, `${flag} ${filter}`);
    t.match(r.stderr, new RegExp(`^hearth: ${flag} "${filter.replace(/[$+]/g, '\\$&')}" refused: [^\\n]+\\n$`));
  }
  t.equal(
    JSON.parse((await runCli(['token', 'list', '--json', '--data-dir', dir])).stdout).length,
    1,
    'no token was created by a refused grant',
  );
});
