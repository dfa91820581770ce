/**
 * `hearth sync`: sync the device's store with one or more indexes once, with a progress bar on a terminal,
 * and print one summary line per index (or `--json`). Exit 0 when every index applied or was unchanged,
 * 1 when one was rejected or unreachable (the old data stays), 2 for bad options.
 */
import type { KeyRecord } from '../../core/keys.js';
import { openCliDatabase } from '../cli/database.js';
import { CliError } from '../cli/errors.js';
import { RecallRepo, recallsMigration } from '../store/recalls.js';
import { normalizeIndexUrl } from './client.js';
import { syncProgress } from './progress.js';
import { readTrustFile, SyncService, summaryLine } from './service.js';
import { SyncStore, syncMigration } from './store.js';

export interface SyncCommandOptions {
  index: string[];
  trust: string;
  dataDir?: string;
  timeout?: string;
  json?: boolean;
}

export async function runSync(o: SyncCommandOptions): Promise<void> {
  const indexes: string[] = [];
  for (const raw of o.index) {
    try {
      const url = normalizeIndexUrl(raw);
      if (!indexes.includes(url)) indexes.push(url);
    } catch (err) {
      throw new CliError(`--index: ${(err as Error).message}`);
    }
  }
  let trusted: KeyRecord[];
  try {
    trusted = readTrustFile(o.trust);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  let timeoutMs = 15_000;
  if (o.timeout !== undefined) {
    const s = Number(o.timeout);
    if (!/^[0-9]+(\.[0-9]+)?$/.test(o.timeout) || s <= 0 || s > 600)
      throw new CliError('--timeout must be seconds, above 0 and at most 600');
    timeoutMs = s * 1000;
  }
  const db = openCliDatabase(o.dataDir, [recallsMigration, syncMigration]);
  try {
    const service = new SyncService({ store: new SyncStore(db), recalls: new RecallRepo(db), indexes, trusted, timeoutMs });
    const progress = syncProgress(o.json ? { write: () => true } : process.stdout);
    const results = await service.syncNow(progress.onProgress);
    progress.done();
    if (o.json) process.stdout.write(`${JSON.stringify({ results })}\n`);
    else for (const r of results) process.stdout.write(`${summaryLine(r)}\n`);
    if (results.some((r) => r.outcome === 'rejected' || r.outcome === 'failed')) process.exitCode = 1;
  } finally {
    db.close();
  }
}
