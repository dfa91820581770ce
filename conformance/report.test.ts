import t from 'tap';
import { generateKeyFile, publicRecord } from '../core/keys.js';
import { verifyDocument } from '../core/signature.js';
import { validate } from '../schemas/index.js';
import { buildReport, signedReport, suiteOf, vectorsHash } from './report.js';
import type { RunOutcome } from './runner.js';

const outcome: RunOutcome = {
  dir: '/vectors',
  files: ['hash.json', 'profiles/sms.json'],
  results: [
    { id: 'h-1', kind: 'hash', file: 'hash.json', passed: true, expected: { hash: 'x' }, got: { hash: 'x' } },
    { id: 's-1', kind: 'sms_parse', file: 'profiles/sms.json', passed: false, expected: { ok: true }, got: { ok: false, error: 'usage' } },
    { id: 's-2', kind: 'teleport', file: 'profiles/sms.json', passed: false, expected: {}, error: 'unknown kind "teleport"' },
  ],
  problems: [],
  passed: 1,
  failed: 2,
};
const at = new Date('2026-11-20T10:00:00.500Z');
const opts = { tool: { name: 'hearth', version: '1.2.3' }, at, environment: { node: 'v20.19.0', platform: 'linux', arch: 'arm64' } };

t.test('the report says what ran, with what, when, on what, and each result', async (t) => {
  const r = buildReport(outcome, opts);
  t.equal(r.kind, 'ConformanceReport');
  t.same(r.tool, { name: 'hearth', version: '1.2.3' });
  t.equal(r.ranAt, '2026-11-20T10:00:00Z');
  t.same(r.environment, opts.environment);
  t.same(r.suites, [
    { suite: 'hash', total: 1, passed: 1, failed: [] },
    { suite: 'profiles/sms', total: 2, passed: 0, failed: ['s-1', 's-2'] },
  ]);
  t.same(r.summary, { total: 3, passed: 1, failed: 2 });
  t.same(r.results, [
    { id: 'h-1', kind: 'hash', suite: 'hash', pass: true },
    { id: 's-1', kind: 'sms_parse', suite: 'profiles/sms', pass: false, detail: 'got {"error":"usage","ok":false}' },
    { id: 's-2', kind: 'teleport', suite: 'profiles/sms', pass: false, detail: 'unknown kind "teleport"' },
  ]);
  t.match(r.id, /^hearth-2026-11-20-[0-9a-f]{12}$/);
  t.equal(suiteOf('profiles/sms.json'), 'profiles/sms');
});

t.test("the signed report is valid against the project's ConformanceReport schema", async (t) => {
  const key = generateKeyFile({ kid: 'did:web:lab.example#k1', actor: 'lab', validFrom: '2026-01-01T00:00:00Z' });
  const signed = signedReport(outcome, key, opts);
  const result = validate.conformanceReport(signed);
  t.same(result.issues, []);
  t.ok(result.valid);
  t.notOk(
    validate.conformanceReport({ ...signed, results: [{ id: 'x', kind: 'hash', passed: true }] }).valid,
    'schema rejects a wrong result shape',
  );
});

t.test('vectorsHash depends on the vectors, not their order', async (t) => {
  const h = vectorsHash(outcome);
  t.equal(vectorsHash({ ...outcome, results: [...outcome.results].reverse() }), h);
  t.not(vectorsHash({ ...outcome, results: outcome.results.slice(1) }), h);
  const changed = outcome.results.map((x) => (x.id === 'h-1' ? { ...x, expected: { hash: 'y' } } : x));
  t.not(vectorsHash({ ...outcome, results: changed }), h);
});

t.test('the signed report verifies with the public record and detects edits', async (t) => {
  const key = generateKeyFile({ kid: 'did:web:lab.example#k1', actor: 'lab', validFrom: '2026-01-01T00:00:00Z' });
  const signed = signedReport(outcome, key, opts);
  t.equal(signed.signature.signedAt, '2026-11-20T10:00:00Z');
  t.equal(verifyDocument(signed, [publicRecord(key)]).reason, 'ok');
  t.equal(verifyDocument(signed, [publicRecord(key)], { kind: 'ConformanceReport' }).reason, 'ok');
  t.equal(verifyDocument({ ...signed, summary: { total: 3, passed: 3, failed: 0 } }, [publicRecord(key)]).reason, 'bad_signature');
});
