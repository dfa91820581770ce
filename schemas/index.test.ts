import { readFileSync } from 'node:fs';
import t from 'tap';
import { hasShared, referenceDir } from '../test-support/shared.js';
import { issuesFromErrors, schemaNames, validate } from './index.js';

const H = `sha256:${'a'.repeat(64)}`;
const sig = { alg: 'EdDSA', kid: 'k1', signedAt: '2026-10-05T00:00:00Z', sig: 'abc_-' };

const minimalRecipe = () => ({
  svc: '0.2.0',
  id: 'tea',
  revision: 1,
  process: { nodes: [{ id: 'n1', op: 'cw.op.boil', until: { minTime: 'PT5M' } }] },
});

t.test('recipes: svc or, read leniently, cookwala', async (t) => {
  t.same(validate.recipe(minimalRecipe()), { valid: true, issues: [] });
  const legacy: Record<string, unknown> = minimalRecipe();
  delete legacy.svc;
  legacy.cookwala = '0.2.0';
  t.equal(validate.recipe(legacy).valid, true);
  delete legacy.cookwala;
  t.same(validate.recipe(legacy).issues, [
    { code: 'schema', path: '/svc', message: 'svc (the spec version) is required; cookwala is accepted in its place' },
  ]);
});

t.test('broken recipes give issues with JSON pointers', async (t) => {
  const r = minimalRecipe() as Record<string, unknown> & { process: { nodes: Record<string, unknown>[] } };
  r.process.nodes[0] = { id: 'n 1', op: 'boil', until: { minTime: '5 minutes' }, colour: 'red' };
  r.revision = 0;
  r.surprise = true;
  r['x-vendor'] = { fine: true };
  const out = validate.recipe(r);
  t.equal(out.valid, false);
  const paths = out.issues.map((i) => i.path).sort();
  t.same(paths, [
    '/process/nodes/0/colour',
    '/process/nodes/0/id',
    '/process/nodes/0/op',
    '/process/nodes/0/until/minTime',
    '/revision',
    '/surprise',
  ]);
  t.ok(out.issues.every((i) => i.code === 'schema' && i.message.length > 0));
  t.same(
    validate.recipe({ svc: '0.2.0', id: 'x1', revision: 1, process: { nodes: [] } }).issues.map((i) => i.path),
    ['/process/nodes'],
  );
  t.same(
    validate.recipe(null).issues.map((i) => i.path),
    [''],
  );
  t.same(
    validate
      .recipe({ svc: '0.2.0', revision: 1 })
      .issues.map((i) => i.path)
      .sort(),
    ['/id', '/process'],
  );
});

t.test('capabilities: legacy_step may not be declared; sensor states are a closed list', async (t) => {
  const caps = {
    svc: '0.2.0',
    actor: { kind: 'robot', id: 'demo:x' },
    capabilities: { ops: [{ op: 'cw.op.saute' }], sensors: [{ sensor: 'cw.sense.oil_temp', state: 'ok' }] },
  };
  t.equal(validate.capabilities(caps).valid, true);
  const bad = structuredClone(caps);
  bad.capabilities.ops.push({ op: 'cw.op.legacy_step' });
  bad.capabilities.sensors[0] = { sensor: 'cw.sense.oil_temp', state: 'sleepy' };
  t.same(
    validate
      .capabilities(bad)
      .issues.map((i) => i.path)
      .sort(),
    ['/capabilities/ops/1/op', '/capabilities/sensors/0/state'],
  );
});

t.test('safety limits: max_temp needs max and unit; actions are a closed list', async (t) => {
  const pack = {
    core: '0.2.0',
    kind: 'SafetyLimits',
    id: 'p',
    version: '1.0.0',
    limits: [{ id: 'oil', kind: 'max_temp', max: 190, unit: 'degC', action: 'cut_heat' }],
  };
  t.equal(validate.safetyLimits(pack).valid, true);
  const bad = structuredClone(pack) as { core: string; limits: Record<string, unknown>[] };
  bad.core = '0.3.0';
  bad.limits[0] = { id: 'oil', kind: 'max_temp', action: 'shrug' };
  t.same(
    validate
      .safetyLimits(bad)
      .issues.map((i) => i.path)
      .sort(),
    ['/core', '/limits/0/action', '/limits/0/max', '/limits/0/unit'],
  );
});

