/**
 * How the hostile-input harness (fuzz-surfaces.ts) judges one HTTP answer: an answer within {@link HANG_MS}, no
 * 5xx and no JSON-RPC -32603, and every refusal a problem document of the hub (MCP may answer a JSON-RPC error
 * instead); a hub shedding load near its memory limit is counted apart, never as a failure.
 */
import { internalErrors } from './fuzz-mcp.js';
import type { Surface, Tally } from './fuzz-surfaces.js';

export const HANG_MS = 5000;

/** A hub shedding load near its memory limit: 503, Retry-After, a `memory-pressure` problem document. */
export function isShed(status: number, retryAfter: string | null | undefined, body: string): boolean {
  return status === 503 && !!retryAfter && /"type":"[^"]*\/errors\/memory-pressure"/.test(body);
}

/** The check of one HTTP answer, tallied per surface; `fail` records what is wrong. */
export function httpJudge(bySurface: Record<Surface, Tally>, fail: (s: Surface, what: string) => void, hubUrl: string) {
  return async (s: Surface, label: string, res: Response | 'hang', mcp = false, base = hubUrl) => {
    const t = bySurface[s];
    if (res === 'hang') {
      t.hangs++;
      return fail(s, `${label}: no answer within ${HANG_MS} ms`);
    }
    const text = await res.text().catch(() => '');
    if (isShed(res.status, res.headers.get('retry-after'), text)) {
      t.shed = (t.shed ?? 0) + 1;
      return;
    }
    const internal = mcp ? internalErrors(text) : 0;
    if (internal > 0) {
      t.internal += internal;
      fail(s, `${label}: JSON-RPC -32603 ${text.slice(0, 200)}`);
    }
    if (res.status >= 500) {
      t.server5xx++;
      return fail(s, `${label}: ${res.status} ${text.slice(0, 200)}`);
    }
    if (res.status < 400) {
      t.ok++;
      return;
    }
    t.refused++;
    const ct = res.headers.get('content-type') ?? '';
    let doc: Record<string, unknown> = {};
    try {
      doc = JSON.parse(text) as Record<string, unknown>;
    } catch {}
    const problem =
      /^application\/problem\+json/.test(ct) &&
      typeof doc.type === 'string' &&
      doc.type.startsWith(`${base}/errors/`) &&
      doc.status === res.status;
    const jsonRpc = mcp && typeof doc.jsonrpc === 'string' && typeof doc.error === 'object';
    if (!problem && !jsonRpc && !(res.status === 405 && ct === '' && text === '') && !(label.startsWith('HEAD') && text === '')) {
      t.notProblem++;
      fail(s, `${label}: ${res.status} ${ct} ${text.slice(0, 120)}`);
    }
  };
}
