import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { FetchError, fetchBytes, TooLargeError } from './fetch.js';

t.test('fetchBytes: body, size caps (declared and streamed), HTTP errors, time limit', async (t) => {
  const server = createServer((req, res) => {
    if (req.url === '/ok') res.end('{"a":1}');
    else if (req.url === '/declared') {
      res.writeHead(200, { 'content-length': '5000' });
      res.end('x'.repeat(5000));
    } else if (req.url === '/chunked') {
      res.write('x'.repeat(3000));
      res.end('y'.repeat(3000));
    } else if (req.url === '/slow') setTimeout(() => res.end('late'), 2000);
    else {
      res.statusCode = 404;
      res.end('no');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const limits = { timeoutMs: 1000, maxBytes: 4096 };
  t.equal(Buffer.from(await fetchBytes(`${base}/ok`, limits)).toString(), '{"a":1}');
  await t.rejects(fetchBytes(`${base}/declared`, limits), TooLargeError);
  await t.rejects(fetchBytes(`${base}/chunked`, limits), /more than the 4096 bytes allowed/);
  await t.rejects(fetchBytes(`${base}/missing`, limits), /HTTP 404/);
  await t.rejects(fetchBytes(`${base}/slow`, { timeoutMs: 200, maxBytes: 100 }), /timed out/);
  const ac = new AbortController();
  ac.abort();
  const aborted = fetchBytes(`${base}/ok`, { ...limits, signal: ac.signal });
  await t.rejects(aborted, FetchError);
  await t.rejects(aborted, /aborted/);
});
