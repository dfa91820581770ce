/**
 * The route of the hub's MCP server, `/svc/v1/mcp`, without the MCP SDK: the SDK (with zod, about 110 modules
 * and several MB) is loaded on the first request that presents a valid token, so `hearth start` neither waits
 * for it nor keeps it resident when nobody uses MCP. It loads in stages, each awaited, so no single synchronous
 * module evaluation holds the event loop for long (the supervisor's watchdog treats a long block as a stall).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requirePrincipal } from '../../platform/http/auth.js';
import { ProblemError } from '../../platform/http/problems.js';
import { PerTokenLimit } from '../../platform/http/revocation.js';
import { serveMcp } from '../../platform/mcp/bridge.js';
import type { hubMcpHandler } from './server.js';
import type { HubMcpDeps } from './tools.js';

type Handler = ReturnType<typeof hubMcpHandler>;

/** Yield to the event loop between stages (timers, I/O and the watchdog heartbeat run in between). */
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

async function loadHandler(d: HubMcpDeps): Promise<Handler> {
  // The SDK with zod: one minified file in the build (platform/vendor/mcp-server.ts), ~60 ms to evaluate here.
  await import('../../platform/vendor/mcp-server.js');
  await breathe();
  await import('../../platform/mcp/schema.js');
  await breathe();
  const { hubMcpHandler } = await import('./server.js');
  return hubMcpHandler(d);
}

/** True for a JSON-RPC `tools/call` of `emergency_stop` (alone or in a batch). */
function isEmergencyStop(body: unknown): boolean {
  const calls = Array.isArray(body) ? body : [body];
  return calls.some((c) => {
    const m = c as { method?: unknown; params?: { name?: unknown } } | null;
    return typeof m === 'object' && m !== null && m.method === 'tools/call' && m.params?.name === 'emergency_stop';
  });
}

/** MCP requests one token may have in flight at once (the hub's MCP is stateless: a request is its session). */
export const MAX_MCP_REQUESTS_PER_TOKEN = 4;

/**
 * Mount POST/GET/DELETE /svc/v1/mcp, bridging fastify to the SDK's web-standard handler (loaded on first use).
 * A token with `MAX_MCP_REQUESTS_PER_TOKEN` requests still being answered gets 429 `rate-limited` for the next.
 */
export function mountHubMcp(http: FastifyInstance, d: HubMcpDeps, maxPerToken = MAX_MCP_REQUESTS_PER_TOKEN): () => Promise<void> {
  const inFlight = new PerTokenLimit(maxPerToken);
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
    const principal = requirePrincipal(req);
    // An emergency stop is never turned away by the in-flight cap (it is answered at once anyway).
    const release = inFlight.take(principal.id) ?? (isEmergencyStop(req.body) ? () => {} : undefined);
    if (!release) {
      throw new ProblemError('rate-limited', `this token already has ${maxPerToken} MCP requests in flight`, {}, { 'Retry-After': '1' });
    }
    // Released when the answer (a stream, maybe) is over or the client went away.
    reply.raw.once('close', release);
    try {
      const mcp = await handler();
      return await serveMcp(req, reply, mcp, {
        authInfo: { token: 'redacted', clientId: principal.id, scopes: principal.scopes, extra: { principal } },
      });
    } catch (err) {
      release();
      throw err;
    }
  };
  http.route({ method: ['POST', 'GET', 'DELETE'], url: '/svc/v1/mcp', handler: serve });
  return async () => {
    const pending = loading;
    loading = undefined;
    if (pending) await (await pending.catch(() => undefined))?.close();
  };
}
