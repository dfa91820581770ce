/**
 * Schema validation for routes, with ajv 8. Bodies are validated strictly (no type coercion, no defaults
 * filled in, no silent removal of unknown fields: a schema that forbids them rejects them); querystring,
 * params and headers are coerced from strings, as they can only be strings on the wire.
 * Errors become JSON-pointer paths: `{in: "body", pointer: "/steps/0/tempC", message}`.
 */
import type { Ajv, ErrorObject, Options, ValidateFunction } from 'ajv';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import { type AjvRecipe, ajvFor, validatorOf } from '../prebuilt-validators.js';

/** Most validation errors reported in one problem document. */
export const MAX_REPORTED_ERRORS = 20;

export interface ValidationItem {
  in: string;
  pointer: string;
  message: string;
}

/**
 * How route validators are compiled: strict bodies (no coercion), coerced params, querystring and headers.
 * No optimisation pass over the generated code when compiling at run time (before the supervisor runs): the pass
 * cost ~50 ms of start-up CPU for no measurable difference per request (docs/performance.md). The build compiles
 * the routes of `hearth start` ahead of time (platform/prebuilt-validators.ts), so a start compiles none.
 */
export function routeRecipe(coerce: boolean): AjvRecipe {
  return {
    options: {
      allErrors: true,
      coerceTypes: coerce ? 'array' : false,
      useDefaults: coerce,
      removeAdditional: false,
      strict: false,
      code: { optimize: false },
    },
    formats: true,
  };
}

/** Longest array checked for `uniqueItems` where a schema sets no `maxItems` (the check is quadratic). */
export const UNIQUE_ITEMS_CAP = 1000;

/**
 * The schema with every `uniqueItems` made conditional on the array's length: with `allErrors`, ajv runs the
 * quadratic uniqueness check even on an array already refused by `maxItems`, so a 40,000-item array in a
 * 256 KiB body held the event loop for tens of seconds. Here uniqueness is only checked on an array within
 * its `maxItems` (or UNIQUE_ITEMS_CAP where none is set, beyond which the array is refused). Objects without
 * `uniqueItems` anywhere below are returned as they are.
 */
export function boundUniqueItems(schema: unknown): unknown {
  if (Array.isArray(schema)) {
    const out = schema.map(boundUniqueItems);
    return out.some((v, i) => v !== schema[i]) ? out : schema;
  }
  if (schema === null || typeof schema !== 'object') return schema;
  const src = schema as Record<string, unknown>;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(src)) {
    const b = k === 'enum' || k === 'const' || k === 'default' || k === 'examples' ? v : boundUniqueItems(v);
    if (b !== v) changed = true;
    out[k] = b;
  }
  if (src.uniqueItems === true) {
    const max = typeof src.maxItems === 'number' ? src.maxItems : UNIQUE_ITEMS_CAP;
    delete out.uniqueItems;
    out.maxItems = max;
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keywords, not a thenable
    const guard = { if: { maxItems: max }, then: { uniqueItems: true } };
    out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), guard];
    changed = true;
  }
  return changed ? out : schema;
}

/** A fastify validatorCompiler: strict for bodies, coercing for the string-only parts of a request. */
export function createValidatorCompiler(extra: Options = {}): FastifySchemaCompiler<FastifySchema> {
  const strictRecipe = routeRecipe(false);
  const coercingRecipe = routeRecipe(true);
  let strict: Ajv | undefined;
  let coercing: Ajv | undefined;
  const cache = new WeakMap<object, ValidateFunction>();
  return ({ schema, httpPart }) => {
    const body = (httpPart ?? 'body') === 'body';
    const key = schema as object;
    let fn = body ? cache.get(key) : undefined;
    if (!fn) {
      const recipe = body ? strictRecipe : coercingRecipe;
      // Extra options change the code ajv generates: the recipe carries them, so nothing built matches.
      const withExtra = Object.keys(extra).length === 0 ? recipe : { ...recipe, options: { ...recipe.options, ...extra } };
      fn = validatorOf(withExtra, boundUniqueItems(schema), () => {
        if (body) {
          strict ??= ajvFor(recipe, extra);
          return strict;
        }
        coercing ??= ajvFor(recipe, extra);
        return coercing;
      });
      if (body) cache.set(key, fn);
    }
    const validate = fn;
    return (data: unknown) => {
      if (validate(data)) return { value: data };
      const err = Object.assign(new Error('validation failed'), { validation: (validate.errors ?? []).slice(0, MAX_REPORTED_ERRORS) });
      return { error: err };
    };
  };
}

function escapePointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Turn ajv errors into JSON-pointer items. `context` is fastify's validationContext (body, querystring, …). */
export function validationErrors(errors: readonly Partial<ErrorObject>[], context = 'body'): ValidationItem[] {
  return errors.slice(0, MAX_REPORTED_ERRORS).map((e) => {
    let pointer = e.instancePath ?? '';
    const params = (e.params ?? {}) as Record<string, unknown>;
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required' && typeof params.missingProperty === 'string') {
      pointer += `/${escapePointer(params.missingProperty)}`;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
      pointer += `/${escapePointer(params.additionalProperty)}`;
      message = 'is not an allowed field';
    } else if (e.keyword === 'enum' && Array.isArray(params.allowedValues)) {
      message = `must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    }
    return { in: context, pointer, message };
  });
}
