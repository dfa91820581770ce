/**
 * The heat guard's process, spawned ahead of its spec (`--spec-stdin`, runtime/guard/main.ts) so that Node's own
 * start-up of the guard (~80 ms here, several times that on a small board) runs while hearth loads its modules,
 * reads its configuration, device and recipes and opens its database, instead of after. Until
 * `startHeatGuard` (client.ts) writes the spec the process holds nothing and touches no output; a start-up that
 * fails first (a bad flag, a held data-directory lock, a bad database) disposes of it, and if hearth dies instead
 * the guard's stdin closes and it exits. The order "the database before the guard holds a line" is unchanged.
 *
 * `hearth start`'s entry (runtime/cli/run.ts) calls `prewarmGuard()` before it loads the rest of the CLI;
 * `claimWarmGuard()` hands that process to the start (or undefined, when nothing was prewarmed). A small module
 * on purpose: it is loaded before everything else.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * [args] for spawning the guard's entry: the compiled file, or the source through tsx. tsx is named by its
 * resolved location: a bare `--import tsx` would be looked up from the working directory, and `hearth start` run
 * from the sources in another directory then failed to start its guard.
 */
export function guardArgv(...args: string[]): string[] {
  const ts = import.meta.url.endsWith('.ts');
  const file = fileURLToPath(new URL(ts ? './main.ts' : './main.js', import.meta.url));
  return [...(ts ? ['--import', import.meta.resolve('tsx')] : []), file, ...args];
}

export interface WarmGuard {
  /** The waiting process, once (undefined when it exited, was taken, or cannot be written to, then ended); `dispose` then leaves it be. */
  take(): ChildProcess | undefined;
  /** End the process unless it was taken. */
  dispose(): void;
}

const alive = (c: ChildProcess) => c.exitCode === null && c.signalCode === null && c.pid !== undefined;

/** Spawn a guard that waits for its spec on stdin. It never keeps hearth's process alive by itself. */
export function prewarmHeatGuard(): WarmGuard {
  let child: ChildProcess | undefined = spawn(process.execPath, guardArgv('--spec-stdin'), {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  // A spawn failure surfaces when the spec would be written: startHeatGuard then spawns as usual.
  child.once('error', () => {});
  child.stdin?.on('error', () => {});
  child.unref();
  for (const s of [child.stdin, child.stdout]) (s as { unref?: () => void } | null)?.unref?.();
  return {
    take() {
      const c = child;
      child = undefined;
      if (c && alive(c) && c.stdin?.writable) return c;
      if (c && alive(c)) c.kill('SIGTERM'); // alive but unusable: never left waiting
      return undefined;
    },
    dispose() {
      const c = child;
      child = undefined;
      if (!c || !alive(c)) return;
      c.stdin?.end();
      c.kill('SIGTERM');
    },
  };
}

let early: WarmGuard | undefined;

/** Prewarm the guard for this process's `hearth start` (its entry calls this before loading anything else). */
export function prewarmGuard(): void {
  early ??= prewarmHeatGuard();
}

/** The process `prewarmGuard` started, once. */
export function claimWarmGuard(): WarmGuard | undefined {
  const w = early;
  early = undefined;
  return w;
}
