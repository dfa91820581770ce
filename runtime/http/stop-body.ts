/**
 * Bodies of the stop routes (the executor's stop, the hub's emergency stop): a stop is never refused for its
 * body. Whatever arrives (none, malformed JSON, any or a broken content type, any size, chunked or not) is
 * drained and discarded as it streams in; only its first few KiB are kept to read a `reason` from. Nothing
 * about the body can turn the answer into a 4xx: a body that is not what the route expects becomes a warning
 * in the log and in the answer. Heat is cut in `onRequest`, before any of this runs.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseJson } from '../../core/canonical.js';
import { controlActive } from '../../safety/controls.js';

/** Bytes of a stop body kept to read it; the rest is read and thrown away. */
export const STOP_BODY_KEEP = 8 * 1024;
/** Bytes drained before the server stops reading and closes the connection after answering. */
export const STOP_BODY_DRAIN_CAP = 64 * 1024 * 1024;
/** Longest accepted reason; a longer one is cut and warned about. */
export const REASON_MAX = 300;

export interface StopBody {
  /** The parsed JSON body, when the kept prefix was the whole body and parsed; undefined otherwise. */
  json?: unknown;
  /** Total bytes the client sent (up to the drain cap). */
  bytes: number;
  /** What was wrong with the body, if anything (never a reason to refuse). */
  warnings: string[];
}

type WithStopBody = FastifyRequest & { stopBody?: StopBody };

/** The body a stop route read (set in preParsing). */
export function stopBodyOf(req: FastifyRequest): StopBody {
  return (req as WithStopBody).stopBody ?? { bytes: 0, warnings: [] };
}

/** Read `payload` to its end (or to `cap` bytes), keeping only the first `keep` bytes. Never buffers more. */
async function drain(payload: NodeJS.ReadableStream, keep: number, cap: number): Promise<{ head: Buffer; bytes: number; capped: boolean }> {
  const parts: Buffer[] = [];
  let kept = 0;
  let bytes = 0;
  try {
    for await (const chunk of payload as AsyncIterable<Buffer | string>) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      bytes += buf.length;
      if (kept < keep) {
        const slice = buf.subarray(0, keep - kept);
        parts.push(slice);
        kept += slice.length;
      }
      if (bytes >= cap) return { head: Buffer.concat(parts), bytes, capped: true };
    }
  } catch {
    // An aborted or broken upload: the stop already happened; answer with what arrived.
  }
  return { head: Buffer.concat(parts), bytes, capped: false };
}

/**
 * Make every route of `scope` take any body without refusing: the body is drained in preParsing (bounded
 * memory), the request then looks bodiless to the router's parsers, and the route reads `stopBodyOf(req)`.
 * `stop-any-body` is the safety control: without it the scope keeps fastify's ordinary parsing, which refuses
 * malformed (400), oversized (413) and unknown-type (415) bodies.
 */
export function acceptAnyStopBody(scope: FastifyInstance): void {
  if (!controlActive('stop-any-body')) return;
  scope.addHook('preParsing', async (req, reply, payload) => {
    const headers = req.raw.headers;
    const hasBody = headers['transfer-encoding'] !== undefined || (headers['content-length'] ?? '0') !== '0';
    const type = headers['content-type'];
    const out: StopBody = { bytes: 0, warnings: [] };
    (req as WithStopBody).stopBody = out;
    if (!hasBody) return payload;
    const { head, bytes, capped } = await drain(payload, STOP_BODY_KEEP, STOP_BODY_DRAIN_CAP);
    out.bytes = bytes;
    if (capped) {
      out.warnings.push(`the body was larger than ${STOP_BODY_DRAIN_CAP} bytes; the rest was not read and the connection is closed`);
      reply.header('connection', 'close');
    }
    if (type !== undefined && !/^\s*application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
      out.warnings.push(`the body's content type ${JSON.stringify(type.slice(0, 100))} is not JSON; the body was ignored`);
    } else if (bytes > STOP_BODY_KEEP) {
      out.warnings.push(`the body (${bytes} bytes) is longer than ${STOP_BODY_KEEP} bytes; it was ignored`);
    } else if (bytes > 0) {
      try {
        out.json = parseJson(head.toString('utf8'));
      } catch (err) {
        out.warnings.push(`the body is not valid JSON (${(err as Error).message.slice(0, 120)}); it was ignored`);
      }
    }
    // From here the request has no body: no parser can refuse it.
    delete headers['content-type'];
    delete headers['transfer-encoding'];
    headers['content-length'] = '0';
    return Readable.from([]);
  });
}

/** A `reason` from a parsed stop body: a string up to REASON_MAX characters; anything else is a warning. */
export function reasonOf(body: StopBody, allowed: readonly string[] = ['reason']): string | undefined {
  const json = body.json;
  if (json === undefined || json === null) return undefined;
  if (typeof json !== 'object' || Array.isArray(json)) {
    body.warnings.push('the body is not a JSON object; it was ignored');
    return undefined;
  }
  const doc = json as Record<string, unknown>;
  const extra = Object.keys(doc).filter((k) => !allowed.includes(k));
  if (extra.length > 0) body.warnings.push(`unexpected members ignored: ${extra.slice(0, 5).join(', ').slice(0, 200)}`);
  return reasonValue(doc.reason, body.warnings);
}

/** Check one `reason` value, pushing a warning when it is not a string or too long. */
export function reasonValue(raw: unknown, warnings: string[]): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') {
    warnings.push(`reason must be a string, got ${raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw}; it was ignored`);
    return undefined;
  }
  if (raw.length > REASON_MAX) {
    warnings.push(`reason is ${raw.length} characters; it was cut to ${REASON_MAX}`);
    return raw.slice(0, REASON_MAX);
  }
  return raw;
}

/**
 * The `reason` of a stop sent as a message rather than a request body (the MQTT `estop` topic): `{"reason": …}`,
 * or the reason itself as a JSON string or plain text. Anything else, or a payload over STOP_BODY_KEEP bytes, is a warning and no
 * reason; never a refusal. Bounded work: at most STOP_BODY_KEEP bytes are decoded.
 */
export function reasonOfMessage(payload: Buffer | string): { reason?: string; warnings: string[] } {
  const warnings: string[] = [];
  const bytes = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
  if (bytes === 0) return { warnings };
  if (bytes > STOP_BODY_KEEP) {
    warnings.push(`the payload (${bytes} bytes) is longer than ${STOP_BODY_KEEP} bytes; it was ignored`);
    return { warnings };
  }
  const text = (typeof payload === 'string' ? payload : payload.toString('utf8')).trim();
  if (text === '') return { warnings };
  let json: unknown;
  try {
    json = parseJson(text);
  } catch {
    // Not JSON: the text is the reason (`mosquitto_pub -m 'oil smoking'`).
    const reason = reasonValue(text, warnings);
    return reason ? { reason, warnings } : { warnings };
  }
  const reason = typeof json === 'string' ? reasonValue(json, warnings) : reasonOf({ json, bytes, warnings });
  return reason ? { reason, warnings } : { warnings };
}
