/**
 * Build progress on the console: a redrawn bar when the stream is a terminal, otherwise one plain line per
 * finished phase (so logs and pipes stay readable).
 */
import type { BuildProgress } from './build.js';

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(s: string): unknown;
}

const LABEL: Record<BuildProgress['phase'], string> = {
  read: 'reading recipes',
  write: 'writing recipes',
  pages: 'index pages and dump',
  sign: 'signing manifest',
};

/** A progress callback for `buildIndex` writing to `stream`; call `done()` after the build. */
export function consoleProgress(
  stream: ProgressStream,
  now: () => number = () => performance.now(),
): {
  onProgress: (p: BuildProgress) => void;
  done: () => void;
} {
  const tty = stream.isTTY === true;
  let lastDraw = 0;
  let drawn = false;
  let phase: BuildProgress['phase'] | undefined;
  let last: BuildProgress | undefined;
  const finishLine = (p: BuildProgress) => {
    if (tty) {
      if (drawn) stream.write('\n');
      drawn = false;
    } else
      stream.write(`${LABEL[p.phase]}: ${p.total === 1 && p.phase !== 'read' && p.phase !== 'write' ? 'done' : `${p.done}/${p.total}`}\n`);
  };
  const draw = (p: BuildProgress) => {
    const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - 40));
    const frac = p.total === 0 ? 1 : p.done / p.total;
    const filled = Math.round(frac * width);
    stream.write(
      `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.round(frac * 100)).padStart(3)}% ${LABEL[p.phase]} ${p.done}/${p.total}`,
    );
    drawn = true;
  };
  return {
    onProgress(p) {
      if (phase !== undefined && p.phase !== phase && last) finishLine(last);
      phase = p.phase;
      last = p;
      if (!tty) return;
      const t = now();
      if (p.done === p.total || t - lastDraw > 50) {
        lastDraw = t;
        draw(p);
      }
    },
    done() {
      if (last) finishLine(last);
      last = undefined;
      phase = undefined;
    },
  };
}
