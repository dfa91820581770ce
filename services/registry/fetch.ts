/**
 * Bounded HTTP GETs for the registry's own checks: a recipe collection (only under an allowed base) and a
 * /.well-known/svc-verify record. No redirects are followed, bodies are capped and requests time out, so a
 * publisher's server can neither point the registry elsewhere nor hold it up.
 */
import type { FetchResult } from './validate.js';

export interface BoundedGetOptions {
  timeoutMs?: number;
  maxBytes?: number;
}

/** GET `url` and return its body, or say in one line why not. */
export async function boundedGet(url: string, opts: BoundedGetOptions = {}): Promise<FetchResult> {
  const maxBytes = opts.maxBytes ?? 5 * 1024 * 1024;
  let res: Response;
  try {
    res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(opts.timeoutMs ?? 5000) });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    const why = e.name === 'TimeoutError' ? 'timed out' : (e.cause?.code ?? e.message);
    return { ok: false, message: `could not fetch ${url}: ${why}` };
  }
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => undefined);
    return { ok: false, message: `fetching ${url} answered ${res.status}, expected 200 (redirects are not followed)` };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body ?? []) {
      size += chunk.length;
      if (size > maxBytes) {
        await res.body?.cancel().catch(() => undefined);
        return { ok: false, message: `${url} is larger than ${maxBytes} bytes` };
      }
      chunks.push(Buffer.from(chunk));
    }
  } catch (err) {
    return { ok: false, message: `reading ${url} failed: ${(err as Error).message}` };
  }
  return { ok: true, bytes: Buffer.concat(chunks) };
}

/** A fetcher for recipe collections that refuses any url outside `allowedBases`. */
export function collectionFetcher(allowedBases: readonly string[], opts: BoundedGetOptions = {}): (url: string) => Promise<FetchResult> {
  return async (url) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { ok: false, message: 'url is not a valid URL' };
    }
    const normal = parsed.href;
    if (!allowedBases.some((b) => normal.startsWith(b))) {
      const where = allowedBases.length
        ? `one of ${allowedBases.join(', ')}`
        : 'an allowed base (this registry allows none; see --recipe-base)';
      return { ok: false, message: `a recipe collection url must lie under ${where} so its recipes can be checked` };
    }
    return boundedGet(normal, opts);
  };
}
