/** A Standard Schema (what the MCP SDK's registerTool and registerPrompt take) from a plain JSON Schema, checked by ajv. */
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { Ajv, ValidateFunction } from 'ajv';
import { type AjvRecipe, ajvFor, validatorOf } from '../prebuilt-validators.js';

const recipe: AjvRecipe = { options: { allErrors: false, strict: false }, formats: true };
// Loaded on the first schema compiled (not when a module that builds MCP tools is imported).
let ajv: Ajv | undefined;

/** Compiled validators by schema text: the MCP servers are built per request, a schema compiles once. */
const compiled = new Map<string, ValidateFunction>();

function validator(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let check = compiled.get(key);
  if (!check) {
    check = validatorOf(recipe, schema, () => {
      ajv ??= ajvFor(recipe);
      return ajv;
    });
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
