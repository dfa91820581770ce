/**
 * The A2A 1.0 JSON-RPC handler of the hub, built from the SDK's own parts: `DefaultRequestHandler` (message
 * send and stream, get, list and cancel task, resubscribe, push-notification configs) over the hub's executor,
 * a per-token task store and a checked push store, answered by `JsonRpcTransportHandler`. runtime/a2a/mount.ts
 * loads this module on the first authenticated request.
 */
import { type AgentCard, formatSSEEvent } from '@a2a-js/sdk';
import {
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  defaultServerCallContextBuilder,
  JsonRpcTransportHandler,
  validateVersion,
} from '@a2a-js/sdk/server';
import type { Principal } from '../../platform/http/auth.js';
import { OutboundGuard } from '../../platform/net/outbound.js';
import { type ExecutorDeps, HubAgentExecutor, HubUser } from './executor.js';
import { GuardedPushSender } from './push-sender.js';
import { BoundedTaskStore, CheckedPushStore } from './stores.js';

/** The JSON-RPC answer: one response, or a stream of them for message streaming and resubscribe. */
export type A2aAnswer = { kind: 'json'; body: unknown } | { kind: 'stream'; first: string; rest: AsyncGenerator<string, void, undefined> };

export interface A2aHandler {
  handle(body: string, principal: Principal, headers: Record<string, string | string[] | undefined>): Promise<A2aAnswer>;
  close(): void;
}

const rpcError = (id: unknown, error: unknown) => ({
  jsonrpc: '2.0',
  id: id ?? null,
  error: JsonRpcTransportHandler.mapToJSONRPCError(error),
});

function idOf(body: string): unknown {
  try {
    const doc = JSON.parse(body) as { id?: unknown };
    return typeof doc === 'object' && doc !== null ? (doc.id ?? null) : null;
  } catch {
    return null;
  }
}

export function createA2aHandler(d: ExecutorDeps, card: AgentCard, guard = new OutboundGuard()): A2aHandler {
  const executor = new HubAgentExecutor(d);
  const push = new CheckedPushStore(guard);
  const requests = new DefaultRequestHandler(
    card,
    new BoundedTaskStore(),
    executor,
    new DefaultExecutionEventBusManager(),
    push,
    new GuardedPushSender(push, guard, (msg, detail) => d.log?.warn(detail, msg)),
  );
  const transport = new JsonRpcTransportHandler(requests);
  return {
    async handle(body, principal, headers) {
      const header = headers['a2a-version'];
      const context = defaultServerCallContextBuilder({
        extensions: undefined,
        user: new HubUser(principal),
        headers,
        ...(typeof header === 'string' && header !== '' ? { requestedVersion: header } : {}),
      });
      try {
        validateVersion(context.requestedVersion, card, 'JSONRPC');
        const answer = await transport.handle(body, context);
        if (!(Symbol.asyncIterator in (answer as object))) return { kind: 'json', body: answer };
        const it = (answer as AsyncGenerator<unknown, void, undefined>)[Symbol.asyncIterator]();
        // The first event decides: an error before it is a plain JSON-RPC error, not a stream.
        let first: IteratorResult<unknown, void>;
        try {
          first = await it.next();
        } catch (err) {
          return { kind: 'json', body: rpcError(idOf(body), err) };
        }
        const rest = async function* (): AsyncGenerator<string, void, undefined> {
          try {
            for (let r = await it.next(); !r.done; r = await it.next()) yield formatSSEEvent(r.value);
          } catch (err) {
            yield formatSSEEvent(rpcError(idOf(body), err));
          } finally {
            await it.return?.();
          }
        };
        return { kind: 'stream', first: first.done ? '' : formatSSEEvent(first.value), rest: rest() };
      } catch (err) {
        return { kind: 'json', body: rpcError(idOf(body), err) };
      }
    },
    close: () => executor.close(),
  };
}
