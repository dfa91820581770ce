/**
 * The A2A endpoint's task and push-notification stores: the SDK's in-memory ones, scoped by token (one token
 * never sees another's tasks), with caps so a token cannot grow the hub's memory without end, and push URLs
 * checked as webhook URLs are (absolute http(s), no credentials, not inside the machine or its link).
 */

import type { ListTasksRequest, ListTasksResponse, Task, TaskPushNotificationConfig } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import {
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type PushNotificationStore,
  type ServerCallContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import { OutboundGuard, OutboundRefused } from '../../platform/net/outbound.js';

/** Tasks kept per token; the oldest are forgotten first (their hub sessions and tasks stay on the hub). */
export const MAX_A2A_TASKS_PER_TOKEN = 200;
/** Push-notification configs per task. */
export const MAX_PUSH_CONFIGS_PER_TASK = 4;

const owner = (context: ServerCallContext): string => context.user?.userName || 'unknown';

/** Tasks per token in insertion order, at most `max` each; `list` runs the SDK's own filter and paging. */
export class BoundedTaskStore implements TaskStore {
  private readonly byOwner = new Map<string, Map<string, Task>>();

  constructor(private readonly max = MAX_A2A_TASKS_PER_TOKEN) {}

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const key = owner(context);
    let tasks = this.byOwner.get(key);
    if (!tasks) {
      tasks = new Map();
      this.byOwner.set(key, tasks);
    }
    tasks.delete(task.id);
    tasks.set(task.id, structuredClone(task));
    while (tasks.size > this.max) {
      const oldest = tasks.keys().next().value;
      if (oldest === undefined) break;
      tasks.delete(oldest);
    }
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const t = this.byOwner.get(owner(context))?.get(taskId);
    return t ? structuredClone(t) : undefined;
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const view = new InMemoryTaskStore(owner);
    for (const t of this.byOwner.get(owner(context))?.values() ?? []) await view.save(t, context);
    return view.list(params, context);
  }

  /** Tasks held in all (memory checks). */
  get size(): number {
    let n = 0;
    for (const m of this.byOwner.values()) n += m.size;
    return n;
  }
}

/** Refuse a push URL a webhook would refuse: not absolute http(s), or carrying credentials. */
export function checkPushUrl(raw: string): void {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new RequestMalformedError('the push notification url must be an absolute http(s) URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new RequestMalformedError('the push notification url must be http or https');
  if (u.username !== '' || u.password !== '') throw new RequestMalformedError('the push notification url must not carry credentials');
}

/**
 * The SDK's in-memory push store behind URL checks, the outbound guard (a URL inside the machine or its link is
 * refused, naming the address and its class, unless the operator's allow-list opens it) and a per-task cap.
 */
export class CheckedPushStore implements PushNotificationStore {
  private readonly inner = new InMemoryPushNotificationStore(owner);

  constructor(private readonly guard: OutboundGuard = new OutboundGuard()) {}

  async save(taskId: string, context: ServerCallContext, config: TaskPushNotificationConfig): Promise<void> {
    checkPushUrl(config.url);
    try {
      await this.guard.checkUrl(config.url);
    } catch (err) {
      if (err instanceof OutboundRefused) throw new RequestMalformedError(`the push notification url is not allowed: ${err.message}`);
      throw err;
    }
    const existing = await this.inner.load(taskId, context);
    const replacing = existing.some((c) => c.id === config.id);
    if (!replacing && existing.length >= MAX_PUSH_CONFIGS_PER_TASK)
      throw new RequestMalformedError(`a task takes at most ${MAX_PUSH_CONFIGS_PER_TASK} push notification configs`);
    await this.inner.save(taskId, context, config);
  }

  load(taskId: string, context: ServerCallContext): Promise<TaskPushNotificationConfig[]> {
    return this.inner.load(taskId, context);
  }

  loadWithMetadata(taskId: string, context: ServerCallContext) {
    return this.inner.loadWithMetadata(taskId, context);
  }

  delete(taskId: string, context: ServerCallContext, configId?: string): Promise<void> {
    return this.inner.delete(taskId, context, configId);
  }
}
