/**
 * HTTP GET for sync: global fetch with a time limit and a size cap, so a slow or hostile index can neither
 * hang the device nor fill its memory. Every failure is a `FetchError` whose message names the URL and why.
 */

export class FetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FetchError';
  }
}

/** The response was larger than allowed: a check failure, not a network failure. */
export class TooLargeError extends FetchError {
  constructor(message: string) {
    super(message);
    this.name = 'TooLargeError';
  }
}

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
  /** Aborts the request (e.g. the device is shutting down). */
  signal?: AbortSignal;
}

function why(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return 'timed out';
  if (e?.name === 'AbortError') return 'aborted';
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}

/** GET `url` and return its body; refuses a body above `maxBytes` (declared or actual). */
export async function fetchBytes(url: string, limits: FetchLimits): Promise<Uint8Array> {
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const signal = limits.signal ? AbortSignal.any([timeout, limits.signal]) : timeout;
  let res: Response;
  try {
    res = await fetch(url, { signal, redirect: 'follow', headers: { accept: 'application/json, application/vnd.svc+json' } });
  } catch (err) {
    throw new FetchError(`GET ${url}: ${why(err)}`);
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    throw new FetchError(`GET ${url}: HTTP ${res.status}`);
  }
  const declared = Number(res.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limits.maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw new TooLargeError(`GET ${url}: ${declared} bytes is more than the ${limits.maxBytes} allowed`);
  }
  const reader = res.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limits.maxBytes) {
        await reader.cancel().catch(() => {});
        throw new TooLargeError(`GET ${url}: more than the ${limits.maxBytes} bytes allowed`);
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof FetchError) throw err;
    throw new FetchError(`GET ${url}: ${why(err)} after ${total} bytes`);
  }
  return Buffer.concat(chunks, total);
}
