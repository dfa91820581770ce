/**
 * The registry and directory server: opens (or creates) the data directory, the store (SQLite in the data
 * directory by default, or PostgreSQL with `db: 'postgres://…'`), the signing key and the idempotency keys, and
 * builds the Fastify app with every route. `startRegistry` also listens.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { parseJson } from '../../core/canonical.js';
import { sha256Hex } from '../../core/hash.js';
import { generateKeyFile, type KeyFile, parseKeyFile } from '../../core/keys.js';
import { createHttpApp } from '../../platform/http/app.js';
import { installIdempotency } from '../../platform/http/idempotency.js';
import { Documents } from './documents.js';
import { collectionFetcher } from './fetch.js';
import type { RegistryContext } from './http/context.js';
import { registerDirectoryRoutes } from './http/directory-routes.js';
import { registerNamespaceRoutes } from './http/namespace-routes.js';
import { registerRecallRoutes } from './http/recall-routes.js';
import { registerRegistryRoutes } from './http/registry-routes.js';
import { issueToken, NamespaceProver } from './proof/namespaces.js';
import type { OidcOptions } from './proof/oidc.js';
import { openRegistryStore, storeLocation } from './store/open.js';
import type { RegistryStore } from './store/store.js';

/** Bodies of registry requests are small pointers; anything larger is refused with 413. */
export const REGISTRY_BODY_LIMIT = 64 * 1024;

export interface RegistryOptions {
  /** Data directory (created when missing): the signing key, and the SQLite store unless `db` is given. */
  dataDir?: string;
  /** The store: a `postgres://` URL, or a SQLite file; default `registry.db` in `dataDir` (in memory without one). */
  db?: string;
  /** Public base URL; default `http://<host>:<port>` once listening. */
  baseUrl?: string;
  now?: () => Date;
  /** URL prefixes a recipe collection may be fetched from for its semantics check. */
  recipeBases?: readonly string[];
  dnsServers?: readonly string[];
  wellKnownTemplate?: string;
  oidc?: OidcOptions;
  /** Challenge and verify requests per minute per client address (default 30). */
  proofsPerMinute?: number;
  logger?: boolean;
}

export interface Registry {
  app: FastifyInstance;
  ctx: RegistryContext;
  store: RegistryStore;
  /** The admin token, when this start created it (first start); otherwise undefined. */
  adminToken?: string;
  close(): Promise<void>;
}

/** Load the registry's Ed25519 key from the data directory, creating it on first start. */
export function loadOrCreateKey(dataDir: string | undefined, now: Date): KeyFile {
  const fresh = () => {
    const k = generateKeyFile({ kid: 'pending', actor: 'registry', validFrom: now.toISOString().replace(/\.\d{3}Z$/, 'Z') });
    return { ...k, kid: `registry-${sha256Hex(k.publicKey).slice(0, 16)}` };
  };
  if (!dataDir) return fresh();
  const file = join(dataDir, 'registry-key.json');
  if (existsSync(file)) return parseKeyFile(parseJson(readFileSync(file, 'utf8')));
  const key = fresh();
  writeFileSync(file, `${JSON.stringify(key, null, 2)}\n`, { mode: 0o600 });
  return key;
}

/** Open the store named by `db` (or the data directory's SQLite file), applying pending migrations. */
export async function openStore(dataDir: string | undefined, db?: string): Promise<RegistryStore> {
  return (await openRegistryStore(storeLocation({ db, dataDir }))).store;
}

export async function createRegistry(opts: RegistryOptions = {}): Promise<Registry> {
  const now = opts.now ?? (() => new Date());
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  const { store, idempotency } = await openRegistryStore(storeLocation({ db: opts.db, dataDir: opts.dataDir }), () => now().getTime());
  let key: KeyFile;
  try {
    key = loadOrCreateKey(opts.dataDir, now());
  } catch (err) {
    await store.close();
    throw err;
  }
  let base = opts.baseUrl?.replace(/\/+$/, '') ?? 'http://127.0.0.1';
  const prover = new NamespaceProver(store, {
    now,
    ...(opts.dnsServers ? { dnsServers: opts.dnsServers } : {}),
    ...(opts.wellKnownTemplate ? { wellKnownTemplate: opts.wellKnownTemplate } : {}),
    ...(opts.oidc ? { oidc: opts.oidc } : {}),
  });
  const ctx: RegistryContext = {
    store,
    idempotency,
    prover,
    key,
    now,
    get registry() {
      return base;
    },
    documents: undefined as unknown as Documents,
    fetchCollection: collectionFetcher(opts.recipeBases ?? []),
  };
  ctx.documents = new Documents(ctx);
  const app = createHttpApp({ baseUrl: () => base, bodyLimit: REGISTRY_BODY_LIMIT, logger: opts.logger ?? false });
  if (!app.hasRequestDecorator('principal')) app.decorateRequest('principal', null);
  installIdempotency(app, { store: idempotency });
  registerRegistryRoutes(app, ctx);
  registerDirectoryRoutes(app, ctx);
  registerRecallRoutes(app, ctx);
  registerNamespaceRoutes(app, ctx, opts.proofsPerMinute ?? 30);
  app.addHook('onListen', async () => {
    if (opts.baseUrl) return;
    const addr = app.server.address();
    if (addr && typeof addr === 'object') base = `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
  });
  let adminToken: string | undefined;
  if (!(await store.hasAdminToken())) adminToken = (await issueToken(store, [], true, now())).token;
  return {
    app,
    ctx,
    store,
    ...(adminToken ? { adminToken } : {}),
    async close() {
      await app.close();
      await store.close();
    },
  };
}

/** Create the registry and listen; resolves with the address. */
export async function startRegistry(opts: RegistryOptions & { port?: number; host?: string }): Promise<Registry & { url: string }> {
  const reg = await createRegistry(opts);
  await reg.app.listen({ port: opts.port ?? 0, host: opts.host ?? '127.0.0.1' });
  return { ...reg, url: reg.ctx.registry };
}
