/**
 * The catalog load spread over worker threads, when asked for (HEARTH_LOAD_WORKERS; off by default, see
 * loadWorkers): reading, strictly parsing, validating and hash-checking the documents is most of a cold start and
 * each document is independent. Workers (load-worker.ts) and this thread take files from one shared counter; a
 * worker posts each file's text with its verdict, and this thread parses that same text again (plain `JSON.parse`
 * when the strict parser would give the same value) to build the row. Nothing is served that was not checked:
 * a worker's verdict is for exactly the text this thread parses, and a file a worker reports bad stops the load
 * with that reason, in file order as a serial load would.
 *
 * The load stays synchronous: this thread waits on the shared counter (Atomics.wait) and takes the workers'
 * messages with `receiveMessageOnPort`, so it needs no event loop. It never depends on a worker: when no worker
 * starts, this thread takes every file; a file a worker took but has not answered for STALL_MS is checked here.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { keptFlags } from '../../platform/young-generation.js';
import { CatalogError, type Checked, documentOf, readRecipe } from './recipe-check.js';
import type { Json } from './rows.js';

/** Below this many files a worker's start (~10-20 ms of CPU, its own copy of the validators) does not pay. */
export const PARALLEL_MIN_FILES = 200;
const MAX_WORKERS = 8;
const STALL_MS = 5000;
/**
 * The same for `workersOnly` (tests, which check that the workers answered every file): a loaded machine may keep
 * a worker from starting for longer than STALL_MS (seen once at load average 6.6), and this thread taking over
 * then would fail the test for nothing; a worker truly gone is still covered, later.
 */
const STALL_MS_WORKERS_ONLY = 60_000;
/**
 * How far (in files) the workers may run ahead of this thread: the texts they checked wait in this thread's heap
 * until it builds their rows, so without a bound most of a catalog's texts could sit there at once.
 */
const WINDOW = 32;

/** The worker's module: compiled beside this one, or the TypeScript source when a loader runs this process. */
function workerFile(): URL | undefined {
  const js = new URL('./load-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(js))) return js;
  const ts = new URL('./load-worker.ts', import.meta.url);
  const loader = process.execArgv.some((a) => /^--(?:import|loader|experimental-loader)/.test(a));
  return loader && existsSync(fileURLToPath(ts)) ? ts : undefined;
}

/**
 * How many worker threads a load of `files` documents uses: `requested` when given, else HEARTH_LOAD_WORKERS for a
 * catalog of at least PARALLEL_MIN_FILES; 0 (a serial load) otherwise, which is the default. Off by default because
 * it did not pay where it was measured (docs/recipe-api.md, 2,000 recipes on a shared 2-core machine): the main
 * thread's CPU to the first answer went ~910 -> ~700 ms, but the first answer came no sooner (V8's own threads
 * already keep a second core busy during a serial load) and two workers left the process at ~99 MB resident, at the
 * edge of the 100 MB a small board's recipe API is allowed. With 10,000 recipes one worker did shorten a cold start
 * (3.5 -> 2.7 s). Worth trying where cores are free and memory is not tight.
 */
export function loadWorkers(files: number, requested?: number, env: NodeJS.ProcessEnv = process.env): number {
  const fromEnv = Number(env.HEARTH_LOAD_WORKERS ?? '0');
  const n = requested ?? (files >= PARALLEL_MIN_FILES && Number.isInteger(fromEnv) && fromEnv > 0 ? Math.min(fromEnv, MAX_WORKERS) : 0);
  return n > 0 && workerFile() !== undefined ? Math.min(n, files) : 0;
}

type Done = Checked | { own: Json } | { fail: CatalogError };

export interface ParallelReader {
  /** The checked document of file `i` (in order: each once); throws `CatalogError` for a bad one. */
  get(i: number): Json;
  /** Let go of the workers' ports and end the workers (a finished load's have ended on their own). */
  close(): void;
  /** Worker threads started, and how many files they checked whose answers were used. */
  threads: number;
  byWorkers(): number;
}

/**
 * `workersOnly` (tests): this thread takes no file itself while a worker runs, so that a small catalog, checked
 * before a worker would have started, still goes through them (a file no worker answers within STALL_MS is
 * still checked here).
 */
export function parallelReader(files: readonly string[], workers: number, workersOnly = false): ParallelReader {
  const control = new SharedArrayBuffer(12);
  const counters = new Int32Array(control); // [next file to take, answers posted, files used here]
  const url = workerFile();
  const ports: MessagePort[] = [];
  const threads: Worker[] = [];
  for (let w = 0; url !== undefined && w < workers; w++) {
    const { port1, port2 } = new MessageChannel();
    try {
      const worker = new Worker(url, {
        workerData: { files, control, port: port2, window: WINDOW, flags: keptFlags() },
        transferList: [port2],
      });
      worker.unref();
      // A worker that fails leaves its files to this thread (see above); nothing to report.
      worker.on('error', () => {});
      ports.push(port1);
      threads.push(worker);
    } catch {
      port1.close();
    }
  }
  const done: (Done | undefined)[] = new Array(files.length);
  const drain = () => {
    for (const p of ports)
      for (let m = receiveMessageOnPort(p); m !== undefined; m = receiveMessageOnPort(p)) {
        const c = m.message as Checked;
        done[c.i] ??= c;
      }
  };
  const checkHere = (j: number): Done => {
    try {
      return { own: readRecipe(files[j] as string) };
    } catch (err) {
      if (err instanceof CatalogError) return { fail: err };
      throw err;
    }
  };
  let byWorkers = 0;
  let only = workersOnly;
  const stallMs = workersOnly ? STALL_MS_WORKERS_ONLY : STALL_MS;
  const get = (i: number): Json => {
    let waited = 0;
    for (;;) {
      const d = done[i];
      if (d !== undefined) {
        done[i] = undefined; // the text is not needed any more
        Atomics.store(counters, 2, i + 1);
        Atomics.notify(counters, 2);
        if ('own' in d) return d.own;
        if ('fail' in d) throw d.fail;
        byWorkers++;
        return documentOf(files[i] as string, d);
      }
      const seen = Atomics.load(counters, 1);
      drain();
      if (done[i] !== undefined) continue;
      if (!only || ports.length === 0) {
        const mine = Atomics.add(counters, 0, 1);
        if (mine < files.length) {
          done[mine] = checkHere(mine);
          continue;
        }
      }
      // Every file is taken: file i is a worker's; wait for its answer, or check it here after STALL_MS.
      if (Atomics.wait(counters, 1, seen, 50) === 'timed-out') waited += 50;
      if (waited >= stallMs) {
        done[i] ??= checkHere(i);
        waited = 0;
        only = false; // the workers are stuck or gone: this thread takes files again
      }
    }
  };
  return {
    get,
    threads: ports.length,
    byWorkers: () => byWorkers,
    close: () => {
      for (const p of ports) p.close();
      // A load that stopped at a bad file leaves workers waiting for this thread to move on: end them.
      for (const w of threads) void w.terminate();
    },
  };
}
