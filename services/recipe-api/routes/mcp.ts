/**
 * Every recipe API operation as an MCP tool on the host's /mcp route (stateless streamable HTTP). The route
 * needs a bearer token: one of the configured static tokens, or a token the hub named by `--hub-data` issued
 * (pairing or `hearth token create`). Without one it answers 401 `{error, detail}`. The MCP SDK and the tools
 * (mcp-server.ts) load on the first request with a valid token.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { serveMcp } from '../../../platform/mcp/bridge.js';
import type { Catalog } from '../catalog.js';
import type { recipeMcpHandler } from './mcp-server.js';
import type { Operation } from './route-types.js';

type Handler = ReturnType<typeof recipeMcpHandler>;

/** Who may open /mcp: static tokens, and optionally a check against a hub's token store. */
export interface McpAccess {
  tokens: readonly string[];
  hub?: { verify: (token: string) => boolean };
}

function tokenOk(header: string | undefined, access: McpAccess): boolean {
  const m = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  if (!m) return false;
  const presented = m[1] as string;
  const given = Buffer.from(presented);
  const isStatic = access.tokens.some((t) => {
    const want = Buffer.from(t);
    return want.length === given.length && timingSafeEqual(want, given);
  });
  return isStatic || access.hub?.verify(presented) === true;
}

export function mountRecipeMcp(
  app: FastifyInstance,
  cat: () => Catalog,
  ops: readonly Operation[],
  version: string,
  access: McpAccess,
): () => Promise<void> {
  let loading: Promise<Handler> | undefined;
  const handler = (): Promise<Handler> => {
    if (!loading) {
      loading = import('./mcp-server.js').then((m) => m.recipeMcpHandler(cat, ops, version));
      // A failed load is retried by the next request rather than remembered.
      loading.catch(() => {
        loading = undefined;
      });
    }
    return loading;
  };
  app.route({
    method: ['POST', 'GET', 'DELETE'],
    url: '/mcp',
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      if (!tokenOk(req.headers.authorization, access)) {
        const detail =
          access.tokens.length === 0 && access.hub === undefined
            ? 'the MCP route is closed: no tokens are configured (--mcp-token, --mcp-tokens-file or --hub-data)'
            : 'a valid bearer token is required';
        return reply.code(401).header('www-authenticate', 'Bearer').send({ error: 'unauthorized', detail });
      }
      return serveMcp(req, reply, await handler());
    },
  });
  return async () => {
    if (loading) await (await loading.catch(() => undefined))?.close();
  };
}
