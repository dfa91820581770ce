/**
 * The input schemas of the advice operations (JSON Schema, for the REST routes and the MCP tools of the hub and
 * the index alike): an AdviceRequest, `apply` and `ask`. Bounded: a request cannot make the engine work without end.
 */
const obj = (max: number) => ({ type: 'object', maxProperties: max }) as const;

export const adviceRequestSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    $kind: { const: 'AdviceRequest' },
    svc: { type: 'string', maxLength: 20 },
    cookwala: { type: 'string', maxLength: 20 },
    id: { type: 'string', maxLength: 100 },
    intent: { type: 'string', maxLength: 40 },
    text: { type: 'string', maxLength: 2000 },
    asker: obj(5),
    context: obj(30),
    query: obj(30),
  },
} as const;

export const applySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['responseId', 'optionId'],
  properties: {
    responseId: { type: 'string', minLength: 1, maxLength: 100 },
    optionId: { type: 'string', minLength: 1, maxLength: 100 },
    serveAt: { type: 'string', format: 'date-time', maxLength: 40 },
    /** An agent's signed AgentMandate with `plan_meals` (docs/hub.md#security). */
    mandate: obj(40),
  },
} as const;

export const askSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['text'],
  properties: { text: { type: 'string', minLength: 1, maxLength: 2000 }, lang: { type: 'string', maxLength: 35 }, context: obj(30) },
} as const;
