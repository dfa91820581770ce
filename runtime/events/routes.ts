/**
 * The hub's event feeds over HTTP: `GET /svc/v1/events` (Server-Sent Events) and `GET /svc/v1/events/ws`
 * (WebSocket, one CloudEvent JSON per text frame). Both take `types` (comma-separated type prefixes) and
 * `session`, and resume: SSE from `Last-Event-ID` (the journal position every event carries as its `id:`), the
 * WebSocket from `after` (a position or a CloudEvent id). Any paired token may connect; without `read` (or
 * `admin`) it receives safety events, availability and the events of its scopes' areas (a `relief` token's
 * `svc.relief.*`) only.
 */
import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { ProblemError } from '../../platform/http/problems.js';
import { PerTokenLimit, type RevocationWatch } from '../../platform/http/revocation.js';
import { startSse } from '../../platform/http/sse.js';
import { ANY_SCOPE, canReadAll, type EventFilter, FilterError, parseSession, parseTypes, scopeTypePrefixes } from './filter.js';
import type { EventHub } from './hub.js';
import type { EventJournal, StoredEvent } from './journal.js';
import { EventStream, type StreamTarget } from './stream.js';

export const EVENTS_PATH = '/svc/v1/events';
export const EVENTS_WS_PATH = '/svc/v1/events/ws';

export interface EventRoutesOptions {
  hub: EventHub;
  journal: EventJournal;
  /** Keep-alive interval: an SSE comment or a WebSocket ping (default 15 s). */
  keepAliveMs?: number;
  /** Most live events queued for one slow consumer before it is disconnected (default 10 000). */
  maxQueue?: number;
  /** The reconnection delay SSE clients are told (`retry:`, default 2000 ms). */
  retryMs?: number;
  /** Feeds (SSE and WebSocket together) one token may hold open at once (default 8); more answer 429. */
  maxStreamsPerToken?: number;
  /** Close the feeds of a token as soon as it is revoked. */
  revocations?: RevocationWatch;
}

export const DEFAULT_MAX_STREAMS_PER_TOKEN = 8;

function tooManyStreams(max: number): ProblemError {
  return new ProblemError('rate-limited', `this token already holds ${max} open event feeds: close one first`, {}, { 'Retry-After': '5' });
}

function filterOf(req: FastifyRequest): EventFilter {
  const q = (req.query ?? {}) as Record<string, unknown>;
  try {
    const session = parseSession(q.session);
    const scopes = req.principal?.scopes ?? [];
    return {
      types: parseTypes(q.types),
      ...(session !== undefined ? { session } : {}),
      readAll: canReadAll(scopes),
      alsoTypes: scopeTypePrefixes(scopes),
    };
  } catch (err) {
    if (err instanceof FilterError) throw new ProblemError('bad-request', err.message);
    throw err;
  }
}

/** A resume point: a journal position, or the id of a journalled CloudEvent. */
function resumeFrom(value: unknown, journal: EventJournal, what: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || value.length > 200) throw new ProblemError('bad-request', `${what} must be an event id or position`);
  if (/^[0-9]{1,15}$/.test(value)) return Number(value);
  const pos = journal.positionOf(value);
  if (pos === undefined)
    throw new ProblemError(
      'bad-request',
      `${what} ${JSON.stringify(value.slice(0, 80))} is not a journalled event (too old, or from another hub)`,
    );
  return pos;
}

function sseFrame(ev: StoredEvent): string {
  return ev.pos > 0 ? `id: ${ev.pos}\ndata: ${ev.body}\n\n` : `data: ${ev.body}\n\n`;
}

/** One consumer's connection: where its events go, how it is kept alive, closed and told of a failure. */
interface FeedConnection extends StreamTarget {
  keepAlive(): void;
  onClose(fn: () => void): void;
  fail(): void;
  /** The token holding the feed (its revocation closes it). */
  principalId: string;
}

