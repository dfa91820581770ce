/**
 * Which client addresses count as "in the kitchen": loopback and private LAN ranges. The dashboard's e-stop and
 * its read-only feed accept requests without a token only from these addresses (the physical-button equivalent);
 * anything else needs a bearer token. The address is the TCP peer (`req.ip` with no proxy trust): a forwarded
 * header never makes a request local.
 */
import { isIPv4, isIPv6 } from 'node:net';

function v4Local(ip: string): boolean {
  const p = ip.split('.').map(Number);
  const [a = -1, b = -1] = p;
  return (
    a === 127 || // loopback
    a === 10 || // RFC 1918
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 169 && b === 254) // link-local
  );
}

/** True for loopback, RFC 1918, link-local, IPv6 loopback, unique-local (fc00::/7) and link-local (fe80::/10). */
export function isLocalAddress(ip: string | undefined): boolean {
  if (!ip) return false;
  const addr = ip.trim().toLowerCase();
  if (isIPv4(addr)) return v4Local(addr);
  if (!isIPv6(addr)) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(addr);
  if (mapped?.[1]) return v4Local(mapped[1]);
  if (addr === '::1') return true;
  const first = Number.parseInt(addr.split(':')[0] || '0', 16);
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80;
}
