/**
 * Static files of a built index. `?v=<current catalog version>` makes a response immutable for a year;
 * anything else is cached briefly and revalidated by ETag. Paths outside the index, dot-files (other than
 * /.well-known/) and the build state are never served. No rate limit applies here (spec §8).
 */
import { readFile, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sha256Hex } from '../../../core/hash.js';
import { ProblemError } from '../../../platform/http/problems.js';

export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const SHORT = 'public, max-age=60, must-revalidate';

export function contentType(path: string): string {
  if (path.endsWith('.svc.json')) return 'application/vnd.svc+json';
  if (path.endsWith('.json')) return 'application/json; charset=utf-8';
  if (path.endsWith('.ndjson.gz') || path.endsWith('.gz')) return 'application/gzip';
  return 'application/octet-stream';
}

/** The file a URL path names inside `root`, or undefined when it must not be served. */
export function resolveStatic(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const segments = decoded.split('/').filter((s) => s !== '');
  if (segments.length === 0) return undefined;
  for (const [i, s] of segments.entries()) {
    if (s === '.' || s === '..') return undefined;
    if (s.startsWith('.') && !(i === 0 && s === '.well-known')) return undefined;
  }
  const base = resolve(root);
  const file = resolve(join(base, ...segments));
  return file.startsWith(base + sep) ? file : undefined;
}

interface CacheEntry {
  mtimeMs: number;
  size: number;
  etag: string;
}

export class StaticFiles {
  private readonly etags = new Map<string, CacheEntry>();

  constructor(
    readonly root: string,
    private readonly currentVersion: () => string,
  ) {}

  async handle(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const url = req.url;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const file = resolveStatic(this.root, path);
    if (file === undefined) throw new ProblemError('not-found', `no file at ${path}`);
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(file);
    } catch {
      throw new ProblemError('not-found', `no file at ${path}`);
    }
    if (!info.isFile()) throw new ProblemError('not-found', `no file at ${path}`);
    let cached = this.etags.get(file);
    let data: Buffer | undefined;
    if (!cached || cached.mtimeMs !== info.mtimeMs || cached.size !== info.size) {
      data = await readFile(file);
      cached = { mtimeMs: info.mtimeMs, size: info.size, etag: `"${sha256Hex(data).slice(0, 32)}"` };
      if (this.etags.size > 50_000) this.etags.clear();
      this.etags.set(file, cached);
    }
    const v = (req.query as Record<string, unknown> | undefined)?.v;
    const immutable = typeof v === 'string' && v === this.currentVersion();
    reply.header('cache-control', immutable ? IMMUTABLE : SHORT);
    reply.header('etag', cached.etag);
    reply.header('access-control-allow-origin', '*');
    reply.header('x-content-type-options', 'nosniff');
    reply.type(contentType(file));
    const inm = req.headers['if-none-match'];
    if (typeof inm === 'string' && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === cached.etag)) {
      return reply.code(304).send();
    }
    return reply.send(data ?? (await readFile(file)));
  }
}
