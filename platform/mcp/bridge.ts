/**
 * Serving an MCP SDK web-standard handler (`createMcpHandler`) from a fastify route: the fastify request becomes
 * a `Request` (its parsed JSON body goes along as `parsedBody`), the `Response` goes back with its status,
 * headers and body (a stream body, such as an SSE reply, passes through as it comes), with the SDK's -32603 for
 * params its validator refused answered as -32602 instead (invalid-params.ts).
 * Types only from the SDK: importing this module does not load it.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { createMcpHandler } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '../http/problems.js';
import { blameClientInResponse } from './invalid-params.js';

type McpHandler = ReturnType<typeof createMcpHandler>;
/** What the SDK's handler takes besides the request (the principal's `authInfo`, for one). */
export type McpFetchOptions = Omit<NonNullable<Parameters<McpHandler['fetch']>[1]>, 'parsedBody'>;

export async function serveMcp(
  req: FastifyRequest,
  reply: FastifyReply,
  handler: McpHandler,
  options: McpFetchOptions = {},
): Promise<FastifyReply> {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (typeof v === 'string') headers.set(k, v);
    else if (Array.isArray(v)) headers.set(k, v.join(', '));
  }
  let url: string;
  try {
    url = new URL(`http://${req.headers.host ?? 'localhost'}${req.url}`).href;
  } catch {
    // A Host no URL can carry is the client's mistake: 400, never a 500 from deep inside the SDK.
    throw new ProblemError('bad-request', 'the Host header is malformed');
  }
  const hasBody = req.method === 'POST' && req.body !== undefined;
  const request = new Request(url, { method: req.method, headers, ...(hasBody ? { body: JSON.stringify(req.body) } : {}) });
  const answered = await handler.fetch(request, { ...options, ...(hasBody ? { parsedBody: req.body } : {}) });
  // Params the SDK's validator refused are the client's mistake: -32602 naming them, not -32603 (invalid-params.ts).
  const response = hasBody ? blameClientInResponse(answered, req.body) : answered;
  reply.code(response.status);
  response.headers.forEach((value, key) => {
    if (key !== 'content-length' && key !== 'transfer-encoding') reply.header(key, value);
  });
  if (!response.body) return reply.send();
  return reply.send(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>));
}
