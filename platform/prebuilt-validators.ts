/**
 * JSON Schema validators compiled at build time (scripts/build-route-validators.mjs writes
 * dist/route-validators.cjs, and dist/route-validators-lazy.cjs for what the surfaces loaded on first use compile,
 * read only on the first schema the first file lacks), so that `hearth start` neither loads ajv nor compiles its
 * schemas at every start, and the MCP surface's first request does not either.
 * A validator is found by a key over the ajv options and the schema's JSON, so a schema or an option changed
 * since the build simply misses and is compiled at run time with ajv, loaded then (`compileWithAjv`).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Ajv, Options, ValidateFunction } from 'ajv';

const require = createRequire(import.meta.url);

/** How a validator is compiled: ajv's options (JSON-serialisable) and whether ajv-formats' formats are added. */
export interface AjvRecipe {
  options: Options;
  formats: boolean;
}

/** The key of a schema compiled under a recipe. */
export function prebuiltKey(recipe: AjvRecipe, schema: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(recipe.options))
    .update(recipe.formats ? '\u0000formats\u0000' : '\u0000plain\u0000')
    .update(JSON.stringify(schema))
    .digest('hex')
    .slice(0, 32);
}

/** Where `npm run build` writes them: dist/ beside the sources, or the package root of an installed dist/. */
const FILES = [new URL('../dist/route-validators.cjs', import.meta.url), new URL('../route-validators.cjs', import.meta.url)];

type Factories = Record<string, () => ValidateFunction>;
let built: Factories | null | undefined;
/** Validators of the surfaces loaded on first use (MCP's tools), in a file of their own read on the first miss. */
let builtLazy: Factories | null | undefined;

function load(files: readonly URL[]): Factories | null {
  const file = files.map((u) => fileURLToPath(u)).find((f) => existsSync(f));
  if (file === undefined) return null;
  try {
    return (require(file) as { validators?: Factories }).validators ?? null;
  } catch {
    // A damaged or foreign file: compile at run time instead.
    return null;
  }
}

function prebuilt(): Factories | null {
  if (built === undefined) built = load(FILES);
  return built;
}

function prebuiltLazy(): Factories | null {
  if (builtLazy === undefined) builtLazy = load(FILES.map((u) => new URL(u.href.replace(/\.cjs$/, '-lazy.cjs'))));
  return builtLazy;
}

type Recorder = (recipe: AjvRecipe, schema: unknown) => void;
let recorder: Recorder | undefined;

/** Hear every schema asked for from now on (the build uses it to list what to compile). */
export function recordSchemas(fn: Recorder | undefined): void {
  recorder = fn;
}

type AddFormats = (ajv: Ajv) => Ajv;

/** A new ajv for a recipe (`extra` options on top), ajv loaded now. Both packages are CommonJS. */
export function ajvFor(recipe: AjvRecipe, extra: Options = {}): Ajv {
  const { Ajv: AjvClass } = require('ajv') as { Ajv: new (o: Options) => Ajv };
  const ajv = new AjvClass({ ...recipe.options, ...extra });
  if (recipe.formats) {
    // ajv-formats ships CommonJS with a default export; the callable may sit on `.default`.
    const formats = require('ajv-formats') as AddFormats & { default?: AddFormats };
    (typeof formats.default === 'function' ? formats.default : formats)(ajv);
  }
  return ajv;
}

/**
 * The validator of `schema` under `recipe`: the one built ahead of time when there is one, else compiled with
 * `ajv()` (called only then, so ajv loads only then).
 */
export function validatorOf<T = unknown>(recipe: AjvRecipe, schema: unknown, ajv: () => Ajv): ValidateFunction<T> {
  recorder?.(recipe, schema);
  const key = prebuiltKey(recipe, schema);
  const factory = prebuilt()?.[key] ?? prebuiltLazy()?.[key];
  if (factory) return factory() as ValidateFunction<T>;
  return ajv().compile<T>(schema as object);
}
