// @slow: runs every HIL scenario and the HIL mutation run in a spawned hearth (npm run test:fast skips this file; npm test runs it)
/**
 * `hearth safety-report` on the simulated rig, as an operator runs it: a key from `hearth keygen`, the report
 * written, `hearth verify report.json --keys KEY` (the record keygen printed) accepts it, and an edit of any one
 * byte breaks it. The hazards in it are hil-tests/hazards.yaml's (the source of docs/safety-case.md's table).
 * Bad input (a key that is not an Ed25519 key file, an unwritable folder) is one line, exit 2, nothing left.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parseJson } from '../../core/canonical.js';
import { parseKeyRecord } from '../../core/keys.js';
import { verifyDocument } from '../../core/signature.js';
import { runCli, scratchFiles } from '../../test-support/cli.js';
import { loadHazards } from './hazards.js';

t.test('bad input: one line, exit 2, nothing written', async (t) => {
  const { dir, file } = scratchFiles(t, 'hearth-safety-report-');
  const key = join(dir, 'key.json');
  t.equal((await runCli(['keygen', '--out', key])).code, 0);
  const publicOnly = file('public.json', JSON.stringify(parseKeyRecord(JSON.parse(readFileSync(key, 'utf8')), 'key')));
  const rsa = file('rsa.json', { ...JSON.parse(readFileSync(key, 'utf8')), alg: 'RS256' });
  for (const [args, line] of [
    [
      ['--key', publicOnly, '--out', join(dir, 'out')],
      /^hearth: .*public\.json is not an Ed25519 key file as hearth keygen writes it: .*privateKey.*\n$/,
    ],
    [['--key', rsa, '--out', join(dir, 'out')], /^hearth: .*rsa\.json is not an Ed25519 key file as hearth keygen writes it: .*EdDSA.*\n$/],
    [['--key', key, '--out', join(dir, 'no/such/out')], /^hearth: cannot write report folder .*: its parent folder does not exist\n$/],
    [['--key', key, '--out', key], /^hearth: cannot write report folder .*key\.json: it exists and is not a folder\n$/],
  ] as const) {
    const r = await runCli(['safety-report', ...args]);
    t.equal(r.code, 2, args.join(' '));
    t.match(r.stderr, line);
  }
  t.same(readdirSync(dir).sort(), ['key.json', 'public.json', 'rsa.json'], 'nothing half-written');
});

t.test('a signed report that hearth verify accepts, and that any one-byte edit breaks', async (t) => {
  const { dir } = scratchFiles(t, 'hearth-safety-report-');
  const key = join(dir, 'key.json');
  const record = join(dir, 'record.json');
  const kg = await runCli(['keygen', '--out', key]);
  t.equal(kg.code, 0, kg.stderr);
  writeFileSync(record, kg.stdout);
  const out = join(dir, 'report');
  const r = await runCli(['safety-report', '--key', key, '--out', out], { timeoutMs: 900_000 });
  t.equal(r.code, 0, r.stderr);
  t.same(readdirSync(out).sort(), ['report.html', 'report.json']);
  t.same(
    readdirSync(dir).filter((n) => n.startsWith('.')),
    [],
    'no staging folder left',
  );

  const ok = await runCli(['verify', join(out, 'report.json'), '--keys', record]);
  t.equal(ok.code, 0, ok.stdout + ok.stderr);
  t.match(ok.stdout, /^ok sha256:[0-9a-f]{64} signed by hearth-/);

  const text = readFileSync(join(out, 'report.json'), 'utf8');
  const doc = parseJson(text) as Record<string, unknown>;
  t.equal(doc.kind, 'SafetyReport');
  const hazards = doc.hazards as { hazard: string; documentedBound: string; proofs: { kind: string; killedByMutation: string }[] }[];
  t.same(
    hazards.map((h) => [h.hazard, h.documentedBound]),
    loadHazards().map((h) => [h.hazard, h.bound]),
    'the hazards and bounds of hil-tests/hazards.yaml',
  );
  const hil = hazards.flatMap((h) => h.proofs).filter((p) => p.kind === 'hil');
  t.ok(hil.length >= 15, 'the HIL proofs are there');
  t.ok(
    hil.every((p) => p.killedByMutation === 'killed'),
    'every HIL proof killed by its mutant',
  );
  t.match(doc, {
    hearth: { version: /^\d+\.\d+\.\d+/, commit: String },
    rig: { kind: 'simulated' },
    machine: { loadAverageAtStart: Array, node: process.version },
    limitsInForce: { kind: 'SafetyLimits' },
    summary: { failed: 0 },
  });
  const html = readFileSync(join(out, 'report.html'), 'utf8');
  t.match(html, /<table id="hazards">/);
  t.equal(html.match(/<svg /g)?.length, 24, 'a chart per scenario');

  const edited = join(dir, 'edited.json');
  const at = text.indexOf('"killedByMutation":"killed"') + '"killedByMutation":"k'.length;
  writeFileSync(edited, `${text.slice(0, at)}K${text.slice(at + 1)}`);
  const bad = await runCli(['verify', edited, '--keys', record]);
  t.equal(bad.code, 1);
  t.equal(bad.stdout, 'bad_signature\n');

  // Every byte position (sampled), replaced by another byte: it no longer parses, or it no longer verifies.
  const keys = [parseKeyRecord(JSON.parse(readFileSync(record, 'utf8')), 'record')];
  const bytes = Buffer.from(text, 'utf8');
  let survived = 0;
  for (let i = 0; i < bytes.length - 1; i += 37) {
    const copy = Buffer.from(bytes);
    copy[i] = copy[i] === 0x30 ? 0x31 : 0x30;
    let parsed: Record<string, unknown>;
    try {
      parsed = parseJson(copy.toString('utf8')) as Record<string, unknown>;
    } catch {
      continue;
    }
    const v = verifyDocument(parsed, keys);
    // as hearth verify judges it: the signature, and the declared hash against the computed one
    if (v.ok && parsed.hash === v.hash) survived++;
  }
  t.equal(survived, 0, 'no one-byte edit verifies');
});
