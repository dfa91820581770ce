/**
 * The route of the hub's MCP server, `/svc/v1/mcp`, without the MCP SDK: the SDK (with zod, about 110 modules
 * and several MB) is loaded on the first request that presents a valid token, so `hearth start` neither waits
 * for it nor keeps it resident when nobody uses MCP. It loads in stages, each awaited, so no single synchronous
 * module evaluation holds the event loop for long (the supervisor's watchdog treats a long block as a stall).
 */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requireToken } from '../hub/safety-routes.js';
import type { hubMcpHandler } from './server.js';
import type { HubMcpDeps } from './tools.js';

type Handler = ReturnType<typeof hubMcpHandler>;

/** Yield to the event loop between stages (timers, I/O and the watchdog heartbeat run in between). */
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

async function loadHandler(d: HubMcpDeps): Promise<Handler> {
  await import('@modelcontextprotocol/server/_shims');
  await breathe();
  await import('@modelcontextprotocol/server');
  await breathe();
  await import('./schema.js');
  await breathe();
  const { hubMcpHandler } = await import('./server.js');
  return hubMcpHandler(d);
}

/** Mount POST/GET/DELETE /svc/v1/mcp, bridging fastify to the SDK's web-standard handler (loaded on first use). */
export function mountHubMcp(http: FastifyInstance, d: HubMcpDeps): () => Promise<void> {
  let loading: Promise<Handler> | undefined;
  const handler = (): Promise<Handler> => {
    if (!loading) {
      loading = loadHandler(d);
      // A failed load is retried by the next request rather than remembered.
      loading.catch(() => {
        loading = undefined;
      });
    }
    return loading;
  };
  const serve = async (req: FastifyRequest, reply: FastifyReply) => {
    const principal = requireToken(req);
    const mcp = await handler();
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === 'string') headers.set(k, v);
      else if (Array.isArray(v)) headers.set(k, v.join(', '));
    }
    const url = `http://${req.headers.host ?? 'localhost'}${req.url}`;
    const hasBody = req.method === 'POST' && req.body !== undefined;
    const request = new Request(url, { method: req.method, headers, ...(hasBody ? { body: JSON.stringify(req.body) } : {}) });
    const authInfo = { token: 'redacted', clientId: principal.id, scopes: principal.scopes, extra: { principal } };
    const response = await mcp.fetch(request, { authInfo, ...(hasBody ? { parsedBody: req.body } : {}) });
    reply.code(response.status);
    response.headers.forEach((value, key) => {
      if (key !== 'content-length' && key !== 'transfer-encoding') reply.header(key, value);
    });
    if (!response.body) return reply.send();
    return reply.send(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>));
  };
  http.route({ method: ['POST', 'GET', 'DELETE'], url: '/svc/v1/mcp', handler: serve });
  return async () => {
    const pending = loading;
    loading = undefined;
    if (pending) await (await pending.catch(() => undefined))?.close();
  };
}
