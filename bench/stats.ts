/** Small helpers for benchmarks: percentiles and a uniform way to print figures. */

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] as number;
}

export function summarize(samples: number[]): { min: number; p50: number; p99: number; max: number; n: number } {
  const s = [...samples].sort((a, b) => a - b);
  return { min: s[0] ?? Number.NaN, p50: percentile(s, 50), p99: percentile(s, 99), max: s[s.length - 1] ?? Number.NaN, n: s.length };
}

/** Run `fn` repeatedly for about `ms` milliseconds, `rounds` times; returns operations per second per round. */
export function throughput(fn: () => void, rounds = 5, ms = 1000): number[] {
  const out: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let n = 0;
    const start = performance.now();
    let now = start;
    while (now - start < ms) {
      for (let i = 0; i < 50; i++) fn();
      n += 50;
      now = performance.now();
    }
    out.push((n * 1000) / (now - start));
  }
  return out;
}

/** Print one figure line: `name: min/median/max unit (target …)`. */
export function report(name: string, values: number[], unit: string, target?: string): void {
  const s = [...values].sort((a, b) => a - b);
  const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2));
  const line = `${name}: min ${fmt(s[0] ?? Number.NaN)} / median ${fmt(percentile(s, 50))} / max ${fmt(s[s.length - 1] ?? Number.NaN)} ${unit}`;
  console.log(target ? `${line}   (target ${target})` : line);
}
