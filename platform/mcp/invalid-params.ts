/**
 * JSON-RPC errors that blame the right side. The MCP SDK checks a spec request's params against its wire schema
 * and, when they fail (an `initialize` without `params`, a `resources/read` whose `uri` is a number, …), throws a
 * plain error: the client gets -32603 (internal error) whose message is the validator's JSON dump of issues.
 * That is the client's mistake, not the server's: this rewrites such an answer into -32602 (invalid params) naming
 * the method and each wrong member (`invalid params for initialize: params.protocolVersion: expected string,
 * received undefined`). The SDK's own -32602 answers that carry the same dump (`Invalid tools/call request: [...]`)
 * get the same readable message. Only answers whose message is such a dump are touched; any other -32603 (a real fault of
 * ours) passes unchanged, so the hostile-input harness still sees and counts it.
 *
 * It works on the SDK's HTTP answer, a JSON body or a server-sent event stream, event by event.
 */

const INTERNAL_ERROR = -32603;
export const INVALID_PARAMS = -32602;

interface Issue {
  path: (string | number)[];
  message: string;
}

/** The validator's issue list when `message` is one (a JSON array of `{code, path, message}`), else null. */
export function validationIssues(message: unknown): Issue[] | null {
  if (typeof message !== 'string' || !message.startsWith('[')) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return null;
  const issues: Issue[] = [];
  for (const i of parsed) {
    const o = i as { code?: unknown; path?: unknown; message?: unknown } | null;
    if (typeof o !== 'object' || o === null || typeof o.code !== 'string' || typeof o.message !== 'string' || !Array.isArray(o.path))
      return null;
    issues.push({ path: o.path.filter((p): p is string | number => typeof p === 'string' || typeof p === 'number'), message: o.message });
  }
  return issues;
}

/** `params.clientInfo.name: Invalid input: expected string, received undefined; …` (at most 5 issues). */
function describe(issues: Issue[]): string {
  const parts = issues
    .slice(0, 5)
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : 'the request'}: ${i.message.replace(/^Invalid input: /, '')}`);
  if (issues.length > 5) parts.push(`and ${issues.length - 5} more`);
  return parts.join('; ');
}

/** The method of each request id in a JSON-RPC body (one message or a batch). */
export function methodsById(body: unknown): Map<unknown, string> {
  const out = new Map<unknown, string>();
  for (const m of Array.isArray(body) ? body : [body]) {
    const r = m as { id?: unknown; method?: unknown } | null;
    if (typeof r === 'object' && r !== null && r.id !== undefined && typeof r.method === 'string') out.set(r.id, r.method);
  }
  return out;
}

/** One JSON-RPC message (or a batch) with validation dumps turned into -32602; the same object when untouched. */
export function blameClient(message: unknown, methods: Map<unknown, string>): unknown {
  if (Array.isArray(message)) {
    const mapped = message.map((m) => blameClient(m, methods));
    return mapped.some((m, i) => m !== message[i]) ? mapped : message;
  }
  const m = message as { id?: unknown; error?: { code?: unknown; message?: unknown } } | null;
  if (typeof m !== 'object' || m === null || typeof m.error !== 'object' || m.error === null) return message;
  const text = m.error.message;
  let issues: Issue[] | null = null;
  if (m.error.code === INTERNAL_ERROR) issues = validationIssues(text);
  else if (m.error.code === INVALID_PARAMS && typeof text === 'string' && text.endsWith(']'))
    // The SDK's own -32602 for tools/call carries the same dump after a prefix: keep the code, name the members.
    issues = validationIssues(text.slice(text.indexOf('[')));
  if (issues === null) return message;
  const method = methods.get(m.id);
  return {
    ...m,
    error: { code: INVALID_PARAMS, message: `invalid params${method ? ` for ${method}` : ''}: ${describe(issues)}` },
  };
}

/** Rewrite the `data:` lines of one server-sent event. */
function rewriteEvent(event: string, methods: Map<unknown, string>): string {
  return event
    .split('\n')
    .map((line) => {
      if (!line.startsWith('data:')) return line;
      const raw = line.slice(line.startsWith('data: ') ? 6 : 5);
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        return line;
      }
      const out = blameClient(parsed, methods);
      return out === parsed ? line : `data: ${JSON.stringify(out)}`;
    })
    .join('\n');
}

/** The SDK's answer to `body`, with validation failures answered as -32602 (JSON or an event stream). */
export function blameClientInResponse(response: Response, body: unknown): Response {
  const methods = methodsById(body);
  if (methods.size === 0 || !response.body) return response;
  const type = response.headers.get('content-type') ?? '';
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  if (type.startsWith('application/json')) {
    const rewritten = response.text().then((text) => {
      try {
        const parsed: unknown = JSON.parse(text);
        const out = blameClient(parsed, methods);
        return out === parsed ? text : JSON.stringify(out);
      } catch {
        return text;
      }
    });
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode(await rewritten));
        controller.close();
      },
    });
    return new Response(stream, { status: response.status, statusText: response.statusText, headers });
  }
  if (!type.startsWith('text/event-stream')) return response;
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = '';
  const transform = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true });
      let end = pending.indexOf('\n\n');
      while (end >= 0) {
        controller.enqueue(encoder.encode(`${rewriteEvent(pending.slice(0, end), methods)}\n\n`));
        pending = pending.slice(end + 2);
        end = pending.indexOf('\n\n');
      }
    },
    flush(controller) {
      pending += decoder.decode();
      if (pending.length > 0) controller.enqueue(encoder.encode(rewriteEvent(pending, methods)));
    },
  });
  return new Response(response.body.pipeThrough(transform), { status: response.status, statusText: response.statusText, headers });
}
