/**
 * `hearth pair approve|reject|list`: a person decides on pairing requests, either in the store of the data
 * directory (on the hub itself) or through a running hub's admin routes (`--hub URL --token T`, a person's
 * admin token).
 */
import { type PrincipalKind, TokenStore, tokensMigration } from '../../platform/http/auth.js';
import { withCliDatabase } from '../cli/database.js';
import { CliError } from '../cli/errors.js';
import { SCOPES } from '../hub/types.js';
import { PairingError, PairingStore, type PairRequest, pairingKeyMigration, pairingMigration } from './store.js';

export interface PairCliOptions {
  dataDir?: string;
  hub?: string;
  token?: string;
  scopes?: string;
  kind?: string;
  json?: boolean;
}

function withStore<T>(dataDir: string | undefined, fn: (s: PairingStore) => T): T {
  return withCliDatabase(dataDir, [tokensMigration, pairingMigration, pairingKeyMigration], (db) => {
    try {
      return fn(new PairingStore(db, new TokenStore(db), Date.now, SCOPES));
    } catch (err) {
      if (err instanceof PairingError) throw new CliError(err.message);
      throw err;
    }
  });
}

async function callHub(o: PairCliOptions, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  if (!o.token) throw new CliError('--hub needs --token (a person’s token with the admin scope)');
  let url: URL;
  try {
    url = new URL(path, o.hub);
  } catch {
    throw new CliError(`--hub ${JSON.stringify(o.hub)} is not a URL`);
  }
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${o.token}`,
        ...(method === 'POST'
          ? { 'content-type': 'application/json', 'idempotency-key': `pair-cli-${Date.now()}-${Math.random().toString(36).slice(2)}` }
          : {}),
      },
      ...(method === 'POST' ? { body: JSON.stringify(body ?? {}) } : {}),
    });
  } catch (err) {
    throw new CliError(`cannot reach ${url.origin}: ${(err as Error).message}`);
  }
  const doc = (await res.json().catch(() => ({}))) as { detail?: string; title?: string };
  if (!res.ok) throw new CliError(`${res.status} ${doc.title ?? ''}: ${doc.detail ?? ''}`.trim());
  return doc;
}

function options(o: PairCliOptions): { scopes?: string[]; kind?: PrincipalKind } {
  const out: { scopes?: string[]; kind?: PrincipalKind } = {};
  if (o.kind !== undefined) {
    if (o.kind !== 'human' && o.kind !== 'agent') throw new CliError(`--kind must be human or agent, not ${JSON.stringify(o.kind)}`);
    out.kind = o.kind;
  }
  if (o.scopes !== undefined) {
    const scopes = o.scopes
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    const bad = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
    if (scopes.length === 0 || bad.length > 0)
      throw new CliError(`--scopes must list known scopes (${SCOPES.join(', ')})${bad.length ? `; unknown: ${bad.join(', ')}` : ''}`);
    out.scopes = scopes;
  }
  return out;
}

function print(o: PairCliOptions, r: PairRequest): void {
  if (o.json) process.stdout.write(`${JSON.stringify(r)}\n`);
  else {
    const scopes = (r.grantedScopes ?? r.scopes).join(',');
    const key = r.principalKey ? ` with principal key ${r.principalKey.kid}` : '';
    process.stdout.write(`${r.userCode} ${r.state}: ${r.name} (${r.grantedKind ?? r.kind}) scopes ${scopes}${key}\n`);
  }
}

export async function decide(action: 'approve' | 'reject', code: string, o: PairCliOptions): Promise<void> {
  if (!/^[A-Za-z]{4}[- ]?[A-Za-z]{4}$/.test(code.trim()))
    throw new CliError(`${JSON.stringify(code)} is not a pairing code (8 letters, e.g. BCDF-GHJK)`);
  const opts = action === 'approve' ? options(o) : {};
  const by = `${process.env.USER ?? 'a person'} at the hub`;
  const r = o.hub
    ? ((await callHub(o, 'POST', `/svc/v1/pair/requests/${encodeURIComponent(code.trim())}/${action}`, opts)) as PairRequest)
    : withStore(o.dataDir, (s) => (action === 'approve' ? s.approve(code, by, opts) : s.reject(code, by)));
  print(o, r);
}

export async function listRequests(o: PairCliOptions): Promise<void> {
  const items = o.hub
    ? ((await callHub(o, 'GET', '/svc/v1/pair/requests')) as { items: PairRequest[] }).items
    : withStore(o.dataDir, (s) => s.list());
  if (o.json) {
    process.stdout.write(`${JSON.stringify(items)}\n`);
    return;
  }
  if (items.length === 0) process.stdout.write('no pairing requests\n');
  for (const r of items) print(o, r);
}
