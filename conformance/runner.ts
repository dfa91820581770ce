/** Runs vectors through their kind's rule and compares the result with `expected`. */
import { asJson, jsonEqual } from './compare.js';
import { loadRuleData } from './data.js';
import { handlerFor } from './kinds/index.js';
import type { KindContext, Vector } from './types.js';
import { type LoadProblem, loadVectorFiles } from './vectors.js';

export interface VectorResult {
  id: string;
  kind: string;
  file?: string;
  passed: boolean;
  expected: unknown;
  /** The rule's result; absent when the rule could not run. */
  got?: unknown;
  /** Why the rule could not run (unknown kind, bad input, a bug). */
  error?: string;
}

export function defaultContext(now: () => Date = () => new Date()): KindContext {
  return { data: loadRuleData(), now };
}

export function runVector(v: Vector, ctx: KindContext, file?: string): VectorResult {
  const base = file === undefined ? { id: v.id, kind: v.kind } : { id: v.id, kind: v.kind, file };
  const handler = handlerFor(v.kind);
  if (!handler) return { ...base, passed: false, expected: v.expected, error: `unknown kind ${JSON.stringify(v.kind)}` };
  const input = typeof v.input === 'object' && v.input !== null && !Array.isArray(v.input) ? (v.input as Record<string, unknown>) : {};
  let got: unknown;
  try {
    got = asJson(handler(input, ctx));
  } catch (err) {
    return { ...base, passed: false, expected: v.expected, error: err instanceof Error ? err.message : String(err) };
  }
  return { ...base, passed: jsonEqual(got, v.expected), expected: v.expected, got };
}

export interface RunOutcome {
  dir: string;
  files: string[];
  results: VectorResult[];
  problems: LoadProblem[];
  passed: number;
  failed: number;
}

/** Run every vector file under `dir`. A file that cannot be read counts as one failure. */
export function runDirectory(dir: string, ctx: KindContext = defaultContext()): RunOutcome {
  const { files, problems } = loadVectorFiles(dir);
  const results: VectorResult[] = [];
  for (const f of files) for (const v of f.vectors) results.push(runVector(v, ctx, f.file));
  const passed = results.filter((r) => r.passed).length;
  return { dir, files: files.map((f) => f.file), results, problems, passed, failed: results.length - passed + problems.length };
}

/** One line per result: `ok <id>` or `FAIL <id>: expected … got …`. */
export function formatResult(r: VectorResult): string {
  if (r.passed) return `ok ${r.id}`;
  if (r.error !== undefined) return `FAIL ${r.id}: expected ${JSON.stringify(r.expected)} got error: ${r.error}`;
  return `FAIL ${r.id}: expected ${JSON.stringify(r.expected)} got ${JSON.stringify(r.got)}`;
}
