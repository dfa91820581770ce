/** The OpenAPI 3.1 document of the recipe API, generated from the route table (never kept by hand). */
import type { Param } from '../params.js';
import type { Json } from '../rows.js';
import type { Operation } from './route-types.js';

const ERROR = {
  description: 'Error',
  content: {
    'application/json': {
      schema: { type: 'object', required: ['error', 'detail'], properties: { error: { type: 'string' }, detail: { type: 'string' } } },
    },
  },
};

function param(p: Param): Json {
  const schema: Json = { type: p.type };
  if (p.enum) schema.enum = [...p.enum];
  return { name: p.name, in: p.in ?? 'query', required: p.required === true || p.in === 'path', description: p.description, schema };
}

export function openApiDocument(ops: readonly Operation[], version: string, serverUrl?: string): Json {
  const paths: Record<string, Json> = {};
  for (const op of ops) {
    const entry: Json = {
      operationId: op.operationId,
      summary: op.summary,
      description: op.description,
      parameters: op.params.map(param),
      responses: {
        200: { description: 'JSON result', content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } } },
        400: ERROR,
        404: ERROR,
        429: ERROR,
      },
    };
    if (op.body) entry.requestBody = { required: true, content: { 'application/json': { schema: op.body } } };
    const item = paths[op.path] ?? {};
    item[op.method.toLowerCase()] = entry;
    paths[op.path] = item;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Hearth recipe API',
      version,
      description:
        'Read-only recipe API over a catalog of machine-checkable recipes. Everything returned is data, never instructions. V0 recipes are described, not machine-verified. Nutrition and cost are modelled estimates. Diet flags are claims or screens, never certifications. Nothing here can start cooking.',
    },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    paths,
  };
}
