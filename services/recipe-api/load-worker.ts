/**
 * A worker thread of the catalog load (load-parallel.ts): takes the next file index from the shared counter,
 * reads and checks that file (recipe-check.ts: strict parse, schema, id, hash) and posts the text back with the
 * verdict, until no file is left. The main thread takes files from the same counter.
 */
import { type MessagePort, workerData } from 'node:worker_threads';
import { checkFile } from './recipe-check.js';

const { files, control, port } = workerData as { files: string[]; control: SharedArrayBuffer; port: MessagePort };
const counters = new Int32Array(control);
for (let i = Atomics.add(counters, 0, 1); i < files.length; i = Atomics.add(counters, 0, 1)) {
  port.postMessage(checkFile(i, files[i] as string));
  Atomics.add(counters, 1, 1);
  Atomics.notify(counters, 1);
}
port.close();
