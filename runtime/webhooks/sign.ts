/**
 * Signing a webhook delivery. Two independent signatures over the same raw body:
 * - `X-Svc-Signature: sha256=<hex HMAC-SHA256 of the raw body, keyed with the subscription secret>` (the spec's);
 * - the Standard Webhooks headers `webhook-id` (the CloudEvent id, the same on every retry), `webhook-timestamp`
 *   (seconds, per attempt) and `webhook-signature` (`v1,<base64 HMAC of "{id}.{timestamp}.{body}">`), keyed with the
 *   secret's UTF-8 bytes, which lets a receiver refuse replays of old deliveries. A Standard Webhooks library takes
 *   that key as `whsec_` + base64(secret): see `standardWebhooksSecret`.
 */
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { CLOUDEVENTS_CONTENT_TYPE } from '../events/cloudevent.js';

export function svcSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** The secret in the form Standard Webhooks libraries take (`whsec_` + base64 of its bytes). */
export function standardWebhooksSecret(secret: string): string {
  return `whsec_${Buffer.from(secret, 'utf8').toString('base64')}`;
}

export function deliveryHeaders(secret: string, eventId: string, body: string, at: Date): Record<string, string> {
  const wh = new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' });
  return {
    'content-type': `${CLOUDEVENTS_CONTENT_TYPE}; charset=utf-8`,
    'x-svc-signature': svcSignature(secret, body),
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': wh.sign(eventId, at, body),
    'user-agent': 'hearth-webhooks/1',
  };
}
