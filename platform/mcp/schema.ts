/** A Standard Schema (what the MCP SDK's registerTool and registerPrompt take) from a plain JSON Schema, checked by ajv. */
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

type AddFormats = (ajv: Ajv) => Ajv;
const formatsExport = addFormatsModule as unknown as AddFormats & { default?: AddFormats };
const addFormats: AddFormats = typeof formatsExport.default === 'function' ? formatsExport.default : formatsExport;
const ajv = addFormats(new Ajv({ allErrors: false, strict: false }));

/** Compiled validators by schema text: the MCP servers are built per request, a schema compiles once. */
const compiled = new Map<string, ReturnType<Ajv['compile']>>();

function validator(schema: Record<string, unknown>): ReturnType<Ajv['compile']> {
  const key = JSON.stringify(schema);
  let check = compiled.get(key);
  if (!check) {
    check = ajv.compile(schema);
    compiled.set(key, check);
  }
  return check;
}

/** What is wrong with `value` against `schema` (empty when it is valid): the same check as `jsonSchema`, for other transports. */
export function schemaIssues(schema: Record<string, unknown>, value: unknown): string[] {
  const check = validator(schema);
  return check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
}

export function jsonSchema<T>(schema: Record<string, unknown>): StandardSchemaWithJSON<T, T> {
  const check = validator(schema);
  return {
    '~standard': {
      version: 1,
      vendor: 'hearth',
      validate: (value: unknown) =>
        check(value)
          ? { value: value as T }
          : { issues: (check.errors ?? []).map((e) => ({ message: `${e.instancePath || '/'} ${e.message ?? 'is invalid'}` })) },
      jsonSchema: { input: () => schema, output: () => schema },
    },
  };
}
