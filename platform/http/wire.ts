/**
 * Errors that happen below fastify's router, as problem documents too:
 * - `clientErrorHandler`: what Node's HTTP parser refuses before there is a request (a malformed request line or
 *   header, headers over the size limit, a request that does not arrive in time) gets a problem document on the
 *   raw socket instead of fastify's own JSON, then the connection closes;
 * - `installWireChecks`: an HTTP/1.1 request without `Host` is a 400 problem (Node's own answer is an empty 400);
 *   a WebSocket route called without an upgrade is 426 `upgrade-required` (instead of an empty 404); a WebSocket
 *   handshake that the `ws` library would refuse with a text/html 400 (bad `Sec-WebSocket-Key` or version, an
 *   `Upgrade` that is not `websocket`) is a 400 problem; and an upgrade to a route that is not a WebSocket route
 *   is a 400 problem instead of a WebSocket that closes at once;
 * - `installUpgradeSockets`: a request with `Upgrade` leaves Node's connection handling (no further request is
 *   parsed on its socket, a peer's half-close does not end it, `closeAllConnections()` does not see it), so a
 *   refused upgrade's socket is destroyed once its answer is written, and closing the server destroys every
 *   upgrade socket still open, WebSockets included (their features said goodbye first).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { type ProblemSlug, problem } from '../../core/problems.js';
import { ProblemError } from './problems.js';

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/** Answer a parser-level client error with a problem document on the raw socket and close it. */
export function problemClientError(base: () => string): (err: NodeJS.ErrnoException, socket: Socket) => void {
  return (err, socket) => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    let slug: ProblemSlug = 'bad-request';
    let detail = 'the request is not valid HTTP/1.1';
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      slug = 'request-timeout';
      detail = 'the request did not arrive in time';
    } else if (err.code === 'HPE_HEADER_OVERFLOW') {
      slug = 'headers-too-large';
      detail = 'the request headers exceed 16 KiB';
    }
    let b = '';
    try {
      b = base();
    } catch {
      // no base URL yet (still starting): a relative type is still a problem document
    }
    const doc = problem(b, slug, detail);
    const body = JSON.stringify(doc);
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${doc.status} ${REASONS[doc.status] ?? 'Bad Request'}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}

const WS_KEY = /^[+/0-9A-Za-z]{22}==$/;

function isUpgrade(req: FastifyRequest): boolean {
  return typeof req.headers.upgrade === 'string' && /\bupgrade\b/i.test(String(req.headers.connection ?? ''));
}

/** Why `ws` would refuse this handshake (as text/html), or undefined when it would accept it. */
function badHandshake(req: FastifyRequest): string | undefined {
  if (String(req.headers.upgrade).toLowerCase() !== 'websocket') return 'the Upgrade header must be websocket';
  const version = req.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') return 'Sec-WebSocket-Version must be 13';
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string' || !WS_KEY.test(key.trim())) return 'Sec-WebSocket-Key is missing or malformed';
  const protocol = req.headers['sec-websocket-protocol'];
  if (protocol !== undefined && !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+( *, *[!#$%&'*+\-.^_`|~0-9A-Za-z]+)*$/.test(String(protocol))) {
    return 'Sec-WebSocket-Protocol is malformed';
  }
  return undefined;
}

export function installWireChecks(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((m) => m === 'HEAD')) return;
    const ws = !!(route as { websocket?: boolean; wsHandler?: unknown }).websocket || !!(route as { wsHandler?: unknown }).wsHandler;
    // A callback hook (a thrown refusal reaches fastify's error path as a rejection would): no promise per request.
    const check = (req: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
      if (req.method === 'HEAD' || (!ws && !isUpgrade(req))) return done();
      if (!ws) {
        if (req.routeOptions.config?.forwardsUpgrade !== true)
          throw new ProblemError('bad-request', `${req.routeOptions.url ?? 'this resource'} does not take a WebSocket upgrade`);
      } else if (!isUpgrade(req)) {
        throw new ProblemError(
          'upgrade-required',
          'this is a WebSocket resource: connect with Upgrade: websocket',
          {},
          {
            Upgrade: 'websocket',
            Connection: 'Upgrade',
          },
        );
      }
      const bad = badHandshake(req);
      if (bad) throw new ProblemError('bad-request', `WebSocket handshake: ${bad}`, {}, { 'Sec-WebSocket-Version': '13' });
      done();
    };
    const own = route.preValidation;
    route.preValidation = own === undefined ? [check] : [check, ...(Array.isArray(own) ? own : [own])];
  });
  app.addHook('onRequest', (req, _reply, done) => {
    if (req.raw.httpVersion === '1.1' && !req.headers.host)
      throw new ProblemError('bad-request', 'an HTTP/1.1 request needs a Host header');
    done();
  });
}

/** Sockets handed over by the server's `upgrade` event (Node parses no further request on them). */
const upgradeSockets = new WeakSet<Duplex>();

/** An upgrade request answered with anything but 101 gives up its socket once the answer is written. */
export function endRefusedUpgrade(req: IncomingMessage, res: ServerResponse): void {
  if (!upgradeSockets.has(req.socket)) return;
  res.once('finish', () => {
    if (res.statusCode !== 101) req.socket.destroy();
  });
}

/** See the module comment. Install before any other hook, so a refusal by an earlier hook is covered too. */
export function installUpgradeSockets(app: FastifyInstance): void {
  const open = new Set<Duplex>();
  app.server.on('upgrade', (_req: IncomingMessage, socket: Duplex) => {
    upgradeSockets.add(socket);
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  app.addHook('onRequest', (req, reply, done) => {
    endRefusedUpgrade(req.raw, reply.raw);
    done();
  });
  app.addHook('preClose', async () => {
    for (const socket of open) socket.destroy();
    open.clear();
  });
}
