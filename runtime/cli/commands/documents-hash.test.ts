import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { runCli, scratchFiles } from '../../../test-support/cli.js';

const { dir, file } = scratchFiles(t, 'hearth-hash-');
const koshari = 'examples/recipes/koshari.svc.json';

t.test('hash prints the document hash and --check compares it', async (t) => {
  const declared = (JSON.parse(readFileSync(koshari, 'utf8')) as { hash: string }).hash;
  const r = await runCli(['hash', koshari]);
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stdout.trim(), declared);
  t.equal((await runCli(['hash', koshari, '--check'])).stdout.trim(), `ok ${declared}`);
  const doc = JSON.parse(readFileSync(koshari, 'utf8')) as Record<string, unknown>;
  doc.revision = 2;
  const changed = file('changed.json', doc);
  const bad = await runCli(['hash', changed, '--check', '--json']);
  t.equal(bad.code, 1);
  const out = JSON.parse(bad.stdout) as { ok: boolean; declared: string; hash: string };
  t.equal(out.ok, false);
  t.equal(out.declared, declared);
  t.not(out.hash, declared);
  const none = await runCli(['hash', file('nohash.json', { a: 1 }), '--check']);
  t.equal(none.code, 1);
  t.match(none.stdout, /no declared hash/);
});

t.test('bad input: one line on stderr, exit 2, no stack trace', async (t) => {
  const cases: [string[], RegExp][] = [
    [['hash', join(dir, 'missing.json')], /cannot read document .*missing\.json: no such file/],
    [['hash', file('bad.json', '{"a": ')], /is not valid JSON/],
    [['hash', file('arr.json', '[1,2]')], /must hold a JSON object/],
    [['sign', koshari, '--key', file('notakey.json', { kid: 'x' })], /notakey\.json: .*alg/],
    [['sign', koshari, '--key', join(dir, 'nokey.json')], /cannot read key file/],
    [['verify', koshari, '--keys', file('badkeys.json', { nope: 1 })], /must hold a key record, an array of key records or/],
    [
      [
        'verify',
        koshari,
        '--keys',
        file('badkeys2.json', [{ kid: 'k', alg: 'EdDSA', publicKey: 'short', actor: 'a', validFrom: '2026-01-01T00:00:00Z' }]),
      ],
      /publicKey/,
    ],
    [['keygen', '--valid-from', 'yesterday'], /validFrom/],
  ];
  for (const [args, re] of cases) {
    const r = await runCli(args);
    t.equal(r.code, 2, args.join(' '));
    t.match(r.stderr, re, args.join(' '));
    t.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
    t.notMatch(r.stderr, /\bat .*\.ts:\d+/, 'no stack trace');
  }
  const help = await runCli(['sign', '--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /--key <keyfile>/);
});
