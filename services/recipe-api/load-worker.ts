/**
 * A worker thread of the catalog load (load-parallel.ts): takes the next file index from the shared counter,
 * reads and checks that file (recipe-check.ts: strict parse, schema, id, hash) and posts the text back with the
 * verdict, until no file is left. The main thread takes files from the same counter.
 */
import { setFlagsFromString } from 'node:v8';
import { type MessagePort, workerData } from 'node:worker_threads';

const { files, control, port, window, flags } = workerData as {
  files: string[];
  control: SharedArrayBuffer;
  port: MessagePort;
  window: number;
  /** The V8 flags the main thread had set (platform/young-generation.ts), which this thread's start put back. */
  flags?: string[];
};
// First, before loading the checker: the main thread is loading the catalog meanwhile (young-generation.ts).
for (const f of flags ?? []) setFlagsFromString(f);
const { checkFile } = await import('./recipe-check.js');
// [next file to take, answers posted, files the main thread has used]
const counters = new Int32Array(control);
for (;;) {
  // At most `window` files ahead of the main thread: their texts wait in its heap until it builds their rows.
  const used = Atomics.load(counters, 2);
  if (Atomics.load(counters, 0) - used > window) {
    Atomics.wait(counters, 2, used, 100);
    continue;
  }
  const i = Atomics.add(counters, 0, 1);
  if (i >= files.length) break;
  port.postMessage(checkFile(i, files[i] as string));
  Atomics.add(counters, 1, 1);
  Atomics.notify(counters, 1);
}
port.close();
