/**
 * How long the hub's event loop is held while it serves long or hostile work, measured on the loop itself
 * (perf_hooks monitorEventLoopDelay, 5 ms resolution) while the client runs in a worker thread (its parsing is
 * not charged to the hub's loop), after a baseline with the hub idle (the machine's own noise):
 *  - a client replays a 100,000-event journal over SSE with `Last-Event-ID: 0` (target: no block over 50 ms);
 *  - unauthenticated `POST /svc/v1/pair` bodies of 1, 10 and 50 MB of JSON arrays (the route reads at most
 *    4 KiB and answers 413; target the same).
 * The whole hub as `hearth start` builds it (test-support/hub-app.ts). Prints figures; never asserts.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { startFullHub } from '../test-support/hub-app.js';

const EVENTS = 100_000;
const h = await startFullHub();
const { bus, db } = h.app.ctx;

let t0 = performance.now();
db.transaction(() => {
  for (let i = 0; i < EVENTS; i++) {
    bus.emit('task.updated', {
      taskId: `task-${i}`,
      state: 'working',
      at: new Date(Date.UTC(2026, 5, 1, 16, 0, 0) + i).toISOString(),
      task: { id: `task-${i}`, kind: 'bench', state: 'working', note: 'a task update of ordinary size for the replay bench' },
    });
  }
})();
console.log(`journal: ${EVENTS} events written in ${((performance.now() - t0) / 1000).toFixed(1)} s (setup, not measured)`);

/** Run `work` (in a worker thread) while watching this loop; the longest block seen. */
async function watch(label: string, work: string, data: Record<string, unknown>): Promise<void> {
  const hist = monitorEventLoopDelay({ resolution: 5 });
  hist.enable();
  t0 = performance.now();
  const result = await new Promise<unknown>((resolve, reject) => {
    const w = new Worker(work, { eval: true, workerData: data });
    w.once('message', resolve);
    w.once('error', reject);
  });
  const took = performance.now() - t0;
  hist.disable();
  console.log(
    `${label}: ${JSON.stringify(result)} in ${(took / 1000).toFixed(1)} s; loop delay max ${(hist.max / 1e6).toFixed(1)} ms, p99 ${(hist.percentile(99) / 1e6).toFixed(1)} ms; mean ${(hist.mean / 1e6).toFixed(1)} ms (target: max < 50 ms)`,
  );
}

// The machine's own noise: the same measurement with the hub idle and a worker thread that only waits.
await watch(
  'baseline, the hub idle for 3 s',
  `const { parentPort } = require('node:worker_threads'); setTimeout(() => parentPort.postMessage('idle'), 3000);`,
  {},
);

const token = h.token(['read']);
await watch(
  `SSE replay of ${EVENTS} events (Last-Event-ID: 0)`,
  `
  const { parentPort, workerData } = require('node:worker_threads');
  (async () => {
    const ac = new AbortController();
    const res = await fetch(workerData.url + '/svc/v1/events', {
      headers: { authorization: 'Bearer ' + workerData.token, 'last-event-id': '0', accept: 'text/event-stream' },
      signal: ac.signal,
    });
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    let n = 0, tail = '', bytes = 0;
    while (n < workerData.events) {
      const { value, done } = await reader.read();
      if (done) break;
      bytes += value.length;
      const text = tail + dec.decode(value, { stream: true });
      const parts = text.split('\\n\\n');
      tail = parts.pop();
      for (const p of parts) if (/^id: /m.test(p) && /svc\\.task\\.updated/.test(p)) n++;
    }
    ac.abort();
    parentPort.postMessage({ status: res.status, replayed: n, mb: +(bytes / 1e6).toFixed(1) });
  })().catch((e) => parentPort.postMessage({ error: String(e) }));
  `,
  { url: h.url, token, events: EVENTS },
);

for (const mb of [1, 10, 50]) {
  await watch(
    `unauthenticated POST /svc/v1/pair, ${mb} MB of JSON arrays`,
    `
    const { parentPort, workerData } = require('node:worker_threads');
    (async () => {
      const item = '"' + 'x'.repeat(30) + '",';
      const chunk = '[' + item.repeat(Math.floor(1e6 / item.length)).slice(0, -1) + ']';
      const body = '{"name":"bench","scopes":[' + Array(workerData.mb).fill(chunk).join(',') + ']}';
      const res = await fetch(workerData.url + '/svc/v1/pair', { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .catch((e) => ({ status: 'connection ' + (e.cause?.code ?? e.message) }));
      parentPort.postMessage({ status: res.status });
    })().catch((e) => parentPort.postMessage({ error: String(e) }));
    `,
    { url: h.url, mb },
  );
}

await h.close();
process.exit(0);
