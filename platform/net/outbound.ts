/**
 * Where the hub may send a request a token holder aimed (webhook deliveries, A2A push notifications): never, by
 * default, to an address inside the machine or its link (SSRF). Refused address classes:
 *
 * - `loopback` (127.0.0.0/8, ::1): the hub's own API, Node-RED's admin API, the registry;
 * - `link-local` (169.254.0.0/16, fe80::/10): cloud metadata at 169.254.169.254;
 * - `multicast` (224.0.0.0/4, ff00::/8), `broadcast` (255.255.255.255), `reserved` (240.0.0.0/4);
 * - `unspecified` (0.0.0.0/8, ::): "this host" to most stacks;
 * - `private` (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7, fec0::/10): the LAN. A LAN Node-RED or Home
 *   Assistant is a real target, but which LAN hosts the hub talks to is the operator's decision, not the token
 *   holder's: they are opened one by one, or by network, through the allow-list;
 * - `this-hub`: an address the hub itself listens on (all of the machine's interfaces when it binds a wildcard).
 *
 * IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16) IPv6
 * addresses are judged by the IPv4 address they carry. Decimal, octal and hexadecimal IPv4 spellings
 * (2130706433, 0177.0.0.1, 0x7f.1) are normalized by the WHATWG URL parser before anything looks at them.
 *
 * The operator's allow-list (`webhooks.allow`, `hearth start --webhooks-allow`) opens addresses (`192.168.1.20`,
 * `::1`), networks (`10.0.0.0/24`, `fd00::/8`) or names (`nodered.local`: whatever it resolves to), whatever their
 * class: loopback only this way (tests allow `127.0.0.1`).
 */
import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

export type AddressClass = 'loopback' | 'link-local' | 'multicast' | 'broadcast' | 'reserved' | 'unspecified' | 'private' | 'this-hub';

export const CLASS_TEXT: Record<AddressClass, string> = {
  loopback: 'a loopback address',
  'link-local': 'a link-local address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
  unspecified: 'an unspecified address',
  private: 'a private (LAN) address',
  'this-hub': 'an address this hub listens on',
};

const V4: [string, number, AddressClass][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['224.0.0.0', 4, 'multicast'],
  ['255.255.255.255', 32, 'broadcast'],
  ['240.0.0.0', 4, 'reserved'],
  ['10.0.0.0', 8, 'private'],
  ['172.16.0.0', 12, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['100.64.0.0', 10, 'private'],
];
const V6: [string, number, AddressClass][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fe80::', 10, 'link-local'],
  ['ff00::', 8, 'multicast'],
  ['fc00::', 7, 'private'],
  ['fec0::', 10, 'private'],
];

function blockList(rows: [string, number, AddressClass][], family: 'ipv4' | 'ipv6'): [BlockList, AddressClass][] {
  return rows.map(([net, prefix, cls]) => {
    const b = new BlockList();
    b.addSubnet(net, prefix, family);
    return [b, cls];
  });
}
const V4_LISTS = blockList(V4, 'ipv4');
const V6_LISTS = blockList(V6, 'ipv6');

/** The 8 groups of an IPv6 address as numbers (a dotted IPv4 tail counts as two), or null. */
function groups(v6: string): number[] | null {
  let s = v6.toLowerCase().split('%')[0] as string;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (tail) {
    const b = (tail[1] as string).split('.').map(Number);
    s = `${s.slice(0, -(tail[1] as string).length)}${(((b[0] as number) << 8) | (b[1] as number)).toString(16)}:${(((b[2] as number) << 8) | (b[3] as number)).toString(16)}`;
  }
  const [head, rest] = s.split('::');
  const h = head ? head.split(':') : [];
  const r = rest !== undefined && rest !== '' ? rest.split(':') : [];
  const fill = s.includes('::') ? 8 - h.length - r.length : 0;
  const all = [...h, ...Array<string>(fill).fill('0'), ...r].map((x) => Number.parseInt(x, 16));
  return all.length === 8 && all.every((n) => Number.isInteger(n) && n >= 0 && n <= 0xffff) ? all : null;
}

const v4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), or null. */
export function embeddedV4(v6: string): string | null {
  const g = groups(v6);
  if (!g) return null;
  const [a, b, c, d, e, f, hi, lo] = g as [number, number, number, number, number, number, number, number];
  const zeroTo5 = a === 0 && b === 0 && c === 0 && d === 0 && e === 0;
  if (zeroTo5 && f === 0xffff) return v4Of(hi, lo); // ::ffff:a.b.c.d
  if (zeroTo5 && f === 0 && (hi !== 0 || lo > 1)) return v4Of(hi, lo); // ::a.b.c.d (not :: or ::1)
  if (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0) return v4Of(hi, lo); // 64:ff9b::/96
  if (a === 0x2002) return v4Of(b, c); // 6to4
  return null;
}

/** The refused class of an IP address (as `isIP` reads it; brackets allowed), or null for a public address. */
export function classify(address: string): AddressClass | null {
  const ip = address.replace(/^\[|\]$/g, '').split('%')[0] as string;
  const family = isIP(ip);
  if (family === 4) return V4_LISTS.find(([b]) => b.check(ip, 'ipv4'))?.[1] ?? null;
  if (family !== 6) return null;
  const inner = embeddedV4(ip);
  if (inner !== null) return classify(inner);
  return V6_LISTS.find(([b]) => b.check(ip, 'ipv6'))?.[1] ?? null;
}

/** A malformed allow-list entry. */
export class AllowListError extends Error {
  override name = 'AllowListError';
}

/** The operator's allow-list: addresses, networks (CIDR) and host names. */
export class AllowList {
  private readonly nets = new BlockList();
  private readonly names = new Set<string>();
  readonly entries: readonly string[];

