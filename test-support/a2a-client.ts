/**
 * A third-party A2A peer for tests: the `@a2a-js/sdk` client, run as its own process. It reads one JSON
 * command a line on stdin and answers one JSON line on stdout per result (a stream answers a line per event,
 * then `{"id", "done": true}`). Every request carries `Authorization: Bearer <token>` through the SDK's
 * `fetchImpl`, card resolution included.
 *
 *   {"id": 1, "op": "card", "url": "...", "token": "..."}                     → {"id", "card"}
 *   {"id": 2, "op": "send", "url", "token", "data"?: {...}, "text"?: "...", "taskId"?}  → {"id", "task"|"message"}
 *   {"id": 3, "op": "stream", "url", "token", "data", "taskId"?}              → {"id", "event"}… {"id", "done"}
 *   {"id": 4, "op": "get" | "cancel", "url", "token", "taskId"}               → {"id", "task"}
 * A failure answers {"id", "error": message}.
 */
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { AgentCard, Message, StreamResponse, Task } from '@a2a-js/sdk';
import { type Client, ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';

interface Command {
  id: number;
  op: 'card' | 'send' | 'stream' | 'get' | 'cancel';
  url: string;
  token: string;
  data?: Record<string, unknown>;
  text?: string;
  taskId?: string;
}

const out = (line: unknown): void => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
};

function authFetch(token: string): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

async function client(c: Command): Promise<Client> {
  const fetchImpl = authFetch(c.token);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  return factory.createFromUrl(c.url);
}

function request(c: Command) {
  const parts = [...(c.data ? [{ data: c.data }] : []), ...(c.text !== undefined ? [{ text: c.text }] : [])];
  const message = Message.fromJSON({ messageId: randomUUID(), role: 'ROLE_USER', parts, ...(c.taskId ? { taskId: c.taskId } : {}) });
  return { tenant: '', message, configuration: undefined, metadata: undefined };
}

async function run(c: Command): Promise<void> {
  if (c.op === 'card') {
    const card = await new DefaultAgentCardResolver({ fetchImpl: authFetch(c.token) }).resolve(c.url);
    return out({ id: c.id, card: AgentCard.toJSON(card) });
  }
  const a2a = await client(c);
  if (c.op === 'send') {
    const r = await a2a.sendMessage(request(c));
    return out('status' in r ? { id: c.id, task: Task.toJSON(r) } : { id: c.id, message: Message.toJSON(r) });
  }
  if (c.op === 'stream') {
    for await (const ev of a2a.sendMessageStream(request(c))) out({ id: c.id, event: StreamResponse.toJSON(ev) });
    return out({ id: c.id, done: true });
  }
  const task =
    c.op === 'get'
      ? await a2a.getTask({ tenant: '', id: c.taskId ?? '' })
      : await a2a.cancelTask({ tenant: '', id: c.taskId ?? '', metadata: undefined });
  return out({ id: c.id, task: Task.toJSON(task) });
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  let c: Command;
  try {
    c = JSON.parse(line) as Command;
  } catch {
    return out({ id: null, error: 'not JSON' });
  }
  run(c).catch((err: unknown) => out({ id: c.id, error: err instanceof Error ? err.message : String(err) }));
});
