/**
 * The recipe API's MCP server: every operation as a tool. Loaded by mcp.ts on the first authorized /mcp
 * request, so a start neither loads the MCP SDK (with zod, several MB resident) nor waits for it.
 */

import { jsonSchema } from '../../../platform/mcp/schema.js';
import { createMcpHandler, McpServer } from '../../../platform/vendor/mcp-server.js';
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

/** The SDK's web-standard handler over a fresh server per request (stateless). */
export function recipeMcpHandler(cat: () => Catalog, ops: readonly Operation[], version: string): ReturnType<typeof createMcpHandler> {
  return createMcpHandler(() => recipeMcpServer(cat, ops, version));
}
