/**
 * Operator commands: serve, migrate, export, token create and revoke. They open the store directly: the data
 * directory's SQLite file, or the database `--db` names.
 */
import { existsSync } from 'node:fs';
import { CliError } from '../../../platform/cli-error.js';
import { exportDocuments } from '../documents.js';
import { issueToken, isValidNamespace } from '../proof/namespaces.js';
import { createRegistry, loadOrCreateKey } from '../server.js';
import { describeLocation, type OpenedStore, openRegistryStore, StoreLocationError, storeLocation } from '../store/open.js';

interface StoreOptions {
  dataDir: string;
  db?: string;
}

/** Open the store the options name; a bad `--db` or an unreachable database is one readable line. */
async function open(opts: StoreOptions, mustExist = false): Promise<OpenedStore> {
  try {
    const loc = storeLocation(opts);
    if (mustExist && loc.kind === 'sqlite' && !existsSync(loc.file))
      throw new CliError(`${opts.dataDir} holds no registry (no ${loc.file}); give --data-dir or --db`);
    return await openRegistryStore(loc);
  } catch (err) {
    if (err instanceof StoreLocationError) throw new CliError(err.message);
    throw err;
  }
}

export interface ServeOptions {
  port: string;
  host: string;
  dataDir: string;
  db?: string;
  baseUrl?: string;
  recipeBase?: string[];
  dnsServer?: string[];
  wellKnownTemplate?: string;
  oidcJwksUrl?: string;
  oidcIssuer: string;
  oidcAudience: string;
  proofsPerMinute: string;
  log?: boolean;
}

function port(text: string): number {
  if (!/^[0-9]{1,5}$/.test(text) || Number(text) > 65535) throw new CliError(`--port must be 0 to 65535, not ${JSON.stringify(text)}`);
  return Number(text);
}

function url(text: string, flag: string): string {
  try {
    const u = new URL(text);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
    return text;
  } catch {
    throw new CliError(`${flag} must be an http(s) URL, not ${JSON.stringify(text)}`);
  }
}

export async function serve(opts: ServeOptions): Promise<void> {
  const p = port(opts.port);
  if (!/^[0-9]{1,6}$/.test(opts.proofsPerMinute) || Number(opts.proofsPerMinute) < 1) {
    throw new CliError(`--proofs-per-minute must be a positive integer, not ${JSON.stringify(opts.proofsPerMinute)}`);
  }
  if (opts.wellKnownTemplate !== undefined && !opts.wellKnownTemplate.includes('{domain}')) {
    throw new CliError('--well-known-template must contain {domain}');
  }
  let location: string;
  try {
    location = describeLocation(storeLocation(opts));
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  const reg = await createRegistry({
    dataDir: opts.dataDir,
    ...(opts.db ? { db: opts.db } : {}),
    ...(opts.baseUrl ? { baseUrl: url(opts.baseUrl, '--base-url') } : {}),
    recipeBases: (opts.recipeBase ?? []).map((b) => url(b, '--recipe-base')),
    ...(opts.dnsServer && opts.dnsServer.length > 0 ? { dnsServers: opts.dnsServer } : {}),
    ...(opts.wellKnownTemplate ? { wellKnownTemplate: opts.wellKnownTemplate } : {}),
    ...(opts.oidcJwksUrl
      ? { oidc: { jwksUrl: url(opts.oidcJwksUrl, '--oidc-jwks-url'), issuer: opts.oidcIssuer, audience: opts.oidcAudience } }
      : {}),
    proofsPerMinute: Number(opts.proofsPerMinute),
    logger: opts.log === true,
  }).catch((err: unknown) => {
    if (err instanceof StoreLocationError) throw new CliError(err.message);
    throw err;
  });
  try {
    await reg.app.listen({ port: p, host: opts.host });
  } catch (err) {
    await reg.close();
    throw new CliError(`cannot listen on ${opts.host}:${p}: ${(err as Error).message}`, 1);
  }
  if (reg.adminToken) {
    process.stdout.write(`admin token (shown once; keep it secret): ${reg.adminToken}\n`);
  }
  process.stdout.write(`registry listening on ${reg.ctx.registry} (store: ${location}; key in ${opts.dataDir})\n`);
  const stop = async () => {
    await reg.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await new Promise(() => undefined);
}

/** `hearth registry migrate`: apply pending schema migrations and say which (start-up does the same). */
export async function migrate(opts: StoreOptions & { json?: boolean }): Promise<void> {
  const { store, applied } = await open(opts);
  try {
    const where = describeLocation(storeLocation(opts));
    if (opts.json) process.stdout.write(`${JSON.stringify({ store: where, applied })}\n`);
    else if (applied.length === 0) process.stdout.write(`${where}: schema up to date\n`);
    else process.stdout.write(`${where}: applied ${applied.join(', ')}\n`);
  } finally {
    await store.close();
  }
}

export async function exportStatic(opts: StoreOptions & { out: string; baseUrl: string; json?: boolean }): Promise<void> {
  const { store } = await open(opts, true);
  try {
    const key = loadOrCreateKey(opts.dataDir, new Date());
    const files = await exportDocuments(
      { store, key, now: () => new Date(), registry: url(opts.baseUrl, '--base-url').replace(/\/+$/, '') },
      opts.out,
    );
    process.stdout.write(opts.json ? `${JSON.stringify({ files })}\n` : `${files.map((f) => `wrote ${f}`).join('\n')}\n`);
  } finally {
    await store.close();
  }
}

export async function createToken(opts: StoreOptions & { namespaces?: string; admin?: boolean; json?: boolean }): Promise<void> {
  const namespaces = (opts.namespaces ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (!opts.admin && namespaces.length === 0) throw new CliError('give --namespaces org.example[,…] or --admin');
  for (const ns of namespaces)
    if (!isValidNamespace(ns)) throw new CliError(`${ns} is not a namespace (reverse-DNS, lower case, e.g. org.example)`);
  const { store } = await open(opts);
  try {
    const { token, record } = await issueToken(store, namespaces, opts.admin === true, new Date());
    if (opts.json)
      process.stdout.write(`${JSON.stringify({ token, id: record.id, namespaces: record.namespaces, admin: record.admin })}\n`);
    else process.stdout.write(`${token}\n`);
  } finally {
    await store.close();
  }
}

export async function revokeToken(id: string, opts: StoreOptions & { json?: boolean }): Promise<void> {
  const { store } = await open(opts);
  try {
    const ok = await store.revokeToken(id, new Date().toISOString());
    if (!ok) throw new CliError(`no live token with id ${id}`);
    process.stdout.write(opts.json ? `${JSON.stringify({ id, revoked: true })}\n` : `revoked ${id}\n`);
  } finally {
    await store.close();
  }
}
