/**
 * JSON Schemas of the Core API request bodies this executor accepts (our own, after the reference's
 * core.schema.json). Unknown members are refused except `x-` extensions; strings are bounded. The Core
 * version is only checked for being a short string here: a `core` outside 0.2.x is a refusal
 * (`unsupported_version`), not a validation error.
 */
const id = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{2,127}$' };
const dateTime = { type: 'string', format: 'date-time', maxLength: 64 };
const globalRef = {
  type: 'string',
  maxLength: 512,
  pattern: '^(https?://[^#\\s]+#[A-Za-z0-9._:-]+|cw:[a-z0-9.-]+:[A-Za-z0-9._:-]+|[A-Za-z0-9._-]+)$',
};
const ext = { '^x-': {} };
const short = (n: number) => ({ type: 'string', maxLength: n });

export const executeRequestSchema = {
  type: 'object',
  additionalProperties: false,
  patternProperties: ext,
  required: ['core', 'kind', 'id', 'recipe', 'recipeHash', 'requestedBy', 'idempotencyKey'],
  properties: {
    core: { type: 'string', minLength: 1, maxLength: 32 },
    kind: { const: 'ExecuteRequest' },
    id,
    recipe: globalRef,
    recipeHash: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' },
    servings: { type: 'number', exclusiveMinimum: 0, maximum: 1000 },
    serveBy: dateTime,
    requestedBy: { type: 'string', minLength: 1, maxLength: 200 },
    mandate: {
      type: 'object',
      required: ['principal', 'agent', 'scopes', 'expires'],
      properties: {
        principal: short(200),
        agent: short(200),
        scopes: { type: 'array', minItems: 1, maxItems: 20, items: short(40) },
        expires: dateTime,
      },
    },
    allergenBlocks: { type: 'array', maxItems: 64, items: { type: 'string', minLength: 1, maxLength: 64 } },
    operatingMode: short(100),
    idempotencyKey: { type: 'string', minLength: 8, maxLength: 128 },
  },
} as const;

export const resumeRequestSchema = {
  type: 'object',
  additionalProperties: false,
  patternProperties: ext,
  properties: {
    core: { type: 'string', maxLength: 32 },
    kind: { const: 'ResumeRequest' },
    execution: id,
    requestedBy: short(200),
    note: short(300),
  },
} as const;

export const incidentReportSchema = {
  type: 'object',
  additionalProperties: false,
  patternProperties: ext,
  required: ['core', 'kind', 'id', 'date', 'category', 'severity', 'description'],
  properties: {
    core: { type: 'string', pattern: '^0\\.2\\.[0-9]+$' },
    kind: { const: 'IncidentReport' },
    id,
    date: { type: 'string', format: 'date' },
    category: { type: 'string', minLength: 1, maxLength: 100 },
    severity: { enum: ['info', 'low', 'medium', 'high', 'critical'] },
    outcome: { enum: ['near_miss', 'minor_injury', 'injury', 'property_damage', 'illness_suspected', 'none'] },
    op: { type: 'string', pattern: '^(cw|x-[a-z0-9-]+)\\.[a-z0-9_.-]+$', maxLength: 100 },
    deviceModel: short(200),
    recipe: globalRef,
    safetyLimitsFired: { type: 'array', maxItems: 50, items: short(100) },
    description: { type: 'string', minLength: 1, maxLength: 4000 },
    contributingFactors: {
      type: 'array',
      maxItems: 9,
      items: {
        enum: [
          'sensor_missing',
          'sensor_fault',
          'envelope_unclear',
          'recipe_error',
          'agent_instruction',
          'human_override',
          'network',
          'power',
          'other',
        ],
      },
    },
  },
} as const;

export const executionParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{2,127}$' } },
} as const;

export const recallsQuery = {
  type: 'object',
  additionalProperties: false,
  // Checked by runtime/http/recalls-since.ts, whose error says what to write (ajv's would only name the format).
  properties: { since: { type: 'string', maxLength: 64 } },
} as const;
