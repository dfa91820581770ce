import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { runCli, scratchFiles } from '../../../test-support/cli.js';

const { dir, file } = scratchFiles(t, 'hearth-docs-');
const koshari = 'examples/recipes/koshari.svc.json';

t.test('keygen, sign and verify end to end', async (t) => {
  const keyPath = join(dir, 'key.json');
  const kg = await runCli([
    'keygen',
    '--kid',
    'kitchen#k1',
    '--actor',
    'org:example.test',
    '--valid-from',
    '2026-01-01T00:00:00Z',
    '--out',
    keyPath,
  ]);
  t.equal(kg.code, 0, kg.stderr);
  const pub = JSON.parse(kg.stdout) as Record<string, unknown>;
  t.same(Object.keys(pub).sort(), ['actor', 'alg', 'kid', 'publicKey', 'validFrom']);
  t.equal(pub.kid, 'kitchen#k1');
  t.equal(statSync(keyPath).mode & 0o777, 0o600);
  t.equal((await runCli(['keygen', '--out', keyPath])).code, 2, 'refuses to overwrite');
  const keys = file('keys.json', { keys: [pub] });

  const signedPath = join(dir, 'signed.json');
  const sg = await runCli([
    'sign',
    'examples/limits/demo-fryer.limits.json',
    '--key',
    keyPath,
    '--out',
    signedPath,
    '--signed-at',
    '2026-10-05T12:00:00Z',
  ]);
  t.equal(sg.code, 0, sg.stderr);
  const signed = JSON.parse(readFileSync(signedPath, 'utf8')) as Record<string, unknown> & { signature: Record<string, unknown> };
  t.same([signed.signature.alg, signed.signature.kid, signed.signature.signedAt], ['EdDSA', 'kitchen#k1', '2026-10-05T12:00:00Z']);

  const ok = await runCli(['verify', signedPath, '--keys', keys]);
  t.equal(ok.code, 0, ok.stderr);
  t.match(ok.stdout, /^ok sha256:[0-9a-f]{64} signed by kitchen#k1/);
  t.equal((await runCli(['verify', signedPath, '--keys', file('keys-array.json', [pub])])).code, 0, 'a bare array of records works too');

  // Tampering with a limit breaks the signature.
  const tampered = structuredClone(signed) as unknown as Record<string, unknown> & { limits: { max?: number }[] };
  tampered.limits[0] = { ...tampered.limits[0], max: 250 };
  delete tampered.hash;
  const tv = await runCli(['verify', file('tampered.json', tampered), '--keys', keys, '--json']);
  t.equal(tv.code, 1);
  t.same(JSON.parse(tv.stdout).reason, 'bad_signature');
  // A declared hash that does not match is reported even when the signature itself checks out.
  const wrongHash = { ...signed, hash: `sha256:${'0'.repeat(64)}` };
  const wh = await runCli(['verify', file('wrong-hash.json', wrongHash), '--keys', keys]);
  t.same([wh.code, wh.stdout.trim()], [1, 'hash_mismatch']);
  // Another key, or no signature.
  const other = await runCli(['keygen', '--kid', 'other']);
  const otherKey = JSON.parse(other.stdout) as Record<string, unknown>;
  delete otherKey.privateKey;
  const unknown = await runCli(['verify', signedPath, '--keys', file('other.json', [otherKey])]);
  t.same([unknown.code, unknown.stdout.trim()], [1, 'unknown_key']);
  const unsigned = await runCli(['verify', koshari, '--keys', keys]);
  t.same([unsigned.code, unsigned.stdout.trim()], [1, 'unsigned']);
});
