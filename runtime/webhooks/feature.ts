/**
 * Webhooks as a feature of the hub process: the subscription routes, and an outbox fed by every hub event.
 * A safety event also always goes on the local bus (the MQTT bridge is a sink of the same hub): a webhook is never
 * the only path for it.
 */
import type { FastifyInstance } from 'fastify';
import type { RevocationWatch } from '../../platform/http/revocation.js';
import type { EventHub } from '../events/hub.js';
import { type OutboxOptions, WebhookOutbox } from './outbox.js';
import { installSubscriptionRoutes } from './routes.js';
import { WebhookStore } from './store.js';

export class WebhooksFeature {
  readonly store: WebhookStore;
  readonly outbox: WebhookOutbox;
  private off: (() => void) | undefined;
  private pruner: NodeJS.Timeout | undefined;
  private offRevoke: (() => void) | undefined;

  constructor(
    private readonly o: {
      hub: EventHub;
      db: WebhookStore['db'];
      http?: FastifyInstance;
      /** Stop a token's webhooks as soon as it is revoked. */
      revocations?: RevocationWatch;
      /** Subscriptions one token may hold (default 20). */
      maxSubscriptionsPerToken?: number;
    } & Omit<OutboxOptions, 'store'>,
  ) {
    this.store = new WebhookStore(o.db, o.now);
    const revocations = o.revocations;
    this.outbox = new WebhookOutbox({
      ...o,
      store: this.store,
      ...(revocations ? { ownerActive: (owner: string) => !revocations.isRevoked(owner) } : {}),
    });
    if (o.http)
      installSubscriptionRoutes(o.http, {
        store: this.store,
        ...(o.guard ? { guard: o.guard } : {}),
        ...(o.maxSubscriptionsPerToken !== undefined ? { maxPerToken: o.maxSubscriptionsPerToken } : {}),
      });
  }

  start(): void {
    this.off = this.o.hub.addSink((ev) => {
      if (ev.category === 'telemetry') return; // sensor samples stay on the local bus, SSE and WebSocket
      this.outbox.enqueue(ev.ce, ev.body);
    });
    this.offRevoke = this.o.revocations?.onRevoke((ids) => {
      const n = this.store.dropPendingOf(ids, 'the subscription’s token was revoked');
      if (n > 0) this.o.log?.('info', 'webhook deliveries dropped: token revoked', { deliveries: n });
    });
    this.outbox.start();
    this.pruner = setInterval(() => this.store.prune(7 * 86_400_000), 3_600_000);
    this.pruner.unref();
  }

  async stop(): Promise<void> {
    this.off?.();
    this.off = undefined;
    this.offRevoke?.();
    this.offRevoke = undefined;
    if (this.pruner) clearInterval(this.pruner);
    await this.outbox.stop();
  }
}