t.test('execute request, execution status and log', async (t) => {
  const req = {
    core: '0.2.0',
    kind: 'ExecuteRequest',
    id: 'req-1',
    recipe: 'example-koshari',
    recipeHash: H,
    requestedBy: 'human:primary',
    idempotencyKey: 'abcdefgh',
    servings: 2,
  };
  t.equal(validate.executeRequest(req).valid, true);
  t.same(
    validate
      .executeRequest({ ...req, idempotencyKey: 'short', servings: 0, extra: 1 })
      .issues.map((i) => i.path)
      .sort(),
    ['/extra', '/idempotencyKey', '/servings'],
  );
  t.same(
    validate.executeRequest({ ...req, core: '0.1.0' }).issues.map((i) => i.path),
    ['/core'],
  );
  const status = {
    core: '0.2.0',
    kind: 'ExecutionStatus',
    id: 'exe-1',
    request: 'req-1',
    state: 'refused',
    seq: 1,
    updatedAt: '2026-10-05T12:00:00Z',
    refusal: { reason: 'needs_human_present', node: 'n7', detail: 'nobody present' },
  };
  t.equal(validate.executionStatus(status).valid, true);
  t.same(
    validate
      .executionStatus({ ...status, state: 'cooking', seq: -1 })
      .issues.map((i) => i.path)
      .sort(),
    ['/seq', '/state'],
  );
  const log = {
    core: '0.2.0',
    kind: 'ExecutionLog',
    id: 'log-1',
    recipe: 'example-koshari',
    recipeHash: H,
    device: { vendor: 'demo', model: 'fryer' },
    startedAt: '2026-10-05T12:00:00Z',
    outcome: 'served',
    steps: [{ node: 'n1', op: 'cw.op.boil', verifiedBy: 'sensor', envelopeOk: true }],
    safetyEvents: [],
    humanInterventions: [],
    privacy: { personalData: 'none' },
  };
  t.equal(validate.executionLog(log).valid, true);
  t.same(
    validate
      .executionLog({ ...log, privacy: { personalData: 'some' }, outcome: 'eaten' })
      .issues.map((i) => i.path)
      .sort(),
    ['/outcome', '/privacy/personalData'],
  );
});

t.test('results: dry run, envelope check, validation result, problem', async (t) => {
  t.equal(
    validate.dryRunResult({ state: 'accepted', plan: [{ node: 'n1', op: 'cw.op.boil', by: 'device', verifiedBy: 'time' }] }).valid,
    true,
  );
  t.equal(validate.dryRunResult({ state: 'refused', plan: [] }).valid, false, 'a refusal needs its reason');
  t.equal(validate.dryRunResult({ state: 'refused', plan: [], refusal: { reason: 'safety_limit', node: 'n1', detail: 'x' } }).valid, true);
  t.equal(
    validate.dryRunResult({ state: 'accepted', plan: [], refusal: { reason: 'safety_limit', node: 'n1', detail: 'x' } }).valid,
    false,
  );
  t.equal(validate.envelopeCheckResult({ envelopeOk: true, targetOk: null, reason: 'ok' }).valid, true);
  t.equal(validate.envelopeCheckResult({ envelopeOk: 'yes', targetOk: null, reason: 'ok' }).valid, false);
  t.equal(validate.validationResult({ valid: false, issues: [{ code: 'semantics', path: '/process/nodes/0', message: 'x' }] }).valid, true);
  t.equal(
    validate.validationResult({ valid: true, issues: [{ code: 'semantics', path: '/a', message: 'x' }] }).valid,
    false,
    'valid with issues',
  );
  t.equal(validate.validationResult({ valid: false, issues: [{ code: 'oops', path: 'a', message: 'x' }] }).valid, false);
  t.equal(validate.problem({ type: 'https://x/errors/not-found', title: 'Not found', status: 404, extra: 1 }).valid, true);
  t.same(
    validate
      .problem({ title: 'x', status: 99 })
      .issues.map((i) => i.path)
      .sort(),
    ['/status', '/type'],
  );
});

