/**
 * The registry conformance runner: a list of named checks run in order against any registry over HTTP, in the
 * manner of the OCI distribution conformance suite. Each check either passes or fails with one line saying
 * why; later checks still run. Names published by a run carry a unique run id, since names are never reused.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';

export interface ConformanceOptions {
  baseUrl: string;
  /** A publish token bound to `namespace`. */
  token: string;
  namespace: string;
  /** Called once per check with its line (`ok …` or `FAIL …`). */
  log?: (line: string) => void;
}

export interface CheckResult {
  name: string;
  ok: boolean;
  reason?: string;
}

export interface Reply {
  status: number;
  type: string;
  // biome-ignore lint/suspicious/noExplicitAny: checks read arbitrary members of answers from any registry
  body: any;
}

export class CheckFailed extends Error {}

export function expect(cond: unknown, why: string): asserts cond {
  if (!cond) throw new CheckFailed(why);
}

export function expectStatus(r: Reply, status: number | ((s: number) => boolean), what = ''): void {
  const ok = typeof status === 'number' ? r.status === status : status(r.status);
  const brief = typeof r.body === 'object' && r.body !== null ? JSON.stringify(r.body).slice(0, 160) : String(r.body).slice(0, 80);
  expect(ok, `${what ? `${what}: ` : ''}expected status ${typeof status === 'number' ? status : 'in range'}, got ${r.status} ${brief}`);
}

export function expectProblem(r: Reply, status: number | ((s: number) => boolean)): void {
  expectStatus(r, status);
  expect(r.type.startsWith('application/problem+json'), `expected application/problem+json, got ${r.type || 'no content type'}`);
  expect(typeof r.body?.type === 'string' && typeof r.body?.title === 'string', 'a problem document needs string type and title');
}

export function expectValidationResult(r: Reply, valid: boolean, code?: string, path?: string): void {
  expect(
    typeof r.body?.valid === 'boolean' && Array.isArray(r.body?.issues),
    `expected a ValidationResult, got ${JSON.stringify(r.body).slice(0, 160)}`,
  );
  expect(r.body.valid === valid, `expected valid=${valid}, got ${JSON.stringify(r.body).slice(0, 200)}`);
  for (const i of r.body.issues) {
    expect(
      typeof i.code === 'string' && typeof i.path === 'string' && typeof i.message === 'string',
      'every issue needs code, path and message strings',
    );
  }
  if (code !== undefined) {
    const hit = r.body.issues.find((i: { code: string; path: string }) => i.code === code && (path === undefined || i.path === path));
    expect(hit, `expected an issue ${code}${path ? ` at ${path}` : ''}, got ${JSON.stringify(r.body.issues).slice(0, 200)}`);
  }
}

export class Client {
  constructor(readonly base: string) {}

  async send(
    method: string,
    path: string,
    opts: { body?: unknown; raw?: string; token?: string; key?: string | null; contentType?: string } = {},
  ): Promise<Reply> {
    const headers: Record<string, string> = {};
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined) headers['content-type'] = opts.contentType ?? 'application/json';
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.key) headers['idempotency-key'] = opts.key;
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = text;
    }
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: parsed };
  }
}

/** State the checks share: the run id, the names they publish, the client. */
export interface Run {
  opts: ConformanceOptions;
  http: Client;
  id: string;
  name: string;
  key(): string;
  sha(seed: string): string;
  entry(version: string, extra?: Record<string, unknown>): Record<string, unknown>;
  /** Values one check leaves for a later one. */
  state: Record<string, unknown>;
}

export type Check = { name: string; run: (r: Run) => Promise<void> };

export function newRun(opts: ConformanceOptions): Run {
  const id = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const name = `${opts.namespace}/conformance-${id}`;
  const sha = (seed: string) => createHash('sha256').update(`${seed}:${id}`).digest('hex');
  return {
    opts,
    http: new Client(opts.baseUrl.replace(/\/+$/, '')),
    id,
    name,
    key: () => `conformance-${randomUUID()}`,
    sha,
    state: {},
    entry: (version, extra = {}) => ({
      kind: 'rule_pack',
      name,
      version,
      url: `https://example.org/conformance/${id}/${version}.json`,
      sha256: sha(version),
      description: `Conformance run ${id}`,
      ...extra,
    }),
  };
}

/** Run `checks` in order; returns every result. */
export async function runChecks(
  opts: ConformanceOptions,
  checks: readonly Check[],
): Promise<{ passed: number; failed: number; results: CheckResult[] }> {
  const run = newRun(opts);
  const results: CheckResult[] = [];
  for (const c of checks) {
    try {
      await c.run(run);
      results.push({ name: c.name, ok: true });
      opts.log?.(`ok   ${c.name}`);
    } catch (err) {
      const reason = err instanceof CheckFailed ? err.message : `error: ${(err as Error).message}`;
      results.push({ name: c.name, ok: false, reason });
      opts.log?.(`FAIL ${c.name}: ${reason}`);
    }
  }
  const passed = results.filter((r) => r.ok).length;
  return { passed, failed: results.length - passed, results };
}
