/** Server-Sent Events: take the response over from fastify and send the stream's head. */
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/** Hijack `reply`, write the `text/event-stream` head (no caching, no proxy buffering) and `retry:`; returns the raw response. */
export function startSse(reply: FastifyReply, retryMs = 2000): ServerResponse {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write(`retry: ${retryMs}\n\n`);
  return res;
}
