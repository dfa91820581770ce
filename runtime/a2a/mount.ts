/**
 * `POST {hub_url}/a2a`: the hub's A2A 1.0 endpoint (JSON-RPC binding; clients send `A2A-Version: 1.0`).
 * Every request needs a paired bearer token (401 problem document otherwise); each skill then checks the
 * token's scopes as REST and MCP do. The Host/Origin guard of the HTTP server applies. HTTP-level errors
 * (no token, too many requests, wrong content type, body too large) are problem documents; anything that
 * reaches JSON-RPC is answered in JSON-RPC (a parse error, an unknown method, a task not found).
 *
 * A token has at most `MAX_A2A_REQUESTS_PER_TOKEN` requests in flight (a stream counts until it ends); a
 * revoked token's open streams are closed. The SDK loads on the first authenticated request.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requirePrincipal } from '../../platform/http/auth.js';
import { ProblemError } from '../../platform/http/problems.js';
import { PerTokenLimit, type RevocationWatch, sharedRevocations } from '../../platform/http/revocation.js';
import type { OutboundGuard } from '../../platform/net/outbound.js';
import type { AppContext } from '../app/context.js';
import { A2A_PATH, hubAgentCard } from '../hub/agent-card.js';
import type { HubMcpDeps } from '../mcp/tools.js';
import { hubOutboundGuard } from '../webhooks/guard.js';
import type { ExecutorDeps } from './executor.js';
import type { A2aHandler } from './server.js';

/** A2A requests (streams included) one token may have open at once. */
export const MAX_A2A_REQUESTS_PER_TOKEN = 4;
/** Largest JSON-RPC body accepted (bytes). */
export const MAX_A2A_BODY = 256 * 1024;

export interface A2aMountOptions {
  deps: ExecutorDeps;
  /** The hub's public URL (the card's interface URL is built from it). */
  baseUrl(): string;
  revocations?: RevocationWatch;
  maxPerToken?: number;
  /** Where push notifications may go (default: public addresses only). */
  guard?: OutboundGuard;
}

export function mountA2a(http: FastifyInstance, o: A2aMountOptions): () => Promise<void> {
  const inFlight = new PerTokenLimit(o.maxPerToken ?? MAX_A2A_REQUESTS_PER_TOKEN);
  const streams = new Map<ServerResponse, string>();
  const offRevoke = o.revocations?.onRevoke((ids) => {
    for (const [res, id] of streams) if (ids.has(id)) res.end();
  });
  let loading: Promise<A2aHandler> | undefined;
  const handler = (): Promise<A2aHandler> => {
    if (!loading) {
      loading = import('./server.js').then((m) => m.createA2aHandler(o.deps, hubAgentCard(o.baseUrl()), o.guard));
      loading.catch(() => {
        loading = undefined;
      });
    }
    return loading;
  };

  const serve = async (req: FastifyRequest, reply: FastifyReply) => {
    const principal = requirePrincipal(req);
    const release = inFlight.take(principal.id);
    if (!release) {
      throw new ProblemError('rate-limited', `this token already has ${inFlight.max} A2A requests open`, {}, { 'Retry-After': '1' });
    }
    reply.raw.once('close', release);
    let answer: Awaited<ReturnType<A2aHandler['handle']>>;
    try {
      answer = await (await handler()).handle(req.body as string, principal, req.headers);
    } catch (err) {
      release();
      throw err;
    }
    if (answer.kind === 'json') return reply.header('cache-control', 'no-store').type('application/json').send(answer.body);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    streams.set(res, principal.id);
    const stop = () => {
      streams.delete(res);
      void answer.rest.return(undefined);
    };
    res.once('close', stop);
    if (answer.first !== '') res.write(answer.first);
    try {
      for await (const frame of answer.rest) {
        if (res.writableEnded) break;
        res.write(frame);
      }
    } catch (err) {
      req.log.error({ err }, 'A2A stream failed');
    } finally {
      if (!res.writableEnded) res.end();
      stop();
    }
  };

  http.register(async (scope) => {
    // The body goes to the SDK as text: its JSON-RPC layer answers a parse error as JSON-RPC does (-32700).
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: MAX_A2A_BODY }, (_req, body, done) => done(null, body));
    scope.post(A2A_PATH, { bodyLimit: MAX_A2A_BODY }, serve);
  });

  return async () => {
    offRevoke?.();
    for (const res of streams.keys()) res.end();
    const pending = loading;
    loading = undefined;
    if (pending) (await pending.catch(() => undefined))?.close();
  };
}

/** Mount `/a2a` on the hub of `ctx` over the services of `deps` (the MCP tools' deps); returns its stop. */
export function startA2a(ctx: AppContext, deps: HubMcpDeps): () => Promise<void> {
  const held = sharedRevocations(ctx.db, (err) => ctx.log.error({ err, where: 'revocations' }, 'A2A revocation watch failed'));
  const close = mountA2a(ctx.http, {
    deps: { ...deps, bus: ctx.bus, log: ctx.log.child({ component: 'a2a' }) },
    baseUrl: () => ctx.baseUrl(),
    revocations: held.watch,
    guard: hubOutboundGuard(ctx.config),
  });
  return async () => {
    await close();
    held.release();
  };
}
