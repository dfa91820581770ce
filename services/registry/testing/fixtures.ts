/**
 * Test fixtures: a registry on loopback wired to a loopback DNS server, web server and OIDC issuer, with an
 * injectable clock, plus helpers to prove a namespace and to build entries and recipe collections.
 */
import { createHash } from 'node:crypto';
import { createRegistry, type Registry, type RegistryOptions } from '../server.js';
import type { RegistryEntry } from '../types.js';
import { startTestDnsServer, type TestDnsServer } from './dns-server.js';
import { startTestOidcIssuer, type TestOidcIssuer } from './oidc-issuer.js';
import { startTestWebServer, type TestWebServer } from './web-server.js';

export interface Harness {
  reg: Registry;
  url: string;
  adminToken: string;
  dns: TestDnsServer;
  web: TestWebServer;
  idp: TestOidcIssuer;
  clock: { now: Date; advance(ms: number): void };
  /** JSON request helper: returns status, headers and parsed body. */
  call(
    method: string,
    path: string,
    opts?: { body?: unknown; raw?: string; token?: string; key?: string; headers?: Record<string, string> },
  ): Promise<Answer>;
  /** Prove `namespace` by DNS and return a publish token for it. */
  prove(namespace: string): Promise<string>;
  close(): Promise<void>;
}

export interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response members
  body: any;
}

let keyCounter = 0;
export function idemKey(): string {
  keyCounter++;
  return `test-key-${process.pid}-${keyCounter}-${Date.now()}`;
}

export function sha(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function entry(name: string, version: string, extra: Partial<RegistryEntry> = {}): Record<string, unknown> {
  return {
    kind: 'rule_pack',
    name,
    version,
    url: `https://example.org/${name}/${version}.json`,
    sha256: sha(`${name}@${version}`),
    ...extra,
  };
}

/** A recipe whose one node heats at `tempC` with `op` (default simmer, envelope 85–96 °C). */
export function recipe(id: string, tempC: unknown, op = 'cw.op.simmer'): Record<string, unknown> {
  return { svc: '0.2.0', id, process: { nodes: [{ id: 'n1', op, params: { tempC } }] } };
}

export async function startHarness(extra: Partial<RegistryOptions> = {}): Promise<Harness> {
  const dns = await startTestDnsServer();
  const web = await startTestWebServer();
  const idp = await startTestOidcIssuer();
  const clock = {
    now: new Date('2026-11-20T12:00:00.000Z'),
    advance(ms: number) {
      this.now = new Date(this.now.getTime() + ms);
    },
  };
  const reg = await createRegistry({
    now: () => clock.now,
    dnsServers: [dns.address],
    wellKnownTemplate: `${web.base}/{domain}/.well-known/svc-verify`,
    oidc: { jwksUrl: idp.jwksUrl, issuer: idp.issuer, audience: 'svc-registry' },
    recipeBases: [`${web.base}/collections/`],
    ...extra,
  });
  await reg.app.listen({ port: 0, host: '127.0.0.1' });
  const url = reg.ctx.registry;
  const call: Harness['call'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.key) headers['idempotency-key'] = opts.key;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    const res = await fetch(`${url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = text;
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
  const prove = async (namespace: string) => {
    const c = await call('POST', `/v1/namespaces/${namespace}/challenge`, { body: { method: 'dns' } });
    if (c.status !== 201) throw new Error(`challenge failed: ${JSON.stringify(c.body)}`);
    dns.setTxt(c.body.domain, [`svc-verify=${c.body.token}`]);
    const v = await call('POST', `/v1/namespaces/${namespace}/verify`, { body: { method: 'dns' } });
    if (v.status !== 201) throw new Error(`verify failed: ${JSON.stringify(v.body)}`);
    return v.body.token as string;
  };
  return {
    reg,
    url,
    adminToken: reg.adminToken as string,
    dns,
    web,
    idp,
    clock,
    call,
    prove,
    async close() {
      await reg.close();
      await Promise.all([dns.close(), web.close(), idp.close()]);
    },
  };
}
