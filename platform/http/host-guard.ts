/**
 * DNS-rebinding protection for every HTTP and WebSocket route, as the MCP SDK's `hostHeaderValidation` and
 * `originValidation` do for one route: the `Host` header's name must be one the server answers to, and an
 * `Origin` header, when a browser sends one, must name such a host too. Names are compared without the port
 * (an attacker controls the name a page resolves, not the port it talks to), case-insensitively, IPv6
 * addresses in brackets.
 *
 * - no `Host`, or one that is not a host[:port]: 400 `bad-request` (never a 500 further down);
 * - a `Host` not on the list: 403 `host-not-allowed`;
 * - an `Origin` that is `null`, malformed or names a host not on the list: 403 `origin-not-allowed`.
 *
 * The list is the configured names plus, by default, the localhost names, this machine's host name (and
 * `NAME.local`) and the addresses of its network interfaces, read afresh at most every 10 s (DHCP moves them).
 * An entry `*` turns the check off (behind a reverse proxy that checks names itself).
 */
import { networkInterfaces, hostname as osHostname } from 'node:os';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ProblemError } from './problems.js';

export const LOCALHOST_NAMES = ['localhost', '127.0.0.1', '[::1]'];

export interface HostGuardOptions {
  /** Extra host names or addresses the server answers to (config key `allowedHosts`). */
  allowedHosts?: readonly string[];
  /** Add the localhost names, the machine's names and its interface addresses (default true). */
  machineNames?: boolean;
  /** Injectable for tests: the machine's names and addresses (default: `os`). */
  machine?: () => string[];
}

/** `[::1]`, `example.com`, `10.0.0.2`: lower case, IPv6 in brackets, no port. */
export function normalizeHostName(name: string): string {
  const n = name.trim().toLowerCase().replace(/\.$/, '');
  return n.includes(':') && !n.startsWith('[') ? `[${n}]` : n;
}

/**
 * Recent `Host` values and what they name (null: malformed). Clients send the same few values on every request
 * and the URL parser is the dearest step of the check; the answer depends on the value alone. Bounded: a
 * client sending many values only turns it over.
 */
const parsedHosts = new Map<string, string | null>();
export const PARSED_HOSTS_SIZE = 64;

/** How many parsed `Host` values are kept now (at most PARSED_HOSTS_SIZE). */
export const parsedHostsKept = (): number => parsedHosts.size;

/** The host name of a `Host` header value (`name[:port]`, `[v6][:port]`), or undefined when malformed. */
export function hostOfHeader(value: string | undefined): string | undefined {
  if (value === undefined || value.length === 0 || value.length > 300) return undefined;
  const known = parsedHosts.get(value);
  if (known !== undefined) return known ?? undefined;
  const host = parseHost(value);
  if (parsedHosts.size >= PARSED_HOSTS_SIZE) parsedHosts.delete(parsedHosts.keys().next().value as string);
  parsedHosts.set(value, host ?? null);
  return host;
}

function parseHost(value: string): string | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._~%!$&'()*+,;=-]+)(?::(\d{1,5}))?$/.exec(value);
  if (!m) return undefined;
  if (m[2] !== undefined && Number(m[2]) > 65535) return undefined;
  try {
    // The URL parser is the judge of what a browser would resolve (IDNA, percent-decoding, IPv4 forms).
    return normalizeHostName(new URL(`http://${m[1]}`).hostname);
  } catch {
    return undefined;
  }
}

/** This machine's names and addresses, as a browser on the LAN would write them in a URL. */
export function machineNames(): string[] {
  const out = new Set<string>();
  const name = osHostname().toLowerCase();
  if (name) {
    out.add(name);
    out.add(`${name.split('.')[0]}.local`);
  }
  for (const list of Object.values(networkInterfaces())) {
    for (const addr of list ?? []) out.add(normalizeHostName(addr.address.split('%')[0] ?? addr.address));
  }
  return [...out];
}

export class HostAllowList {
  private readonly fixed: Set<string>;
  private readonly any: boolean;
  private machineCache: { at: number; names: Set<string> } | undefined;

  constructor(private readonly opts: HostGuardOptions = {}) {
    const extra = (opts.allowedHosts ?? []).map(normalizeHostName);
    this.any = extra.includes('*');
    this.fixed = new Set([...(opts.machineNames === false ? [] : LOCALHOST_NAMES), ...extra]);
  }

  allows(host: string): boolean {
    if (this.any || this.fixed.has(host)) return true;
    if (this.opts.machineNames === false) return false;
    const now = Date.now();
    if (!this.machineCache || now - this.machineCache.at > 10_000) {
      this.machineCache = { at: now, names: new Set((this.opts.machine ?? machineNames)().map(normalizeHostName)) };
    }
    return this.machineCache.names.has(host);
  }

  /** Throw the refusal for a request whose Host or Origin is not allowed. */
  check(headers: FastifyRequest['headers']): void {
    const rawHost = headers.host;
    const host = hostOfHeader(typeof rawHost === 'string' ? rawHost : undefined);
    if (host === undefined) throw new ProblemError('bad-request', 'the Host header is missing or malformed');
    if (!this.allows(host))
      throw new ProblemError('host-not-allowed', `this server does not answer to the host name ${JSON.stringify(host)}`);
    const origin = headers.origin;
    if (origin === undefined) return;
    let originHost: string | undefined;
    try {
      const url = new URL(String(origin));
      if (url.protocol === 'http:' || url.protocol === 'https:') originHost = normalizeHostName(url.hostname);
    } catch {
      originHost = undefined;
    }
    if (originHost === undefined || !this.allows(originHost))
      throw new ProblemError('origin-not-allowed', `requests from the origin ${JSON.stringify(String(origin).slice(0, 100))} are refused`);
  }
}

/** Marks a preValidation check that must run before the bearer check on WebSocket routes (see auth.ts). */
export const RUNS_FIRST = Symbol.for('hearth.runsFirst');

/**
 * Check Host and Origin on every request: in `onRequest` (install this before the bearer check so a foreign
 * page learns nothing else), and in `preValidation` on `@fastify/websocket` routes registered after this call
 * and on routes that forward upgrades (`config.forwardsUpgrade`): a refusal thrown in `onRequest` would leave
 * the upgrade request open.
 */
export function installHostGuard(app: FastifyInstance, opts: HostGuardOptions = {}): HostAllowList {
  const list = new HostAllowList(opts);
  const check = Object.assign(async (req: FastifyRequest) => list.check(req.headers), { [RUNS_FIRST]: true });
  app.addHook('onRoute', (route) => {
    const ws = route as { websocket?: boolean; wsHandler?: unknown };
    if (!(ws.websocket || ws.wsHandler || route.config?.forwardsUpgrade)) return;
    route.config = { ...route.config, hostCheck: 'preValidation' };
    const own = route.preValidation;
    route.preValidation = own === undefined ? [check] : [check, ...(Array.isArray(own) ? own : [own])];
  });
  // A callback hook: a thrown refusal takes fastify's error path as a rejection would, without a promise per request.
  app.addHook('onRequest', (req, _reply, done) => {
    if (req.routeOptions.config?.hostCheck !== 'preValidation') list.check(req.headers);
    done();
  });
  return list;
}
