/**
 * `GET /svc/v1/sync` (scope read): the last verified state of each index and the last attempt.
 * `POST /svc/v1/sync` (scope admin, Idempotency-Key): sync now and answer the summary. A rejected or failed
 * sync is a normal answer (200, `outcome` says what happened and `reason` why; the old data stays).
 */
import type { FastifyInstance } from 'fastify';
import { ProblemError } from '../../platform/http/problems.js';
import { type SyncService, summaryLine } from './service.js';

export const SYNC_PATH = '/svc/v1/sync';

export function registerSyncRoutes(http: FastifyInstance, service: SyncService): void {
  http.get(SYNC_PATH, { config: { scope: 'read' } }, async () => service.status());
  http.post(SYNC_PATH, { config: { scope: 'admin', idempotency: 'required' } }, async () => {
    if (service.indexes.length === 0)
      throw new ProblemError('conflict', 'no index is configured; start the hub with --index URL --trust FILE');
    const results = await service.syncNow();
    return { results, summary: results.map(summaryLine) };
  });
}
