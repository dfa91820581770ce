/**
 * Errors below the router are problem documents too, over a real socket: Node's parser refusals (bad request
 * line, bad header, header overflow), a request without Host, WebSocket handshakes `ws` would refuse as
 * text/html, an upgrade to a plain route, a plain GET on a WebSocket route; and HEAD on an SSE route ends at once.
 */
import { connect } from 'node:net';
import websocket from '@fastify/websocket';
import t from 'tap';
import { createHttpApp } from './app.js';
import { startSse } from './sse.js';

async function serve() {
  let base = '';
  const app = createHttpApp({ baseUrl: () => base });
  await app.register(websocket);
  app.get('/plain', async () => ({ ok: true }));
  app.get('/feed', (_req, reply) => {
    const res = startSse(reply);
    if (!res.writableEnded) res.write('data: {}\n\n');
  });
  app.get('/ws', { websocket: true }, (socket) => socket.close(1000, 'bye'));
  app.get('/ws-silent', { websocket: true }, () => {});
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  base = `http://127.0.0.1:${port}`;
  return { app, port, base };
}

/** Send raw bytes; resolve with everything the server answered once it closes the connection (or 20 s pass). */
function raw(port: number, data: string): Promise<string> {
  return new Promise((resolve) => {
    let out = '';
    const s = connect(port, '127.0.0.1', () => s.write(data));
    const timer = setTimeout(() => s.destroy(), 20_000);
    s.on('data', (d) => {
      out += d.toString();
      // One complete answer is enough: head plus a body of the announced length.
      const m = /content-length: (\d+)\r\n[\s\S]*?\r\n\r\n([\s\S]*)$/i.exec(out);
      if ((m && Buffer.byteLength(m[2] ?? '') >= Number(m[1])) || /^HTTP\/1\.1 101 /.test(out)) s.destroy();
    });
    s.on('error', () => {});
    s.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

function parse(answer: string): { status: number; headers: string; body: Record<string, unknown> } {
  const [head = '', ...rest] = answer.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(rest.join('\r\n\r\n')) as Record<string, unknown>;
  } catch {
    body = {};
  }
  return { status, headers: head.toLowerCase(), body };
}

const UPGRADE = 'Connection: Upgrade\r\nUpgrade: websocket\r\n';
const KEY = 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';

t.test('every refusal below the router is a problem document', async (t) => {
  const { app, port, base } = await serve();
  t.teardown(() => app.close());
  const cases: [string, string, number, string][] = [
    ['a malformed request line', 'GET\r\n\r\n', 400, 'bad-request'],
    ['a header without a colon', 'GET /plain HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', 400, 'bad-request'],
    ['an unknown method', 'FOO /plain HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad-request'],
    ['a bad Content-Length', 'POST /plain HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400, 'bad-request'],
    ['20 KB of headers', `GET /plain HTTP/1.1\r\nHost: x\r\nX-A: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers-too-large'],
    ['no Host', 'GET /plain HTTP/1.1\r\n\r\n', 400, 'bad-request'],
    [
      'an upgrade to a plain route',
      `GET /plain HTTP/1.1\r\nHost: x\r\n${UPGRADE}Sec-WebSocket-Version: 13\r\n${KEY}\r\n`,
      400,
      'bad-request',
    ],
    [
      'a WebSocket version ws does not speak',
      `GET /ws HTTP/1.1\r\nHost: x\r\n${UPGRADE}Sec-WebSocket-Version: 99\r\n${KEY}\r\n`,
      400,
      'bad-request',
    ],
    ['a WebSocket upgrade without a key', `GET /ws HTTP/1.1\r\nHost: x\r\n${UPGRADE}Sec-WebSocket-Version: 13\r\n\r\n`, 400, 'bad-request'],
    [
      'an upgrade to another protocol',
      `GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\nSec-WebSocket-Version: 13\r\n${KEY}\r\n`,
      400,
      'bad-request',
    ],
    ['a plain GET on a WebSocket route', 'GET /ws HTTP/1.1\r\nHost: x\r\n\r\n', 426, 'upgrade-required'],
  ];
  for (const [name, data, status, slug] of cases) {
    const r = parse(await raw(port, data));
    t.equal(r.status, status, `${name}: ${status}`);
    t.match(r.headers, /content-type: application\/problem\+json/, `${name}: problem media type`);
    t.match(r.body, { type: `${base}/errors/${slug}`, status, title: String }, `${name}: problem document`);
  }
  // A good handshake still upgrades.
  const ok = await raw(port, `GET /ws HTTP/1.1\r\nHost: x\r\n${UPGRADE}Sec-WebSocket-Version: 13\r\n${KEY}\r\n`);
  t.match(ok, /^HTTP\/1\.1 101 /, 'a valid handshake upgrades');
});

t.test('HEAD on an SSE route answers the head and ends', async (t) => {
  const { app, base } = await serve();
  t.teardown(() => app.close());
  const res = await fetch(`${base}/feed`, { method: 'HEAD', signal: AbortSignal.timeout(20_000) });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/event-stream/);
  t.equal(await res.text(), '', 'the response completes with no body');
});

/** Connect, send `data`, wait for an answer, then half-close (FIN) and resolve once the server closes the socket. */
function halfClose(port: number, data: string): Promise<{ answer: string; closedByServer: boolean }> {
  return new Promise((resolve) => {
    let out = '';
    const s = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => s.write(data));
    const timer = setTimeout(() => {
      s.destroy();
      resolve({ answer: out, closedByServer: false });
    }, 20_000);
    s.on('data', (d) => {
      out += d.toString();
      if (/\r\n\r\n/.test(out)) s.end();
    });
    s.on('error', () => {});
    s.on('end', () => {
      clearTimeout(timer);
      s.destroy();
      resolve({ answer: out, closedByServer: true });
    });
  });
}

t.test('a refused upgrade does not leave its connection open, even when the peer only half-closes', async (t) => {
  const { app, port } = await serve();
  t.teardown(() => app.close());
  for (const [name, data] of [
    ['no Host', `GET /ws HTTP/1.1\r\n${UPGRADE}Sec-WebSocket-Version: 13\r\n${KEY}\r\n`],
    ['a malformed URL', `GET /%zz HTTP/1.1\r\nHost: x\r\n${UPGRADE}Sec-WebSocket-Version: 13\r\n${KEY}\r\n`],
    ['an unknown route', `GET /nope HTTP/1.1\r\nHost: x\r\n${UPGRADE}Sec-WebSocket-Version: 13\r\n${KEY}\r\n`],
  ] as const) {
    const r = await halfClose(port, data);
    t.match(r.answer, /^HTTP\/1\.1 4\d\d /, `${name}: refused`);
    t.ok(r.closedByServer, `${name}: the server closed the connection`);
  }
  t.equal(await new Promise<number>((r) => app.server.getConnections((_e, n) => r(n))), 0, 'no connection left on the server');
});

t.test('close() ends every connection: keep-alive, SSE, a refused upgrade and a WebSocket whose peer is silent', async (t) => {
  const { app, port, base } = await serve();
  const closed: Promise<string>[] = [];
  const open = (label: string, data: string) =>
    new Promise<void>((ready) => {
      const s = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => {
        s.write(data);
        ready();
      });
      s.on('error', () => {});
      // The peer never answers a close frame nor half-closes: only the server can end this (the peer sees its FIN).
      closed.push(new Promise((resolve) => s.once('end', () => resolve(label))));
      s.resume();
    });
  await open('keep-alive', 'GET /plain HTTP/1.1\r\nHost: x\r\n\r\n');
  await open('sse', 'GET /feed HTTP/1.1\r\nHost: x\r\n\r\n');
  await open('websocket', `GET /ws-silent HTTP/1.1\r\nHost: x\r\n${UPGRADE}Sec-WebSocket-Version: 13\r\n${KEY}\r\n`);
  await open('a refused upgrade', `GET /ws HTTP/1.1\r\n${UPGRADE}Sec-WebSocket-Version: 13\r\n${KEY}\r\n`);
  // Let the server see all four before it closes.
  await fetch(`${base}/plain`);
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    app.close().then(() => Promise.all(closed)),
    new Promise<'stuck'>((r) => {
      timer = setTimeout(() => r('stuck'), 25_000);
    }),
  ]);
  clearTimeout(timer);
  t.not(outcome, 'stuck', 'close() finished and every client saw its connection end');
});
