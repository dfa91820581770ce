/**
 * How the hostile mix picks and sends its operations: the surfaces' weights and a runner that keeps `concurrency`
 * operations in flight, each under an outer bound that catches a client library left waiting. Used by the fuzz
 * harness (fuzz.ts) and by the mix sent to a hub in a memory cgroup (cgroup-mix.ts).
 */
import type { Pick } from './fuzz-cases.js';
import { HANG_MS, type OpSurface, type Surface, type Tally } from './fuzz-surfaces.js';

/** The share of each surface in the mix. */
export const OP_WEIGHTS: readonly [OpSurface, number][] = [
  ['rest', 34],
  ['raw', 6],
  ['mcp', 14],
  ['indexmcp', 5],
  ['sse', 8],
  ['websocket', 8],
  ['mqtt', 8],
  ['pairing', 10],
  ['webhooks', 12],
];

/** A seeded pick of a surface by its weight. */
export function weightedPicker(p: Pick, weights: readonly [OpSurface, number][] = OP_WEIGHTS): () => OpSurface {
  const total = weights.reduce((s, [, w]) => s + w, 0);
  return () => {
    let x = p.int(total);
    for (const [name, w] of weights) {
      if (x < w) return name;
      x -= w;
    }
    return 'rest';
  };
}

export interface RunOps {
  ops: Record<OpSurface, () => Promise<void>>;
  pick: () => OpSurface;
  bySurface: Record<Surface, Tally>;
  fail: (s: Surface, what: string) => void;
  /** How many operations are in flight at once (default 4). */
  concurrency?: number;
  /** Told every 100 operations. */
  progress?: (done: number, n: number) => void;
}

/** Send `n` operations. Each has its own 5 s bounds; the outer bound (3×) counts one left waiting as a hang. */
export async function runOps(o: RunOps, n: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      const name = o.pick();
      let timer: NodeJS.Timeout | undefined;
      const stuck = await Promise.race([
        o.ops[name]().then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), 3 * HANG_MS);
        }),
      ]);
      clearTimeout(timer);
      if (stuck) {
        o.bySurface[name].hangs++;
        o.fail(name, 'an operation did not finish within 15 s');
      }
      if (next % 100 === 0) o.progress?.(next, n);
    }
  };
  await Promise.all(Array.from({ length: o.concurrency ?? 4 }, worker));
}
