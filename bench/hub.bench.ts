/**
 * Hub benchmarks (printed figures, never assertions), in process over real HTTP on 127.0.0.1:
 * - e-stop request to its answer (heat is cut before the answer), p50/p99 over 100 stops (target p99 < 20 ms;
 *   the spec's bound for a heat cut is 1 s);
 * - an MCP `search_recipes` call over stateless streamable HTTP, p50/p99 over 200 calls (target p99 < 50 ms);
 * - POST /svc/v1/sessions (dry run with a person, rules, store), p50/p99 over 200 creations (target p99 < 30 ms).
 */
import { randomUUID } from 'node:crypto';
import { startHub } from '../runtime/hub/test-helpers.js';
import { summarize } from './stats.js';

async function timed(n: number, fn: () => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

function print(name: string, samples: number[], target: string): void {
  const s = summarize(samples);
  console.log(
    `${name}: p50 ${s.p50.toFixed(2)} ms / p99 ${s.p99.toFixed(2)} ms / max ${s.max.toFixed(2)} ms over ${s.n}   (target ${target})`,
  );
}

const h = await startHub();
try {
  const any = h.token(['relief'], 'agent');
  const cook = h.token(['read', 'cook'], 'agent');
  const stops = await timed(100, async () => {
    const res = await fetch(`${h.url}/svc/v1/safety/estop`, { method: 'POST', headers: { authorization: `Bearer ${any}` } });
    await res.arrayBuffer();
    if (res.status !== 202) throw new Error(`e-stop answered ${res.status}`);
    h.app.ctx.supervisor.reset('bench');
  });
  print('e-stop request to answer', stops, 'p99 < 20 ms');

  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'search_recipes', arguments: { query: 'koshary' } },
  });
  const headers = {
    authorization: `Bearer ${cook}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-06-18',
  };
  const calls = await timed(200, async () => {
    const res = await fetch(`${h.url}/svc/v1/mcp`, { method: 'POST', headers, body });
    const text = await res.text();
    if (!text.includes('example-koshari')) throw new Error(`unexpected MCP answer ${res.status}`);
  });
  print('MCP search_recipes call', calls, 'p99 < 50 ms');

  const sessionBody = JSON.stringify({
    recipes: [{ recipeId: 'example-koshari', servings: 4 }],
    serveAt: '2026-06-01T19:00:00Z',
    mode: 'assisted',
  });
  const creates = await timed(200, async () => {
    const res = await fetch(`${h.url}/svc/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${cook}`, 'content-type': 'application/json', 'idempotency-key': `bench-${randomUUID()}` },
      body: sessionBody,
    });
    await res.arrayBuffer();
    if (res.status !== 201) throw new Error(`create answered ${res.status}`);
  });
  print('POST /svc/v1/sessions', creates, 'p99 < 30 ms');
} finally {
  await h.close();
}
