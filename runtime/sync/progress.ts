/** A progress bar for `hearth sync`, drawn only on a terminal (pipes and logs get the summary line only). */
import type { SyncProgress } from './client.js';

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(s: string): unknown;
}

export function syncProgress(
  stream: ProgressStream,
  now: () => number = () => performance.now(),
): { onProgress: (index: string, p: SyncProgress) => void; done: () => void } {
  let drawn = false;
  let last = Number.NEGATIVE_INFINITY;
  return {
    onProgress(_index, p) {
      if (stream.isTTY !== true) return;
      const t = now();
      if (p.done !== p.total && t - last < 50) return;
      last = t;
      const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - 40));
      const frac = p.total === 0 ? 1 : p.done / p.total;
      const filled = Math.round(frac * width);
      stream.write(
        `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.round(frac * 100)).padStart(3)}% ${p.phase} ${p.done}/${p.total}`,
      );
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}
