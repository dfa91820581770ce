/**
 * A POST to a destination a token holder chose, through the outbound guard (outbound.ts): an IP-literal host is
 * checked before connecting; a name is resolved by the guard's `lookup`, every address checked, and the socket
 * connects to a checked address (no DNS-rebinding window between the check and the connect; TLS still names the
 * host for SNI and the certificate). Redirects are never followed: a 3xx is the receiver's answer, like any other
 * non-2xx. The answer's body is read and dropped.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { OutboundGuard } from './outbound.js';

export interface OutboundInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Ignored by the guarded client: it never follows a redirect. */
  redirect?: 'manual' | 'follow' | 'error';
  signal?: AbortSignal;
}

/** What the webhook outbox and the A2A push sender call; global `fetch` fits it too (tests inject one). */
export type OutboundFetch = (url: string, init: OutboundInit) => Promise<Response>;

/** A fetch through `guard`: checked addresses only, no redirects followed. */
export function guardedFetch(guard: OutboundGuard): OutboundFetch {
  return async (url, init) => {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`${u.protocol} is not http or https`);
    const host = u.hostname.replace(/^\[|\]$/g, '');
    // A literal address is connected to without a lookup: check it here.
    if (isIP(host) !== 0) await guard.addresses(host);
    const request = u.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Response>((resolve, reject) => {
      const req = request(
        u,
        {
          method: init.method ?? 'GET',
          headers: init.headers ?? {},
          lookup: guard.lookup as never, // node's overloaded LookupFunction type; guard.lookup implements both forms
          agent: false,
          ...(init.signal ? { signal: init.signal } : {}),
        },
        (res) => {
          res.resume();
          res.on('error', reject);
          res.on('end', () => {
            try {
              resolve(new Response(null, { status: res.statusCode ?? 0, statusText: res.statusMessage ?? '' }));
            } catch (err) {
              reject(err);
            }
          });
        },
      );
      req.on('error', reject);
      req.end(init.body);
    });
  };
}
