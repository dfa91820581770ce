/**
 * Sync as a feature of `hearth start`: its tables, the synced recipes as a source of the device's catalog
 * (so the executor and the hub can cook them), the recalls it verifies landing in the executor's recalls
 * table (checked before every session and execution, also offline; a `block_and_stop_running` recall also stops
 * a running execution of its revision, recall-stop.ts), GET/POST /svc/v1/sync, and a schedule
 * (`--sync-interval`, ±10 % jitter) when `--index` is configured.
 */
import type { KeyRecord } from '../../core/keys.js';
import type { AppContext, Feature } from '../app/context.js';
import { ConfigError } from '../config/config.js';
import { normalizeIndexUrl } from './client.js';
import { stopRecalledOnSync } from './recall-stop.js';
import { registerSyncRoutes } from './routes.js';
import { SyncScheduler, type Timers } from './scheduler.js';
import { readTrustFile, SyncService } from './service.js';
import { SyncedRecipes } from './source.js';
import { SyncStore, syncMigration } from './store.js';

export interface SyncFeatureOptions {
  timers?: Timers;
  random?: () => number;
  initialDelayMs?: number;
  timeoutMs?: number;
  /** Told once the service exists (tests). */
  onReady?: (service: SyncService) => void;
}

export function syncFeature(opts: SyncFeatureOptions = {}): Feature {
  let scheduler: SyncScheduler | undefined;
  let service: SyncService | undefined;
  let removeSource: (() => void) | undefined;
  let unwatchRecalls: (() => void) | undefined;
  return {
    name: 'sync',
    migrations: [syncMigration],
    start(ctx: AppContext) {
      const indexes: string[] = [];
      for (const raw of ctx.config.index ?? []) {
        try {
          const url = normalizeIndexUrl(raw);
          if (!indexes.includes(url)) indexes.push(url);
        } catch (err) {
          throw new ConfigError((err as Error).message);
        }
      }
      let trusted: KeyRecord[] = [];
      if (indexes.length > 0) {
        if (!ctx.config.trust) throw new ConfigError('--index needs --trust FILE: the key records whose signatures sync accepts');
        try {
          trusted = readTrustFile(ctx.config.trust);
        } catch (err) {
          throw new ConfigError((err as Error).message);
        }
      }
      const store = new SyncStore(ctx.db);
      const source = new SyncedRecipes(store, indexes);
      removeSource = ctx.recipes.addSource?.(source);
      if (!removeSource) ctx.log.warn({}, 'the recipe catalog takes no extra source; synced recipes cannot be cooked');
      const log = ctx.log.child({ component: 'sync' });
      service = new SyncService({
        store,
        recalls: ctx.executor.recalls,
        indexes,
        trusted,
        bus: ctx.bus,
        log,
        ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
      });
      // A block_and_stop_running recall stops a running execution of its revision right after the sync that brings it.
      unwatchRecalls = stopRecalledOnSync(ctx.bus, ctx.executor, log);
      registerSyncRoutes(ctx.http, service);
      if (indexes.length > 0) {
        const svc = service;
        scheduler = new SyncScheduler(() => svc.syncNow(), {
          intervalMs: ctx.config.syncInterval * 1000,
          initialDelayMs: opts.initialDelayMs ?? 1000,
          ...(opts.timers ? { timers: opts.timers } : {}),
          ...(opts.random ? { random: opts.random } : {}),
          onScheduled: (at) => {
            svc.nextAt = at;
          },
        });
      }
      opts.onReady?.(service);
    },
    ready() {
      scheduler?.start();
    },
    async stop() {
      scheduler?.stop();
      await service?.close();
      unwatchRecalls?.();
      removeSource?.();
    },
  };
}
