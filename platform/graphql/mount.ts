/**
 * A GraphQL endpoint loaded on first use. graphql-js costs CPU to import on a Raspberry-Pi-class device, so a
 * surface registers only this thin route at start-up; the first request builds the surface's engine (its schema
 * with resolvers, platform/graphql/http.ts) and every request is served by it:
 *
 * - HTTP (GET and POST): straight through graphql-js (serveGraphqlHttp), with what `admit` returned for the
 *   request (the caller's principal, say) handed to the engine's context.
 * - WebSocket (GET with `Upgrade: websocket`, graphql-ws), when the surface serves subscriptions: the first upgrade
 *   builds an inner Fastify instance with mercurius and its own `@fastify/websocket` on the same engine's schema
 *   (never listening); the upgrade request, after the outer hooks (Host and Origin guard, bearer token) have
 *   passed, is handed to it, and it upgrades it on mercurius' subscription route. `callData` reads what `admit`
 *   returned for it. mercurius and the inner instance are loaded only for subscriptions.
 *
 * Refusals from `admit` are the outer surface's own errors (problem documents, 401 with a challenge).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '../http/problems.js';
import type { GraphqlEngine } from './http.js';

export type CallData = (req: FastifyRequest | { raw: IncomingMessage; headers: FastifyRequest['headers'] }) => unknown;

export interface LazyGraphqlOptions {
  /** The route (e.g. `/svc/v1/graphql`); mercurius is registered at the same path on the inner instance. */
  path: string;
  /** Build the surface's engine (graphql-js is loaded by then). Called once, on first use. */
  engine(): Promise<GraphqlEngine>;
  /**
   * Serve subscriptions over WebSocket: build the inner instance (mercurius registered at `path` on the engine's
   * schema, not listening). Called once, on the first upgrade.
   */
  subscriptions?(engine: GraphqlEngine, callData: CallData): Promise<FastifyInstance>;
  /** Check one request before it is served (throw a ProblemError to refuse); what it returns reaches the engine. */
  admit(req: FastifyRequest, kind: 'http' | 'websocket'): unknown;
  /**
   * While the engine is not built yet, answer a POST without it (the body parsed, `admit`'s value): a GraphQL
   * response, or undefined to load GraphQL and serve it as usual (the hub's emergency stop).
   */
  direct?(body: unknown, data: unknown): Promise<object | undefined>;
}

export interface LazyGraphql {
  /** The engine, once built (tests, benchmarks). */
  loaded(): Promise<GraphqlEngine> | undefined;
  /** The inner instance of subscriptions, once built. */
  subscriptionsLoaded(): Promise<FastifyInstance> | undefined;
  close(): Promise<void>;
}

/** Yield to the event loop between import stages (the supervisor's watchdog must not see one long block). */
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Import graphql-js and the HTTP server of GraphQL, each awaited, before a surface's engine needs them. */
export async function preloadGraphql(): Promise<void> {
  await import('graphql');
  await breathe();
  await import('./http.js');
  await breathe();
}

/** Import what subscriptions need besides (mercurius), in a stage of its own. */
async function preloadSubscriptions(): Promise<void> {
  await import('mercurius');
  await breathe();
}

/** One build, shared by its callers; a failed one is retried by the next request rather than remembered. */
function once<T>(build: () => Promise<T>) {
  let p: Promise<T> | undefined;
  let done = false;
  return {
    get: (): Promise<T> => {
      if (!p) {
        const started = build().then((v) => {
          done = true;
          return v;
        });
        started.catch(() => {
          if (p === started) p = undefined;
        });
        p = started;
      }
      return p;
    },
    peek: () => p,
    built: () => done,
    reset() {
      const was = p;
      p = undefined;
      done = false;
      return was;
    },
  };
}

/** The `head` @fastify/websocket kept for an upgrade request (almost always empty). */
function headOf(raw: IncomingMessage): Buffer {
  const own = raw as unknown as Record<symbol, unknown>;
  const key = Object.getOwnPropertySymbols(raw).find((s) => s.description === 'ws-head');
  const head = key ? own[key] : undefined;
  return Buffer.isBuffer(head) ? head : Buffer.alloc(0);
}