t.test('registry entries: unknown members rejected except x-*', async (t) => {
  const e = {
    kind: 'recipe_collection',
    url: 'https://example.org/recipes/',
    name: 'org.example/home',
    version: '1.2.3',
    status: 'active',
    sha256: 'b'.repeat(64),
    description: 'Home recipes',
    tags: ['home'],
    verification: { method: 'dns_txt', verifiedAt: '2026-10-05T00:00:00Z', by: 'registry.example.org' },
    publishedAt: '2026-10-05T00:00:00Z',
    'x-note': 'fine',
  };
  t.equal(validate.registryEntry(e).valid, true);
  t.equal(validate.registryEntry({ kind: 'device', url: 'https://e.org/d.json' }).valid, true, 'only kind and url are required');
  const bad = { ...e, version: '^1.2', sha256: 'XYZ', description: 'd'.repeat(101), name: 'Org.Example/Home', deletedAt: 'x' };
  t.same(
    validate
      .registryEntry(bad)
      .issues.map((i) => i.path)
      .sort(),
    ['/deletedAt', '/description', '/name', '/sha256', '/version'],
  );
  t.same(
    validate
      .registryEntry({})
      .issues.map((i) => i.path)
      .sort(),
    ['/kind', '/url'],
  );
});

t.test('directory entries and conformance reports', async (t) => {
  const d = {
    kind: 'DirectoryEntry',
    id: 'did:web:example.org',
    name: 'Example',
    roles: ['catalog'],
    country: 'EG',
    status: 'active',
    addedAt: '2026-10-05T00:00:00Z',
    verification: { method: 'well_known' },
  };
  t.equal(validate.directoryEntry(d).valid, true);
  t.same(
    validate
      .directoryEntry({ ...d, id: 'alice', country: 'egypt', conformance: ['nope'] })
      .issues.map((i) => i.path)
      .sort(),
    ['/conformance/0', '/country', '/id'],
  );
  const report = {
    svc: '0.2.0',
    kind: 'ConformanceReport',
    id: 'hearth-0.1.0-run1',
    subject: { name: 'Hearth', version: '0.1.0' },
    tool: { name: 'hearth conformance', version: '0.1.0' },
    ranAt: '2026-10-05T00:00:00Z',
    suites: [{ suite: 'dryrun', total: 5, passed: 5, failed: [] }],
    results: [{ id: 'dryrun-x', kind: 'dryrun', pass: true }],
    signature: sig,
  };
  t.equal(validate.conformanceReport(report).valid, true);
  const { signature: _unsigned, ...unsigned } = report;
  t.same(
    validate.conformanceReport(unsigned).issues.map((i) => i.path),
    ['/signature'],
  );
});

t.test('every validator exists and rejects a non-object', async (t) => {
  t.equal(schemaNames.length, 32);
  for (const name of schemaNames) t.equal(validate[name]('nope').valid, false, name);
  t.same(issuesFromErrors(null), []);
});

if (hasShared) {
  t.test('reference documents validate', async (t) => {
    const read = (p: string) => JSON.parse(readFileSync(`${referenceDir}${p}`, 'utf8')) as unknown;
    for (const r of ['koshari', 'shakshuka', 'kofta-oven'])
      t.same(validate.recipe(read(`examples/${r}.cookwala.json`)), { valid: true, issues: [] }, r);
    t.equal(validate.recipe(read('examples/catalog/ec-010.cookwala.json')).valid, true);
    for (const d of ['demo-arm', 'demo-fryer-robot', 'demo-hob-robot', 'demo-hob-robot-basic', 'demo-oven']) {
      t.same(validate.capabilities(read(`examples/capabilities/${d}.json`)), { valid: true, issues: [] }, d);
    }
    t.equal(validate.safetyLimits(read('profiles/safety-limits.default.json')).valid, true);
    t.equal(validate.directoryEntry(read('examples/registry/directory-entry.json')).valid, true);
  });
}