  constructor(entries: readonly string[] = []) {
    this.entries = entries;
    for (const raw of entries) {
      const e = raw
        .trim()
        .toLowerCase()
        .replace(/^\[([^\]]*)\]/, '$1');
      const cidr = /^([^/]+)\/(\d{1,3})$/.exec(e);
      const ip = cidr ? (cidr[1] as string) : e;
      const family = isIP(ip);
      if (family !== 0) {
        const bits = cidr ? Number(cidr[2]) : family === 4 ? 32 : 128;
        if (bits > (family === 4 ? 32 : 128)) throw new AllowListError(`${raw}: a /${bits} network is longer than the address`);
        this.nets.addSubnet(ip, bits, family === 4 ? 'ipv4' : 'ipv6');
        // A v4 entry also opens the same address written as IPv4-mapped IPv6 (what a dual-stack resolver returns).
        if (family === 4) this.nets.addSubnet(`::ffff:${ip}`, 96 + bits, 'ipv6');
      } else if (!cidr && /^[a-z0-9]([a-z0-9-]{0,62}\.)*[a-z0-9-]{1,63}\.?$/.test(e) && e.length <= 253) {
        this.names.add(e.replace(/\.$/, ''));
      } else throw new AllowListError(`${raw}: not an address, a network (address/bits) or a host name`);
    }
  }

  hasName(host: string): boolean {
    return this.names.has(host.toLowerCase().replace(/\.$/, ''));
  }

  hasAddress(address: string): boolean {
    const ip = address.replace(/^\[|\]$/g, '').split('%')[0] as string;
    const family = isIP(ip);
    if (family === 0) return false;
    if (this.nets.check(ip, family === 4 ? 'ipv4' : 'ipv6')) return true;
    const inner = family === 6 ? embeddedV4(ip) : null;
    return inner !== null && this.nets.check(inner, 'ipv4');
  }
}

/** A destination refused: which host, which address it is (or resolved to), and its class. */
export class OutboundRefused extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly addressClass: AddressClass,
  ) {
    super(
      `${host === address ? address : `${host} (${address})`} is ${CLASS_TEXT[addressClass]}: refused` +
        ' (the operator opens such destinations with webhooks.allow)',
    );
    this.name = 'OutboundRefused';
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

/** Every address the system resolver gives for `host` (as a connection would see them). */
export const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (err, list) =>
      err ? reject(err) : resolve(list.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))),
    ),
  );

/** The machine's interface addresses (what a wildcard bind listens on). */
export function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((l) => (l ?? []).map((a) => a.address.split('%')[0] as string));
}

export interface OutboundGuardOptions {
  allow?: readonly string[];
  /** The addresses the hub listens on (read at each check: the bind may come later, DHCP moves addresses). */
  ownAddresses?: () => readonly string[];
  resolver?: Resolver;
}

/** Checks a destination URL at registration and every connection's address at delivery. */
export class OutboundGuard {
  readonly allow: AllowList;
  private readonly own: () => readonly string[];
  private readonly resolver: Resolver;

  constructor(o: OutboundGuardOptions = {}) {
    this.allow = new AllowList(o.allow);
    this.own = o.ownAddresses ?? (() => []);
    this.resolver = o.resolver ?? systemResolver;
  }

  /** The refused class of one address `host` resolved to (null: allowed). */
  refusal(host: string, address: string): AddressClass | null {
    if (this.allow.hasName(host) || this.allow.hasAddress(address)) return null;
    const cls = classify(address);
    if (cls !== null) return cls;
    const ip = address.replace(/^\[|\]$/g, '');
    const inner = isIP(ip) === 6 ? embeddedV4(ip) : null;
    const own = this.own();
    return own.includes(ip) || (inner !== null && own.includes(inner)) ? 'this-hub' : null;
  }

  /** Resolve `host` (an IP literal is itself) and check every address; throws OutboundRefused for the first refused one. */
  async addresses(host: string): Promise<ResolvedAddress[]> {
    const bare = host.replace(/^\[|\]$/g, '');
    const family = isIP(bare);
    const list: ResolvedAddress[] = family !== 0 ? [{ address: bare, family: family === 6 ? 6 : 4 }] : await this.resolver(bare);
    for (const a of list) {
      const cls = this.refusal(bare, a.address);
      if (cls !== null) throw new OutboundRefused(bare, a.address, cls);
    }
    return list;
  }

  /**
   * A `lookup` for node:net / node:http: resolves through the guard, so the connection goes to an address that
   * was checked (no window for DNS rebinding between the check and the connect).
   */
  readonly lookup = (
    hostname: string,
    options: { all?: boolean } | number,
    callback: (err: Error | null, address: string | { address: string; family: number }[], family?: number) => void,
  ): void => {
    this.addresses(hostname).then(
      (list) => {
        if (typeof options === 'object' && options.all) callback(null, list);
        else callback(null, list[0]?.address ?? '', list[0]?.family ?? 4);
      },
      (err: Error) => callback(err, ''),
    );
  };

  /**
   * The check at registration: the URL's host as the WHATWG parser reads it (IPv4 spellings normalized), and
   * every address a name resolves to now. A name that does not resolve yet (an mDNS name, the resolver away) is
   * accepted: delivery checks again, and connects only to checked addresses.
   */
  async checkUrl(url: string): Promise<void> {
    const host = new URL(url).hostname;
    try {
      await this.addresses(host);
    } catch (err) {
      if (err instanceof OutboundRefused) throw err;
    }
  }
}

/** The addresses a server bound to `host` listens on: every interface address for a wildcard bind. */
export function listeningAddresses(host: string): () => readonly string[] {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === '0.0.0.0' || bare === '::' || bare === '') return interfaceAddresses;
  return () => [bare];
}
