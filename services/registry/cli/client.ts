/** Publisher commands that talk to a running registry over HTTP: prove, publish, status. */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { CanonicalJsonError, parseJson } from '../../../core/canonical.js';
import { CliError } from '../../../platform/cli-error.js';

export interface ClientOptions {
  registry: string;
  token?: string;
  json?: boolean;
}

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: answers are printed or read member by member
  body: any;
}

async function call(opts: ClientOptions, method: string, path: string, body?: unknown, idem = false): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (idem) headers['idempotency-key'] = randomUUID();
  let res: Response;
  try {
    res = await fetch(`${opts.registry.replace(/\/+$/, '')}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    throw new CliError(`cannot reach the registry at ${opts.registry}: ${e.cause?.code ?? e.message}`, 1);
  }
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed };
}

function fail(a: Answer): never {
  const b = a.body;
  if (b && typeof b === 'object' && Array.isArray(b.issues)) {
    const lines = b.issues
      .map((i: { code: string; path: string; message: string }) => `${i.code} ${i.path || '/'}: ${i.message}`)
      .join('; ');
    throw new CliError(`the registry refused it (${a.status}): ${lines}`, 1);
  }
  throw new CliError(`the registry answered ${a.status}: ${b && typeof b === 'object' ? (b.detail ?? b.title) : String(b)}`, 1);
}

function out(opts: ClientOptions, data: unknown, text: string): void {
  process.stdout.write(opts.json ? `${JSON.stringify(data)}\n` : `${text}\n`);
}

export function namespaceOfDomain(domain: string): string {
  if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain))
    throw new CliError(`${JSON.stringify(domain)} is not a lower-case domain such as example.org`);
  return domain.split('.').reverse().join('.');
}

export async function prove(domain: string, opts: ClientOptions & { method: string; check?: boolean; idToken?: string }): Promise<void> {
  if (!['dns', 'well-known', 'oidc'].includes(opts.method)) throw new CliError('--method must be dns, well-known or oidc');
  const ns = namespaceOfDomain(domain);
  opts.token ??= process.env.SVC_REGISTRY_TOKEN;
  if (opts.method === 'oidc' || opts.check) {
    const body: Record<string, string> = { method: opts.method };
    if (opts.method === 'oidc') {
      const tok = opts.idToken ?? process.env.SVC_OIDC_TOKEN;
      if (!tok) throw new CliError('the oidc method needs --id-token or SVC_OIDC_TOKEN');
      body.idToken = tok;
    }
    const a = await call(opts, 'POST', `/v1/namespaces/${ns}/verify`, body);
    if (a.status !== 201) fail(a);
    out(
      opts,
      a.body,
      `proven: ${ns} (${a.body.method})\npublish token (shown once; it covers ${a.body.namespaces.join(', ')}):\n${a.body.token}`,
    );
    return;
  }
  const a = await call(opts, 'POST', `/v1/namespaces/${ns}/challenge`, { method: opts.method });
  if (a.status !== 201) fail(a);
  const how =
    opts.method === 'dns'
      ? `add a DNS TXT record on ${a.body.instructions.name}:\n  ${a.body.instructions.value}`
      : `serve this token at ${a.body.instructions.url}:\n  ${a.body.instructions.body}`;
  out(
    opts,
    a.body,
    `namespace ${ns}: ${how}\nthen run: hearth registry prove ${domain} --method ${opts.method} --check (before ${a.body.expiresAt})`,
  );
}

function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return parseJson(text);
  } catch (err) {
    throw new CliError(`${file} is not valid JSON: ${err instanceof CanonicalJsonError ? err.message : String(err)}`);
  }
}

function needToken(opts: ClientOptions): void {
  opts.token ??= process.env.SVC_REGISTRY_TOKEN;
  if (!opts.token) throw new CliError('a publish token is needed: --token or SVC_REGISTRY_TOKEN (get one with hearth registry prove)');
}

export async function publish(file: string, opts: ClientOptions): Promise<void> {
  needToken(opts);
  const a = await call(opts, 'POST', '/v1/registry/publish', readJsonFile(file), true);
  if (a.status !== 201) fail(a);
  out(opts, a.body, `published ${a.body.name} ${a.body.version} (${a.body.status})`);
}

export async function setStatus(ref: string, opts: ClientOptions & { status: string; message?: string }): Promise<void> {
  needToken(opts);
  const at = ref.lastIndexOf('@');
  const name = at > 0 ? ref.slice(0, at) : ref;
  const version = at > 0 ? ref.slice(at + 1) : undefined;
  const parts = name.split('/');
  if (parts.length !== 2 || version === '')
    throw new CliError(`${JSON.stringify(ref)} is not <namespace>/<name> or <namespace>/<name>@<version>`);
  const body: Record<string, string> = { status: opts.status };
  if (version !== undefined) body.version = version;
  if (opts.message !== undefined) body.message = opts.message;
  const a = await call(opts, 'PATCH', `/v1/registry/entries/${parts.map(encodeURIComponent).join('/')}/status`, body, true);
  if (a.status !== 200) fail(a);
  const changed = a.body.updated.map((e: { version: string }) => e.version);
  const text = changed.length ? `${name} ${changed.join(', ')} → ${opts.status}` : `${name}: nothing to change (already ${opts.status})`;
  out(opts, a.body, a.body.recall ? `${text}\nrecall ${a.body.recall.id} published in the recall feed` : text);
}
