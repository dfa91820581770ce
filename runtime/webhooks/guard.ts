/**
 * The hub's outbound guard for webhook deliveries and A2A push notifications (platform/net/outbound.ts): the
 * operator's allow-list (`webhooks.allow`, `--webhooks-allow`) and the addresses the hub listens on.
 */

import { ProblemError } from '../../platform/http/problems.js';
import { listeningAddresses, OutboundGuard, OutboundRefused } from '../../platform/net/outbound.js';
import type { HearthConfig } from '../config/config.js';

export function hubOutboundGuard(config: Pick<HearthConfig, 'host' | 'webhooks'>): OutboundGuard {
  return new OutboundGuard({ allow: config.webhooks?.allow ?? [], ownAddresses: listeningAddresses(config.host) });
}

/** The registration check as an HTTP answer: 422 `destination-not-allowed` naming the address and its class. */
export async function checkDestination(guard: OutboundGuard, url: string, pointer = '/url'): Promise<void> {
  try {
    await guard.checkUrl(url);
  } catch (err) {
    if (!(err instanceof OutboundRefused)) throw err;
    throw new ProblemError('destination-not-allowed', err.message, {
      host: err.host,
      address: err.address,
      addressClass: err.addressClass,
      errors: [{ in: 'body', pointer, message: `resolves to ${err.address}, ${err.addressClass}` }],
    });
  }
}
