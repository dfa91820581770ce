/**
 * whenQuiet runs its work once a real HTTP server has no request in flight and has had none for the quiet time,
 * never while a request is open, at the latest after the longest wait, and not at all once cancelled. Time is a
 * manual clock; the requests are real ones over a socket.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { ManualClock } from '../drivers/clock.js';
import { whenQuiet } from './when-quiet.js';

/** A server on 127.0.0.1:0 whose requests stay open until `release` is called. */
async function server(t: Test) {
  const open: ServerResponse<IncomingMessage>[] = [];
  let arrived: () => void = () => {};
  const s = createServer((_req, res) => {
    open.push(res);
    arrived();
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    s.closeAllConnections();
    s.close();
  });
  const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}/`;
  return {
    s,
    /** Send a request; resolves once the server holds it (its answer comes on `release`, or `abort` drops it). */
    request: () =>
      new Promise<{ answer: Promise<Response>; abort: () => Promise<void> }>((resolve) => {
        const ctl = new AbortController();
        const answer = fetch(url, { signal: ctl.signal });
        answer.catch(() => {});
        const res = () => open[open.length - 1] as ServerResponse<IncomingMessage>;
        arrived = () => {
          const held = res();
          resolve({
            answer,
            // Resolves once the server side saw the connection go.
            abort: () =>
              new Promise<void>((done) => {
                held.once('close', () => setImmediate(done));
                ctl.abort();
              }),
          });
        };
      }),
    /** Answer every open request; resolves once their answers are read. */
    release: async (sent: { answer: Promise<Response> }[]) => {
      for (const res of open.splice(0)) res.end('ok');
      for (const { answer } of sent) await (await answer).text();
      // The response's 'close' runs on the server side after its end; one turn of the loop lets it.
      await new Promise((r) => setImmediate(r));
    },
  };
}

t.test('waits while a request is open, then for the quiet time after the last one', async (t) => {
  const clock = new ManualClock(0);
  const { s, request, release } = await server(t);
  let runs = 0;
  const pending = whenQuiet(s, () => runs++, { clock, quietMs: 200, maxMs: 60_000 });
  const first = await request();
  clock.advance(1000);
  t.equal(runs, 0, 'not while a request is open, however long');
  await release([first]);
  clock.advance(150);
  t.equal(runs, 0, 'not before the quiet time has passed since the answer');
  clock.advance(300);
  t.equal(runs, 1, 'once quiet');
  t.ok(pending.done);
  const later = await request();
  clock.advance(5000);
  await release([later]);
  t.equal(runs, 1, 'once only');
});

t.test('a request the client gave up on is not in flight any more', async (t) => {
  const clock = new ManualClock(0);
  const { s, request } = await server(t);
  let runs = 0;
  whenQuiet(s, () => runs++, { clock, quietMs: 200, maxMs: 60_000 });
  const dropped = await request();
  clock.advance(1000);
  t.equal(runs, 0, 'not while it is open');
  await dropped.abort();
  clock.advance(450);
  t.equal(runs, 1, 'quiet once it is gone');
});

t.test('a server never quiet still runs it after the longest wait', async (t) => {
  const clock = new ManualClock(0);
  const { s, request, release } = await server(t);
  let runs = 0;
  whenQuiet(s, () => runs++, { clock, quietMs: 200, maxMs: 2000 });
  const open = await request();
  clock.advance(1800);
  t.equal(runs, 0);
  clock.advance(400);
  t.equal(runs, 1, 'at the longest wait, with a request still open');
  await release([open]);
});

t.test('a server with no request runs it after the quiet time; cancel stops it', async (t) => {
  const clock = new ManualClock(0);
  const { s } = await server(t);
  let runs = 0;
  whenQuiet(s, () => runs++, { clock, quietMs: 200 });
  clock.advance(200);
  t.equal(runs, 1);
  const cancelled = whenQuiet(s, () => runs++, { clock, quietMs: 200 });
  cancelled.cancel();
  clock.advance(10_000);
  t.equal(runs, 1, 'cancelled: never');
  t.notOk(cancelled.done);
  t.equal(s.listenerCount('request'), 1, 'its request listener is gone (the server keeps its own)');
});