export function mountLazyGraphql(http: FastifyInstance, o: LazyGraphqlOptions): LazyGraphql {
  const upgrades = new WeakMap<IncomingMessage, unknown>();
  const callData: CallData = (req) => upgrades.get(req.raw);
  const engine = once(async () => {
    await preloadGraphql();
    return o.engine();
  });
  const subs = once(async () => {
    const e = await engine.get();
    await preloadSubscriptions();
    const app = await (o.subscriptions as NonNullable<LazyGraphqlOptions['subscriptions']>)(e, callData);
    await app.ready();
    return app;
  });

  const serve = async (req: FastifyRequest, reply: FastifyReply) => {
    const data = o.admit(req, 'http');
    // Not a GraphQL request at all: the surface's own error (a problem document), before GraphQL is loaded.
    if (req.method === 'POST' && (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)))
      throw new ProblemError('bad-request', 'a GraphQL request body is a JSON object: {"query": "…", "variables": {…}}');
    // No query text (persisted queries are off).
    const members = (req.method === 'POST' ? req.body : (req.query ?? {})) as Record<string, unknown>;
    if (typeof members.query !== 'string' || members.query.trim() === '')
      throw new ProblemError('bad-request', 'a GraphQL request needs its query text: {"query": "{ … }"} in the body, or ?query= on a GET');
    if (!engine.built() && o.direct && req.method === 'POST') {
      const answer = await o.direct(req.body, data);
      if (answer !== undefined) return reply.type('application/json; charset=utf-8').send(answer);
    }
    const e = await engine.get();
    const { serveGraphqlHttp } = await import('./http.js');
    const res = await serveGraphqlHttp(e, req.method === 'POST' ? 'POST' : 'GET', members, data);
    // A 405 (a GET that is not a query) names the method that would do (RFC 9110 §15.5.6).
    if (res.status === 405) reply.header('allow', 'POST');
    return reply.code(res.status).type('application/json; charset=utf-8').send(res.body);
  };

  const upgrade = async (req: FastifyRequest, reply: FastifyReply) => {
    const data = o.admit(req, 'websocket');
    const app = await subs.get();
    const socket = req.raw.socket as Duplex;
    if (socket.destroyed) return;
    reply.hijack();
    // The outer @fastify/websocket gave the request a stand-in response on the socket; the inner one assigns its own.
    reply.raw.detachSocket(req.raw.socket);
    upgrades.set(req.raw, data);
    app.server.emit('upgrade', req.raw, socket, headOf(req.raw));
  };

  const websocket = o.subscriptions !== undefined;
  const isUpgrade = (req: FastifyRequest) => req.method === 'GET' && String(req.headers.upgrade ?? '').toLowerCase() === 'websocket';
  http.route({
    method: ['GET', 'POST'],
    url: o.path,
    config: { forwardsUpgrade: websocket },
    // An upgrade is handed on here, after every check (Host/Origin guard, token, handshake) and before the
    // handler: @fastify/websocket wraps every handler and would upgrade (then close) it itself. A reply
    // hijacked in preHandler never reaches the handler.
    preHandler: async (req, reply) => {
      if (websocket && isUpgrade(req)) await upgrade(req, reply);
    },
    handler: serve,
  });

  return {
    loaded: engine.peek,
    subscriptionsLoaded: subs.peek,
    async close() {
      engine.reset();
      const app = subs.reset();
      if (app) await (await app.catch(() => undefined))?.close();
    },
  };
}

/** Register `@fastify/websocket` on an inner instance (mercurius reuses it), with a small frame limit. */
export async function innerWebsocket(app: FastifyInstance, maxPayload = 64 * 1024): Promise<void> {
  const { default: websocket } = await import('@fastify/websocket');
  await app.register(websocket, { options: { maxPayload } });
}
