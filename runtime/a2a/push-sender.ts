/**
 * A2A push notifications sent through the hub's outbound guard (platform/net/outbound.ts), in place of the SDK's
 * `DefaultPushNotificationSender`, which calls the global `fetch` with whatever URL a config names and follows
 * redirects. Here each POST resolves the URL's host afresh, checks every address, connects to a checked one and
 * follows no redirect; a refused destination is logged and not sent. The body and headers are the SDK's: the
 * A2A 1.0 StreamResponse JSON (`V1PushNotificationSerializer`), `Authorization` from the config's
 * authentication, else its token in `X-A2A-Notification-Token`. Updates of one task go out in order.
 */
import type { StreamResponse, Task, TaskPushNotificationConfig } from '@a2a-js/sdk';
import {
  type PushNotificationSender,
  type PushNotificationStore,
  type ServerCallContext,
  V1PushNotificationSerializer,
} from '@a2a-js/sdk/server';
import type { OutboundGuard } from '../../platform/net/outbound.js';
import { guardedFetch, type OutboundFetch } from '../../platform/net/outbound-fetch.js';

export const PUSH_TIMEOUT_MS = 5000;

function taskIdOf(r: StreamResponse): string {
  const p = r.payload;
  if (!p) return '';
  return p.$case === 'task' ? p.value.id : p.value.taskId;
}

function authHeaders(c: TaskPushNotificationConfig): Record<string, string> {
  if (c.authentication?.scheme && c.authentication.credentials)
    return { authorization: `${c.authentication.scheme} ${c.authentication.credentials}` };
  return c.token ? { 'x-a2a-notification-token': c.token } : {};
}

export class GuardedPushSender implements PushNotificationSender {
  private readonly chain = new Map<string, Promise<void>>();
  private readonly serializer = new V1PushNotificationSerializer();
  private readonly post: OutboundFetch;

  constructor(
    private readonly store: PushNotificationStore,
    guard: OutboundGuard,
    private readonly log: (msg: string, detail: Record<string, unknown>) => void = () => {},
    post?: OutboundFetch,
  ) {
    this.post = post ?? guardedFetch(guard);
  }

  async send(streamResponse: StreamResponse, context: ServerCallContext, task?: Task): Promise<void> {
    const taskId = taskIdOf(streamResponse);
    if (!taskId) return;
    const configs = await this.store.load(taskId, context);
    if (configs.length === 0) return;
    const { body, contentType } = this.serializer.serialize(streamResponse, task);
    const previous = this.chain.get(taskId) ?? Promise.resolve();
    const next = previous.then(() =>
      Promise.all(
        configs.map(async (c) => {
          try {
            const res = await this.post(c.url, {
              method: 'POST',
              headers: { 'content-type': contentType, ...authHeaders(c) },
              body,
              signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
            });
            if (res.status < 200 || res.status > 299) this.log('A2A push not accepted', { task: taskId, url: c.url, status: res.status });
          } catch (err) {
            this.log('A2A push not sent', { task: taskId, url: c.url, error: (err as Error).message });
          }
        }),
      ).then(() => undefined),
    );
    this.chain.set(taskId, next);
    await next;
    if (this.chain.get(taskId) === next) this.chain.delete(taskId);
  }
}
