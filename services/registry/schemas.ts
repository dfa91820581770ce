/**
 * The registry's own JSON Schemas for what a publisher submits (semantics §11). Name, version and sha256 are
 * typed here only as strings: their rules are checked separately so that each failure carries its own issue
 * code (`name`, `version`, `hash`) instead of a generic `schema`. Unknown members are rejected except `x-*`.
 */
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { ValidationIssue } from './types.js';

// ajv-formats ships CommonJS with a default export; under NodeNext the callable sits on `.default`.
type AddFormats = (ajv: Ajv) => Ajv;
const formatsExport = addFormatsModule as unknown as AddFormats & { default?: AddFormats };
const addFormats: AddFormats = typeof formatsExport.default === 'function' ? formatsExport.default : formatsExport;

export const ENTRY_KINDS = [
  'advisor',
  'benchmark',
  'catalog',
  'device',
  'extension',
  'flow',
  'hub',
  'kitchen',
  'knowledge',
  'policy_pack',
  'program',
  'provider',
  'recipe_collection',
  'rule_pack',
  'safety_limits',
] as const;

const dateTime = { type: 'string', format: 'date-time' };

const registryEntrySchema = {
  type: 'object',
  required: ['kind', 'url'],
  additionalProperties: false,
  patternProperties: { '^x-': {} },
  properties: {
    kind: { enum: ENTRY_KINDS },
    url: { type: 'string', format: 'uri', pattern: '^https?://', maxLength: 2000 },
    name: { type: 'string' },
    version: { type: 'string' },
    status: { enum: ['active', 'deprecated', 'recalled', 'deleted'] },
    sha256: { type: 'string' },
    description: { type: 'string', minLength: 1, maxLength: 100 },
    tags: { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 40 } },
    verification: {
      type: 'object',
      required: ['method', 'verifiedAt'],
      additionalProperties: false,
      properties: { method: { type: 'string' }, verifiedAt: dateTime, by: { type: 'string' } },
    },
    publishedAt: dateTime,
    coreVersion: { type: 'string', maxLength: 40 },
    repository: {
      type: 'object',
      additionalProperties: false,
      properties: {
        url: { type: 'string', format: 'uri' },
        source: { enum: ['github', 'gitlab', 'codeberg', 'other'] },
        id: { type: 'string' },
        subfolder: { type: 'string' },
      },
    },
  },
};

export const DIRECTORY_ROLES = [
  'device_maker',
  'appliance_maker',
  'agent_builder',
  'catalog',
  'registry',
  'hub_vendor',
  'food_bank',
  'community_kitchen',
  'school_program',
  'relief_program',
  'farm_or_cooperative',
  'grocer_or_retailer',
  'restaurant_or_food_service',
  'recipe_publisher',
  'certifier',
  'research_lab',
  'health_body',
  'government',
  'insurer',
  'translator_community',
  'other',
] as const;

const directoryEntrySchema = {
  type: 'object',
  required: ['kind', 'id', 'name', 'roles', 'country'],
  additionalProperties: false,
  patternProperties: { '^x-': {} },
  properties: {
    kind: { const: 'DirectoryEntry' },
    id: { type: 'string', pattern: '^(did:web:[a-z0-9.-]+|org:[a-z0-9-]+\\.[a-z0-9.-]+|gln:[0-9]{13})$' },
    name: { type: 'string', minLength: 1, maxLength: 120 },
    description: { type: 'string', maxLength: 200 },
    roles: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: DIRECTORY_ROLES } },
    country: { type: 'string', pattern: '^[A-Z]{2}$' },
    url: { type: 'string', format: 'uri', pattern: '^https://' },
    contact: { type: 'string', maxLength: 200 },
    conformance: { type: 'array', maxItems: 50, items: { type: 'string', pattern: '^sha256:[a-f0-9]{64}$' } },
    humanitarianLevels: { type: 'array', uniqueItems: true, items: { enum: ['H0', 'H1', 'H2', 'H3'] } },
    verification: {
      type: 'object',
      required: ['method'],
      additionalProperties: false,
      properties: {
        method: { enum: ['dns_txt', 'well_known', 'code_host_oidc', 'vouched_by_program', 'none'] },
        verifiedAt: dateTime,
        by: { type: 'string' },
      },
    },
    status: { enum: ['active', 'inactive', 'deleted'] },
    addedAt: dateTime,
    updatedAt: dateTime,
  },
};

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const checkEntry = ajv.compile(registryEntrySchema);
const checkDirectory = ajv.compile(directoryEntrySchema);

function issuesOf(errors: ErrorObject[] | null | undefined): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const e of errors ?? []) {
    let path = e.instancePath;
    let message = e.message ?? 'is not valid';
    if (e.keyword === 'additionalProperties') {
      const extra = String((e.params as { additionalProperty?: string }).additionalProperty);
      path = `${path}/${extra.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      message = 'unknown member (only x-* extensions may be added)';
    } else if (e.keyword === 'required') {
      const missing = String((e.params as { missingProperty?: string }).missingProperty);
      path = `${path}/${missing}`;
      message = 'is required';
    } else if (e.keyword === 'enum') {
      message = `must be one of ${((e.params as { allowedValues?: unknown[] }).allowedValues ?? []).join(', ')}`;
    }
    if (!out.some((i) => i.path === path && i.message === message)) out.push({ code: 'schema', path, message });
  }
  return out;
}

/** Schema issues of a submitted registry entry. */
export function registryEntrySchemaIssues(doc: unknown): ValidationIssue[] {
  return checkEntry(doc) ? [] : issuesOf(checkEntry.errors);
}

/** Schema issues of a submitted directory entry. */
export function directoryEntrySchemaIssues(doc: unknown): ValidationIssue[] {
  return checkDirectory(doc) ? [] : issuesOf(checkDirectory.errors);
}