export async function installEventRoutes(app: FastifyInstance, o: EventRoutesOptions): Promise<{ close(): void }> {
  const keepAliveMs = o.keepAliveMs ?? 15_000;
  const open = new Set<FeedConnection>();
  const perToken = new PerTokenLimit(o.maxStreamsPerToken ?? DEFAULT_MAX_STREAMS_PER_TOKEN);
  const offRevoke = o.revocations?.onRevoke((ids) => {
    for (const c of [...open]) if (ids.has(c.principalId)) c.close('token revoked');
  });
  if (!app.hasDecorator('websocketServer')) await app.register(websocket, { options: { maxPayload: 64 * 1024 } });

  /** Replay from `after`, then follow live events, until the connection closes. */
  const feed = (req: FastifyRequest, filter: EventFilter, after: number | undefined, conn: FeedConnection, release: () => void) => {
    const stream = new EventStream({
      hub: o.hub,
      journal: o.journal,
      filter,
      ...(o.maxQueue !== undefined ? { maxQueue: o.maxQueue } : {}),
      target: { send: (ev) => conn.send(ev), drain: () => conn.drain(), close: (reason) => conn.close(reason) },
    });
    const timer = setInterval(() => conn.keepAlive(), keepAliveMs);
    timer.unref();
    open.add(conn);
    conn.onClose(() => {
      clearInterval(timer);
      stream.close();
      open.delete(conn);
      release();
    });
    stream.start(after).catch((err) => {
      req.log.error({ err }, 'event stream failed');
      conn.fail();
    });
  };

  app.get(EVENTS_PATH, { config: { scope: ANY_SCOPE } }, (req, reply) => {
    const filter = filterOf(req);
    const q = (req.query ?? {}) as Record<string, unknown>;
    const header = req.headers['last-event-id'];
    const after = resumeFrom(typeof header === 'string' ? header : q.lastEventId, o.journal, 'Last-Event-ID');
    const principalId = req.principal?.id ?? '';
    const release = perToken.take(principalId);
    if (!release) throw tooManyStreams(perToken.max);
    const res = startSse(reply, o.retryMs ?? 2000);
    if (res.writableEnded) return release(); // HEAD: the head only
    feed(
      req,
      filter,
      after,
      {
        principalId,
        send: (ev) => (res.writableEnded ? true : res.write(sseFrame(ev))),
        drain: () =>
          new Promise<void>((resolve) => {
            if (res.writableEnded || res.destroyed) return resolve();
            const done = () => {
              res.off('drain', done);
              res.off('close', done);
              resolve();
            };
            res.on('drain', done);
            res.on('close', done);
          }),
        close: () => res.end(),
        keepAlive: () => res.write(': keep-alive\n\n'),
        onClose: (fn) => res.on('close', fn),
        fail: () => res.end(),
      },
      release,
    );
  });

  const wsParams = new WeakMap<FastifyRequest, { filter: EventFilter; after: number | undefined }>();
  // Checked before the upgrade, so a bad filter is an HTTP 400 problem, not a closed socket (the scope of
  // `config.scope` is checked just before, also in preValidation: see installBearerAuth).
  const preValidation = async (req: FastifyRequest) => {
    const q = (req.query ?? {}) as Record<string, unknown>;
    const header = req.headers['last-event-id'];
    if (perToken.count(req.principal?.id ?? '') >= perToken.max) throw tooManyStreams(perToken.max);
    wsParams.set(req, { filter: filterOf(req), after: resumeFrom(typeof header === 'string' ? header : q.after, o.journal, 'after') });
  };
  app.get(EVENTS_WS_PATH, { websocket: true, config: { scope: ANY_SCOPE }, preValidation }, (socket: WebSocket, req) => {
    const params = wsParams.get(req);
    if (!params) {
      socket.close(1011, 'internal error');
      return;
    }
    const principalId = req.principal?.id ?? '';
    const release = perToken.take(principalId);
    if (!release) {
      socket.close(1008, 'too many open event feeds for this token');
      return;
    }
    const LIMIT = 1 << 20;
    socket.on('message', () => {}); // the feed is one-way; anything the client sends is ignored
    feed(
      req,
      params.filter,
      params.after,
      {
        principalId,
        send: (ev) => {
          if (socket.readyState !== socket.OPEN) return true;
          socket.send(ev.body);
          return socket.bufferedAmount < LIMIT;
        },
        drain: async () => {
          while (socket.readyState === socket.OPEN && socket.bufferedAmount >= LIMIT) await new Promise((r) => setTimeout(r, 10));
        },
        close: (reason) => socket.close(reason === 'token revoked' ? 1008 : 1013, reason.slice(0, 120)),
        keepAlive: () => socket.ping(),
        onClose: (fn) => socket.on('close', fn),
        fail: () => socket.close(1011, 'internal error'),
      },
      release,
    );
  });

  return {
    close() {
      offRevoke?.();
      for (const c of [...open]) c.close('hub shutting down');
    },
  };
}
