/**
 * The hub's GraphQL subscriptions, fed straight from the internal event bus (the same events the SSE,
 * WebSocket, MQTT and webhook transports turn into CloudEvents): `taskUpdated(sessionId)`,
 * `sessionUpdated(id)`, `executionUpdated(executionId, sessionId)` and `safetyEvents`. Each subscription holds
 * one place of its token's cap (like the event feeds); over the cap it is refused with `rate-limited`. A
 * subscriber that does not keep up (more than `maxQueue` events waiting) is ended with an error rather than
 * buffered without bound.
 */
import { ProblemError } from '../../platform/http/problems.js';
import { PerTokenLimit } from '../../platform/http/revocation.js';
import type { BusEventName, BusEvents, EventBus } from '../events/bus.js';
import type { Task } from '../hub/types.js';
import { type GraphqlContext, need } from './scopes.js';

/** Subscriptions one token may hold open at once (over every connection), as for the event feeds. */
export const MAX_SUBSCRIPTIONS_PER_TOKEN = 8;
const MAX_QUEUE = 1000;

/** An async iterator of the bus events `pick` maps to a value (undefined: not for this subscriber). */
function follow<K extends BusEventName, T>(
  bus: EventBus,
  name: K,
  pick: (e: BusEvents[K]) => T | undefined,
  release: () => void,
): AsyncIterableIterator<T> {
  const queue: T[] = [];
  let wake: ((r: IteratorResult<T>) => void) | undefined;
  let fail: ((err: unknown) => void) | undefined;
  let done = false;
  let overflow = false;
  const end = () => {
    if (done) return;
    done = true;
    off();
    release();
  };
  const off = bus.on(name, (e) => {
    if (done) return;
    const v = pick(e);
    if (v === undefined) return;
    if (wake) {
      const w = wake;
      wake = undefined;
      fail = undefined;
      w({ value: v, done: false });
      return;
    }
    queue.push(v);
    if (queue.length > MAX_QUEUE) {
      overflow = true;
      end();
    }
  });
  const it: AsyncIterableIterator<T> = {
    next() {
      if (queue.length > 0) return Promise.resolve({ value: queue.shift() as T, done: false });
      if (overflow) return Promise.reject(new ProblemError('rate-limited', 'the subscriber fell too far behind; subscribe again'));
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise<IteratorResult<T>>((resolve, reject) => {
        wake = resolve;
        fail = reject;
      });
    },
    return() {
      end();
      queue.length = 0;
      wake?.({ value: undefined, done: true });
      wake = undefined;
      fail = undefined;
      return Promise.resolve({ value: undefined, done: true });
    },
    throw(err: unknown) {
      end();
      fail?.(err);
      return Promise.reject(err);
    },
    [Symbol.asyncIterator]() {
      return it;
    },
  };
  return it;
}

export function hubSubscriptions(bus: EventBus, maxPerToken = MAX_SUBSCRIPTIONS_PER_TOKEN) {
  const perToken = new PerTokenLimit(maxPerToken);
  const hold = (c: GraphqlContext, field: string): (() => void) => {
    const p = need(c, field);
    const release = perToken.take(p.id);
    if (!release) throw new ProblemError('rate-limited', `this token already holds ${maxPerToken} subscriptions: end one first`);
    return release;
  };
  const same = <T>(v: T) => v;
  return {
    perToken,
    resolvers: {
      taskUpdated: {
        subscribe: (_: unknown, a: { sessionId: string }, c: GraphqlContext) =>
          follow(
            bus,
            'task.updated',
            (e) => (e.sessionId === a.sessionId ? (e.task as unknown as Task) : undefined),
            hold(c, 'Subscription.taskUpdated'),
          ),
        resolve: same,
      },
      sessionUpdated: {
        subscribe: (_: unknown, a: { id: string }, c: GraphqlContext) =>
          follow(bus, 'session.updated', (e) => (e.sessionId === a.id ? e.session : undefined), hold(c, 'Subscription.sessionUpdated')),
        resolve: same,
      },
      executionUpdated: {
        subscribe: (_: unknown, a: { executionId?: string | null; sessionId?: string | null }, c: GraphqlContext) =>
          follow(
            bus,
            'execution.state',
            (e) =>
              (a.executionId == null || e.executionId === a.executionId) && (a.sessionId == null || e.sessionId === a.sessionId)
                ? e
                : undefined,
            hold(c, 'Subscription.executionUpdated'),
          ),
        resolve: same,
      },
      safetyEvents: {
        subscribe: (_: unknown, __: unknown, c: GraphqlContext) => follow(bus, 'safety', (e) => e, hold(c, 'Subscription.safetyEvents')),
        resolve: same,
      },
    },
  };
}
