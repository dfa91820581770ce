/** `hearth keygen` then `hearth mandate sign`: a person makes a mandate the device verifies; `trust` and `keys`. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { KeyRecord } from '../../core/keys.js';
import { verifyMandate } from '../../core/mandate.js';
import { runCli, scratchFiles } from '../../test-support/cli.js';

const { dir, file } = scratchFiles(t, 'hearth-mandate-');

t.test('sign a mandate with a key file; the device trusts the public record and verifies it', async (t) => {
  const keyPath = join(dir, 'alice.key.json');
  const kg = await runCli(['keygen', '--kid', 'alice-1', '--actor', 'alice', '--valid-from', '2026-01-01T00:00:00Z', '--out', keyPath]);
  t.equal(kg.code, 0, kg.stderr);
  const pub = JSON.parse(kg.stdout) as KeyRecord;
  const out = join(dir, 'mandate.json');
  const signed = await runCli([
    'mandate',
    'sign',
    '--key',
    keyPath,
    '--agent',
    'tok_bot',
    '--scopes',
    'start_cooking,order_groceries',
    '--expires',
    '7d',
    '--per-order-cap',
    '50EUR',
    '--confirm-before',
    'new_provider',
    '--acknowledge-allergens',
    'Eggs,milk',
    '--out',
    out,
  ]);
  t.equal(signed.code, 0, signed.stderr);
  const mandate = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>;
  t.equal(mandate.principal, 'alice', "the key's actor is the principal");
  t.same(mandate.perOrderCap, { amount: 50, currency: 'EUR' });
  t.same(mandate['x-acknowledgedAllergens'], ['eggs', 'milk']);
  const r = verifyMandate(mandate, [pub], { scope: 'start_cooking', agent: ['tok_bot'], now: new Date() });
  t.ok(r.ok, JSON.stringify(r));

  const data = join(dir, 'var');
  const trusted = await runCli(['mandate', 'trust', file('alice.pub.json', pub), '--data-dir', data]);
  t.equal(trusted.code, 0, trusted.stderr);
  t.match(trusted.stdout, /principal alice: key alice-1 registered/);
  const listed = await runCli(['mandate', 'keys', '--data-dir', data, '--json']);
  t.same(
    (JSON.parse(listed.stdout) as KeyRecord[]).map((k) => k.kid),
    ['alice-1'],
  );

  for (const [args, msg] of [
    [['--scopes', 'cook_everything', '--expires', '7d'], /--scopes must list some of/],
    [['--scopes', 'start_cooking', '--expires', 'yesterday'], /--expires must be/],
    [['--scopes', 'start_cooking', '--expires', '2020-01-01T00:00:00Z'], /in the past/],
    [['--scopes', 'start_cooking', '--expires', '7d', '--spend-cap', 'lots'], /--spend-cap must be an amount/],
  ] as const) {
    const bad = await runCli(['mandate', 'sign', '--key', keyPath, '--agent', 'tok_bot', ...args]);
    t.equal(bad.code, 2, args.join(' '));
    t.match(bad.stderr, msg);
    t.equal(bad.stderr.trim().split('\n').length, 1, 'one line');
  }
  const secret = await runCli(['mandate', 'trust', keyPath, '--data-dir', data]);
  t.equal(secret.code, 2, 'a key file with its private key is refused');
  t.match(secret.stderr, /private key/);
});
