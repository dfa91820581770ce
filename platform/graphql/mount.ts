/**
 * A GraphQL endpoint served by mercurius, loaded on first use. mercurius and graphql-js cost several hundred
 * milliseconds of CPU to import on a Raspberry-Pi-class device, so a surface registers only this thin route at
 * start-up; the first request builds an inner Fastify instance with mercurius (never listening) and every
 * request is handed to it:
 *
 * - HTTP (GET and POST): through `inject`, in-process, with a one-time key naming what `admit` returned for the
 *   request (the caller's principal, say), which the inner context reads with `callData`.
 * - WebSocket (GET with `Upgrade: websocket`, graphql-ws): the upgrade request, after the outer hooks (Host and
 *   Origin guard, bearer token) have passed, is handed to the inner instance's own `@fastify/websocket`, which
 *   upgrades it on mercurius' subscription route. `callData` reads what `admit` returned for it too.
 *
 * Refusals from `admit` are the outer surface's own errors (problem documents, 401 with a challenge).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '../http/problems.js';

/** The header that carries the one-time key of a forwarded HTTP request (set here, never taken from a client). */
const CALL_HEADER = 'x-hearth-graphql-call';
/** Headers of the outer request that the inner instance sees. */
const FORWARDED = ['content-type', 'accept', 'content-length'] as const;

export type CallData = (req: FastifyRequest | { raw: IncomingMessage; headers: FastifyRequest['headers'] }) => unknown;

export interface LazyGraphqlOptions {
  /** The route (e.g. `/svc/v1/graphql`); mercurius is registered at the same path on the inner instance. */
  path: string;
  /** Build the inner instance (mercurius registered at `path`, not listening). Called once, on first use. */
  build(callData: CallData): Promise<FastifyInstance>;
  /** Check one request before it is forwarded (throw a ProblemError to refuse); what it returns reaches `callData`. */
  admit(req: FastifyRequest, kind: 'http' | 'websocket'): unknown;
  /** Serve subscriptions over WebSocket (default false). */
  websocket?: boolean;
  /**
   * While the inner instance is not built yet, answer a POST without it (the body parsed, `admit`'s value): a
   * GraphQL response, or undefined to load GraphQL and forward as usual (the hub's emergency stop).
   */
  direct?(body: unknown, data: unknown): Promise<object | undefined>;
}

export interface LazyGraphql {
  /** The inner instance, once built (tests, benchmarks). */
  loaded(): Promise<FastifyInstance> | undefined;
  close(): Promise<void>;
}

/** Yield to the event loop between import stages (the supervisor's watchdog must not see one long block). */
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Import the GraphQL libraries in stages, each awaited, before a surface's builder needs them. */
export async function preloadGraphql(): Promise<void> {
  await import('graphql');
  await breathe();
  await import('mercurius');
  await breathe();
}

/** The `head` @fastify/websocket kept for an upgrade request (almost always empty). */
function headOf(raw: IncomingMessage): Buffer {
  const own = raw as unknown as Record<symbol, unknown>;
  const key = Object.getOwnPropertySymbols(raw).find((s) => s.description === 'ws-head');
  const head = key ? own[key] : undefined;
  return Buffer.isBuffer(head) ? head : Buffer.alloc(0);
}

export function mountLazyGraphql(http: FastifyInstance, o: LazyGraphqlOptions): LazyGraphql {
  const pending = new Map<string, unknown>();
  const upgrades = new WeakMap<IncomingMessage, unknown>();
  const callData: CallData = (req) => {
    const key = req.headers[CALL_HEADER];
    if (typeof key === 'string' && pending.has(key)) return pending.get(key);
    return upgrades.get(req.raw);
  };
  let loading: Promise<FastifyInstance> | undefined;
  let built = false;
  const inner = (): Promise<FastifyInstance> => {
    if (!loading) {
      loading = (async () => {
        await preloadGraphql();
        const app = await o.build(callData);
        await app.ready();
        built = true;
        return app;
      })();
      // A failed build is retried by the next request rather than remembered.
      loading.catch(() => {
        loading = undefined;
      });
    }
    return loading;
  };

  const forward = async (req: FastifyRequest, reply: FastifyReply) => {
    const data = o.admit(req, 'http');
    // Not a GraphQL request at all: the surface's own error (a problem document), before GraphQL is loaded.
    if (req.method === 'POST' && (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)))
      throw new ProblemError('bad-request', 'a GraphQL request body is a JSON object: {"query": "…", "variables": {…}}');
    // No query text (persisted queries are off): mercurius would answer its own "Unknown query" error, not a problem.
    const text = req.method === 'POST' ? (req.body as { query?: unknown }).query : (req.query as { query?: unknown } | undefined)?.query;
    if (typeof text !== 'string' || text.trim() === '')
      throw new ProblemError('bad-request', 'a GraphQL request needs its query text: {"query": "{ … }"} in the body, or ?query= on a GET');
    if (!built && o.direct && req.method === 'POST') {
      const answer = await o.direct(req.body, data);
      if (answer !== undefined) return reply.type('application/json; charset=utf-8').send(answer);
    }
    const app = await inner();
    const key = randomUUID();
    pending.set(key, data);
    try {
      const headers: Record<string, string> = { [CALL_HEADER]: key };
      for (const h of FORWARDED) {
        const v = req.headers[h];
        if (typeof v === 'string') headers[h] = v;
      }
      const body = req.body === undefined ? undefined : JSON.stringify(req.body);
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = String(Buffer.byteLength(body));
      }
      const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
      const res = await app.inject({
        method: req.method === 'POST' ? 'POST' : 'GET',
        url: `${o.path}${query}`,
        headers,
        ...(body !== undefined ? { payload: body } : {}),
      });
      const type = res.headers['content-type'];
      if (typeof type === 'string') reply.type(type);
      return reply.code(res.statusCode).send(res.rawPayload);
    } finally {
      pending.delete(key);
    }
  };

  const upgrade = async (req: FastifyRequest, reply: FastifyReply) => {
    const data = o.admit(req, 'websocket');
    const app = await inner();
    const socket = req.raw.socket as Duplex;
    if (socket.destroyed) return;
    reply.hijack();
    // The outer @fastify/websocket gave the request a stand-in response on the socket; the inner one assigns its own.
    reply.raw.detachSocket(req.raw.socket);
    upgrades.set(req.raw, data);
    app.server.emit('upgrade', req.raw, socket, headOf(req.raw));
  };

  const isUpgrade = (req: FastifyRequest) => req.method === 'GET' && String(req.headers.upgrade ?? '').toLowerCase() === 'websocket';
  http.route({
    method: ['GET', 'POST'],
    url: o.path,
    config: { forwardsUpgrade: o.websocket === true },
    // An upgrade is handed on here, after every check (Host/Origin guard, token, handshake) and before the
    // handler: @fastify/websocket wraps every handler and would upgrade (then close) it itself. A reply
    // hijacked in preHandler never reaches the handler.
    preHandler: async (req, reply) => {
      if (o.websocket && isUpgrade(req)) await upgrade(req, reply);
    },
    handler: forward,
  });

  return {
    loaded: () => loading,
    async close() {
      const pendingApp = loading;
      loading = undefined;
      built = false;
      if (pendingApp) await (await pendingApp.catch(() => undefined))?.close();
    },
  };
}

/** Register `@fastify/websocket` on an inner instance (mercurius reuses it), with a small frame limit. */
export async function innerWebsocket(app: FastifyInstance, maxPayload = 64 * 1024): Promise<void> {
  const { default: websocket } = await import('@fastify/websocket');
  await app.register(websocket, { options: { maxPayload } });
}
