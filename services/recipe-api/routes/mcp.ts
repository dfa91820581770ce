/**
 * Every recipe API operation as an MCP tool on the host's /mcp route (stateless streamable HTTP). The route
 * needs a bearer token: one of the configured static tokens, or a token the hub named by `--hub-data` issued
 * (pairing or `hearth token create`). Without one it answers 401 `{error, detail}`.
 */
import { timingSafeEqual } from 'node:crypto';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { serveMcp } from '../../../platform/mcp/bridge.js';
import { jsonSchema } from '../../../platform/mcp/schema.js';
import type { Catalog } from '../catalog.js';
import { ApiError } from '../params.js';
import type { Json } from '../rows.js';
import { DATA_NOTE } from './present.js';
import type { Operation } from './route-types.js';

function inputSchema(op: Operation): Json {
  const properties: Json = {};
  for (const p of op.params) properties[p.name] = { type: p.type, description: p.description, ...(p.enum ? { enum: [...p.enum] } : {}) };
  const required = op.params.filter((p) => p.required || p.in === 'path').map((p) => p.name);
  if (op.body) {
    const body = op.body as { properties?: Json; required?: string[] };
    Object.assign(properties, body.properties ?? {});
    required.push(...(body.required ?? []));
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

export function recipeMcpServer(cat: () => Catalog, ops: readonly Operation[], version: string): McpServer {
  const server = new McpServer({ name: 'hearth-recipe-api', version });
  for (const op of ops) {
    server.registerTool(
      op.operationId,
      {
        description: `${op.summary}. ${op.description}`,
        annotations: { readOnlyHint: true, openWorldHint: false },
        inputSchema: jsonSchema<Json>(inputSchema(op)),
      },
      async (args: Json) => {
        // Tool arguments become query parameters as strings, exactly as over HTTP.
        const query: Json = {};
        for (const p of op.params) if (args[p.name] !== undefined) query[p.name] = String(args[p.name]);
        try {
          const value = op.run(cat(), query, op.body ? args : undefined);
          return { content: [{ type: 'text' as const, text: `${DATA_NOTE}\n${JSON.stringify(value)}` }], structuredContent: value };
        } catch (err) {
          if (err instanceof ApiError) return { isError: true, content: [{ type: 'text' as const, text: `${err.error}: ${err.message}` }] };
          throw err;
        }
      },
    );
  }
  return server;
}

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
  const handler = createMcpHandler(() => recipeMcpServer(cat, ops, version));
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
      return serveMcp(req, reply, handler);
    },
  });
  return () => handler.close();
}
