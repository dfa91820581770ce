/**
 * The hostile mix of `npm run fuzz` (fuzz-surfaces.ts: REST, raw HTTP, MCP, SSE, WebSocket, MQTT, pairing,
 * webhooks, with the same weights as fuzz.ts) sent from this process to a hub in another one (cgroup-hub.ts), over
 * real sockets only. The same checks per answer: no 5xx, every HTTP error a problem document, no hang, no
 * JSON-RPC internal error; a 503 `memory-pressure` with Retry-After is counted as shed load, not as a failure.
 * The index server's MCP surface is left out: it is another server, not the hub.
 */

import type { CgroupHub } from './cgroup-hub.js';
import { Pick, rng } from './fuzz-cases.js';
import { OP_WEIGHTS, runOps, weightedPicker } from './fuzz-runner.js';
import { SURFACES, type Surface, surfaceOps, type Tally } from './fuzz-surfaces.js';

/** fuzz.ts's weights without the index server's surface. */
const WEIGHTS = OP_WEIGHTS.filter(([s]) => s !== 'indexmcp');

export interface HostileMix {
  /** Send `n` hostile calls, `concurrency` at a time. */
  run(n: number, concurrency?: number): Promise<void>;
  bySurface: Record<Surface, Tally>;
  /** The first 50 failures. */
  failures: string[];
  /** Calls sent so far. */
  sent(): number;
  /** Answers that were shed load (503 memory-pressure with Retry-After). */
  shed(): number;
}

export function hostileMix(hub: CgroupHub, seed: number): HostileMix {
  const p = new Pick(rng(seed));
  const bySurface = Object.fromEntries(
    SURFACES.map((s) => [s, { sent: 0, ok: 0, refused: 0, server5xx: 0, notProblem: 0, hangs: 0, internal: 0, shed: 0 }]),
  ) as Record<Surface, Tally>;
  const failures: string[] = [];
  const fail = (s: Surface, what: string) => {
    if (failures.length < 50) failures.push(`${s}: ${what}`);
  };
  const ops = surfaceOps({
    p,
    h: { url: hub.url, mqttUrl: hub.mqttUrl },
    valid: (token) => hub.valid.has(token),
    tokens: hub.tokens,
    kitchen: hub.kitchen,
    indexUrl: 'http://127.0.0.1:9',
    bySurface,
    fail,
  });
  const pick = weightedPicker(p, WEIGHTS);
  const run = (n: number, concurrency = 4) => runOps({ ops, pick, bySurface, fail, concurrency }, n);
  return {
    run,
    bySurface,
    failures,
    sent: () => SURFACES.reduce((s, k) => s + bySurface[k].sent, 0),
    shed: () => SURFACES.reduce((s, k) => s + (bySurface[k].shed ?? 0), 0),
  };
}
