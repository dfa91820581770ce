/**
 * ConformanceReport: a signed record of a conformance run, saying which vectors ran (per suite, plus a hash of
 * every (suite, id, expected)), with which tool and version, when, on what, and each result. Anyone with the
 * same vectors can reproduce it; the signature binds it to the key that made it.
 */
import { canonicalize } from '../core/canonical.js';
import { sha256Hex } from '../core/hash.js';
import type { KeyFile } from '../core/keys.js';
import { type Signature, signDocument } from '../core/signature.js';
import { toRfc3339Seconds } from '../core/time.js';
import type { RunOutcome } from './runner.js';

export const SVC_VERSION = '0.2.0';
export const CORE_VERSION = '0.2.0';

export interface ReportOptions {
  tool: { name: string; version: string };
  subject?: { name: string; version?: string };
  at: Date;
  environment?: { node: string; platform: string; arch: string };
}

/** Suite name of a vector file: its path without `.json` (`hash`, `profiles/sms`). */
export function suiteOf(file: string | undefined): string {
  return (file ?? 'unknown').replace(/\.json$/, '');
}

export function vectorsHash(outcome: RunOutcome): string {
  const entries = outcome.results.map((r) => [suiteOf(r.file), r.id, r.expected] as const);
  const sortKey = (e: readonly [string, string, unknown]) => `${e[0]}\u0000${e[1]}`;
  entries.sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));
  return `sha256:${sha256Hex(canonicalize(entries))}`;
}

export function buildReport(outcome: RunOutcome, opts: ReportOptions): Record<string, unknown> {
  const suites = new Map<string, { suite: string; total: number; passed: number; failed: string[] }>();
  for (const r of outcome.results) {
    const suite = suiteOf(r.file);
    const s = suites.get(suite) ?? { suite, total: 0, passed: 0, failed: [] };
    s.total++;
    if (r.passed) s.passed++;
    else s.failed.push(r.id);
    suites.set(suite, s);
  }
  const hash = vectorsHash(outcome);
  const ranAt = toRfc3339Seconds(opts.at);
  const date = ranAt.slice(0, 10);
  return {
    svc: SVC_VERSION,
    kind: 'ConformanceReport',
    id: `${opts.tool.name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${date}-${hash.slice(7, 19)}`,
    core: CORE_VERSION,
    claim: 'executor',
    status: 'self_declared',
    subject: opts.subject ?? { name: opts.tool.name, version: opts.tool.version },
    tool: { ...opts.tool },
    ranAt,
    environment: opts.environment ?? { node: process.version, platform: process.platform, arch: process.arch },
    vectorsHash: hash,
    suites: [...suites.values()],
    summary: { total: outcome.results.length, passed: outcome.passed, failed: outcome.failed },
    results: outcome.results.map((r) => {
      const out: Record<string, unknown> = { id: r.id, kind: r.kind, suite: suiteOf(r.file), pass: r.passed };
      if (!r.passed) out.detail = failureDetail(r.error, r.got);
      return out;
    }),
    problems: outcome.problems.map((p) => ({ ...p })),
  };
}

/** One line saying why a vector failed: the error, or what the implementation answered (at most 500 chars). */
function failureDetail(error: string | undefined, got: unknown): string {
  const text = error ?? `got ${got === undefined ? 'nothing' : canonicalize(got)}`;
  return text.length > 500 ? `${text.slice(0, 497)}...` : text;
}

/** Build and sign the report with `key` (kind `ConformanceReport`, signed at `opts.at`). */
export function signedReport(
  outcome: RunOutcome,
  key: KeyFile,
  opts: ReportOptions,
): Record<string, unknown> & { hash: string; signature: Signature } {
  return signDocument(buildReport(outcome, opts), key, { kind: 'ConformanceReport', signedAt: toRfc3339Seconds(opts.at) });
}
