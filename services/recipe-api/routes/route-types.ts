/** The route table's shape: one entry per operation, read by the server, the MCP tools and the OpenAPI generator. */
import type { Catalog } from '../catalog.js';
import type { Param, Query } from '../params.js';
import type { Json } from '../rows.js';

export interface Operation {
  operationId: string;
  method: 'GET' | 'POST';
  path: string;
  summary: string;
  description: string;
  params: readonly Param[];
  /** JSON Schema of a POST body. */
  body?: Json;
  /** The answer: `query` holds the query and path parameters; `body` the parsed POST body. */
  run: (cat: Catalog, query: Query, body: unknown) => Json;
}
