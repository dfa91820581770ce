/** Server-Sent Events: take the response over from fastify and send the stream's head. */
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/**
 * Hijack `reply`, write the `text/event-stream` head (no caching, no proxy buffering) and `retry:`; returns the raw
 * response. A `HEAD` request gets the head and an ended response at once (a stream has no length to announce, and
 * a HEAD must not hang): check `res.writableEnded` before following events.
 */
export function startSse(reply: FastifyReply, retryMs = 2000): ServerResponse {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  if (reply.request.method === 'HEAD') {
    res.end();
    return res;
  }
  res.write(`retry: ${retryMs}\n\n`);
  return res;
}
