/**
 * The `hearth start` process as one App: a context (runtime/app/context.ts) and an ordered list of features.
 * The core feature (store tables, tokens, idempotency, supervisor, executor, Core API, simulator surface) is
 * always first; other features (the hub's sessions, MQTT, events, MCP) are added with `use()` before
 * `start()`. `hearth start` has driven every output off from the rig file before this runs (run.ts); the
 * rig's outputs are cut again as soon as it exists and when it opens, before anything else runs.
 */

import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import { acceleratedClock, ManualClock, systemClock } from '../../drivers/clock.js';
import { createRig, loadRigConfig, type RigConfig } from '../../drivers/rig.js';
import type { Clock } from '../../drivers/types.js';
import { createHttpApp } from '../../platform/http/app.js';
import { installHostGuard } from '../../platform/http/host-guard.js';
import { installLoadShedding, memoryReading, type Shedder } from '../../platform/http/shed.js';
import { type IdleCollector, startIdleCollector } from '../../platform/idle-collect.js';
import { humanDestination } from '../../platform/log-format.js';
import { MigrationRegistry } from '../../platform/sqlite/migrations.js';
import { ConfigError, type HearthConfig } from '../config/config.js';
import { type DeviceConfig, loadDevice } from '../config/device.js';
import { loadRecipes, type RecipeCatalog } from '../config/recipes.js';
import { EventBus } from '../events/bus.js';
import type { HeatGuard } from '../guard/client.js';
import { openDatabase } from '../store/db.js';
import { createSupervisor, type SupervisorContext } from '../supervisor/supervisor.js';
import type { SupervisorStatus } from '../supervisor/types.js';
import type { AppContext, Feature } from './context.js';
import { coreFeature, coreMigrations } from './core-feature.js';

export interface AppOptions {
  /** Device clock (tests inject a ManualClock). Default from the config's simSpeed. */
  clock?: Clock;
  logger?: Logger;
  device?: DeviceConfig;
  recipes?: RecipeCatalog;
  /** `:memory:` keeps the store in memory (tests). */
  database?: ':memory:';
  /** Supervisor tuning (tests only; never switches a check off). */
  supervisor?: Pick<SupervisorContext, 'sampleMs' | 'leaseMs' | 'watchdogStallMs'>;
  /** Executor tick in clock ms (default 500). */
  tickMs?: number;
  /**
   * Start the heat guard that will hold the heater lines (`hearth start` does; runtime/guard). Called once the
   * database is open, so a start-up that fails on its data never started one; the app closes it on stop.
   */
  heatGuard?: (rig: RigConfig) => Promise<HeatGuard | undefined>;
}

/** The configured names plus the listen address and the public URL's host (when they name one). */
function hostsOf(config: HearthConfig): string[] {
  const out = [...(config.allowedHosts ?? [])];
  if (config.host !== '0.0.0.0' && config.host !== '::') out.push(config.host);
  if (config.publicUrl) {
    try {
      out.push(new URL(config.publicUrl).hostname);
    } catch {
      throw new ConfigError(`/publicUrl ${JSON.stringify(config.publicUrl)} is not a URL`);
    }
  }
  return out;
}

function clockFor(config: HearthConfig, simulated: boolean): { clock: Clock; manual?: ManualClock } {
  if (!simulated) return { clock: systemClock };
  if (config.simSpeed === 'manual') {
    const manual = new ManualClock(Date.now());
    return { clock: manual, manual };
  }
  return { clock: config.simSpeed === 1 ? systemClock : acceleratedClock(config.simSpeed) };
}

function hostForUrl(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** No heater on (or its wire not cut) and no heat lease held: the only time the idle collector may pause the loop. */
export function nothingHeats(status: SupervisorStatus): boolean {
  return Object.values(status.heaters).every((h) => (h.power === 0 || h.wire === 'cut') && h.leaseExpiresAt === undefined);
}

export class App {
  readonly ctx: AppContext;
  private readonly features: Feature[] = [];
  private started = false;
  private stopped = false;
  private guard?: HeatGuard;
  private idle?: IdleCollector;
  /** Load shedding near the memory limit (tests swap its reading). */
  shedder?: Shedder;
  private url: string;

  private constructor(ctx: AppContext) {
    this.ctx = ctx;
    this.url = ctx.config.publicUrl ?? `http://${hostForUrl(ctx.config.host)}:${ctx.config.httpPort}`;
    ctx.baseUrl = () => this.url;
  }

  static async create(config: HearthConfig, opts: AppOptions = {}): Promise<App> {
    // JSON lines for journald and log shippers; readable lines when a person watches the terminal.
    const dest = process.stderr.isTTY ? humanDestination(process.stderr) : pino.destination(2);
    const log = opts.logger ?? pino({ level: config.logLevel, base: { service: 'hearth' } }, dest);
    const allowedHosts = hostsOf(config);
    const device = opts.device ?? loadDevice(config.device, config.limits);
    const recipes = opts.recipes ?? loadRecipes(config.recipes);
    for (const s of recipes.skipped) log.warn({ file: s.file, reason: s.reason }, 'recipe not loaded');
    let rigConfig: RigConfig;
    if (config.rig === 'simulated') rigConfig = { kind: 'simulated', ...(config.simSpeed !== 'manual' ? { speed: config.simSpeed } : {}) };
    else {
      try {
        rigConfig = loadRigConfig(config.rig);
      } catch (err) {
        throw new ConfigError((err as Error).message);
      }
    }
    const simulated = rigConfig.kind === 'simulated';
    if (config.faults && config.faults.length > 0) {
      // `--fault`: scheduled on the simulated rig only; a real rig's faults are made by hand (docs/hil.md).
      if (rigConfig.kind !== 'simulated') throw new ConfigError('--fault needs the simulated rig (a real rig cannot fake a fault)');
      rigConfig = { ...rigConfig, faults: [...(rigConfig.faults ?? []), ...config.faults] };
    }
    const { clock, manual } = opts.clock
      ? { clock: opts.clock, manual: opts.clock instanceof ManualClock ? opts.clock : undefined }
      : clockFor(config, simulated);
    // The database before the guard and the rig: a start-up that fails on its data has switched nothing on.
    const db = openDatabase(opts.database ?? config.dataDir);
    let guard: HeatGuard | undefined;
    let rig: Awaited<ReturnType<typeof createRig>>;
    let supervisor: ReturnType<typeof createSupervisor>;
    let bus: EventBus;
    try {
      guard = await opts.heatGuard?.(rigConfig);
      try {
        rig = await createRig(rigConfig, { clock, ...(guard ? { wires: guard } : {}) });
      } catch (err) {
        // A simulated rig refuses a fault on a sensor or heater it does not have.
        if (simulated) throw new ConfigError((err as Error).message);
        throw err;
      }
      rig.allHeatOff();
      bus = new EventBus((err, name) => log.error({ err, event: name }, 'event listener failed'));
      const s = createSupervisor({
        rig,
        bus,
        clock,
        limits: device.limitSets,
        // Routine lease traffic at debug; trips, resets and limit changes at info (trips also go on the bus).
        log: (entry) =>
          entry.event === 'heat_refused' || entry.event === 'lease_expired'
            ? log.debug(entry, 'supervisor')
            : log.info(entry, 'supervisor'),
        // A simulated rig's stall tolerance is the loop watchdog's threshold too (drivers/rig-config.ts).
        ...(rigConfig.kind === 'simulated' && rigConfig.stallToleranceMs ? { watchdogStallMs: rigConfig.stallToleranceMs } : {}),
        // Status reads the wire as the guard holds it: a line it cut is off even before its report is read.
        ...(guard ? { wire: (heater: string) => guard?.wire(heater) } : {}),
        ...opts.supervisor,
      });
      supervisor = s;
      // The heat guard cut the lines (a late lease renewal with heat on): the trip names it or the loop watchdog,
      // whichever cut first. The guard died: latch at once.
      guard?.onTrip(({ lateMs, heaters, cutAt }) =>
        s.reportCut({
          by: 'heat guard',
          at: cutAt,
          act: `the heat guard cut ${heaters.join(', ')}`,
          why: `no lease renewal for ${lateMs} ms with heat on`,
          subject: 'all',
          hint: 'hearth was frozen, stalled or starved of CPU with heat on: check the appliance and the log, then reset.',
        }),
      );
      guard?.onLost((why) => s.cutAll('watchdog', `${why}; hearth drove every guarded heater line off itself`));
    } catch (err) {
      await guard?.close();
      db.close();
      throw err;
    }
    const ctx = {
      config,
      log,
      bus,
      clock,
      manualClock: manual,
      db,
      migrations: new MigrationRegistry().add(...coreMigrations),
      device,
      recipes,
      rig,
      supervisor,
      baseUrl: () => '',
    } as Partial<AppContext> as AppContext;
    ctx.http = createHttpApp({ baseUrl: () => ctx.baseUrl(), loggerInstance: log.child({ component: 'http' }) });
    // First hook of all: a page on another name (DNS rebinding) learns nothing, not even whether a token is needed.
    installHostGuard(ctx.http, { allowedHosts });
    // Near its memory limit (the unit's MemoryMax=, or HEARTH_MEMORY_LIMIT_MB) the hub refuses new requests
    // with 503 memory-pressure rather than be killed; stops are always served (platform/http/shed.ts).
    const reading = memoryReading();
    const shedder = installLoadShedding(ctx.http, { baseUrl: () => ctx.baseUrl(), reading });
    if (reading) log.info({ limitMb: Math.round(reading.limit / 1048576), source: reading.source }, 'memory limit: shedding load near it');
    const app = new App(ctx);
    app.shedder = shedder;
    app.guard = guard;
    // A manual clock moves no further while a heater line write is still on its way to the guard.
    if (manual && guard) manual.settleWith = () => guard.settled();
    app.features.push(coreFeature({ simulated, tickMs: opts.tickMs, ...(opts.database ? {} : { dataDir: config.dataDir }) }));
    return app;
  }

  /** Add a feature; it starts after the ones before it. */
  use(feature: Feature): this {
    if (this.started) throw new Error(`feature ${feature.name} added after start`);
    this.features.push(feature);
    return this;
  }

  /** Collections the idle collector has run (platform/idle-collect.ts; the memory bench prints them). */
  get idleCollections(): number {
    return this.idle?.collections ?? 0;
  }

  get baseUrl(): string {
    return this.url;
  }

  /** Migrate, start every feature, then listen (unless `listen: false`, for inject tests). */
  async start(opts: { listen?: boolean } = {}): Promise<string> {
    this.started = true;
    const { ctx } = this;
    for (const f of this.features) if (f.migrations) ctx.migrations.add(...f.migrations);
    const applied = ctx.migrations.migrate(ctx.db);
    if (applied.length > 0) ctx.log.info({ applied }, 'store migrated');
    for (const f of this.features) await f.start?.(ctx);
    // Compile every route (ajv, the router) before anything time-critical runs: the supervisor's watchdog
    // would see a long synchronous compile as a stalled control loop.
    await ctx.http.ready();
    for (const f of this.features) await f.ready?.(ctx);
    // Once a busy spell is over, its garbage is collected rather than left resident (platform/idle-collect.ts).
    // Never while anything heats (platform/idle-collect.ts: a collection blocks the loop the heat guard's lease
    // is renewed from).
    this.idle = startIdleCollector({
      clock: ctx.clock,
      quiet: () => nothingHeats(ctx.supervisor.status()),
      onCollect: (before, after, collections) =>
        ctx.log.debug({ oldGenerationMb: [before, after].map((b) => Math.round(b / 104857.6) / 10), collections }, 'idle collection'),
    });
    if (opts.listen === false) return this.url;
    await ctx.http.listen({ host: ctx.config.host, port: ctx.config.httpPort });
    const addr = ctx.http.server.address() as AddressInfo;
    if (!ctx.config.publicUrl) this.url = `http://${hostForUrl(ctx.config.host)}:${addr.port}`;
    for (const f of this.features) await f.listening?.(ctx);
    return this.url;
  }

  /** Cut heat, stop (and log) running executions, stop features, close the store. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    // First of all: from now on the guard leaving (told to, or on the same Ctrl-C) is no fault.
    this.guard?.expectStop();
    this.idle?.stop();
    const { ctx } = this;
    ctx.rig.allHeatOff();
    for (const f of [...this.features].reverse()) {
      try {
        await f.stop?.(ctx);
      } catch (err) {
        ctx.log.error({ err, feature: f.name }, 'feature failed to stop');
      }
    }
    ctx.rig.allHeatOff();
    try {
      await ctx.http.close();
    } catch (err) {
      ctx.log.error({ err }, 'http close failed');
    }
    try {
      await ctx.rig.close();
    } catch (err) {
      ctx.log.error({ err }, 'rig close failed');
    }
    // Last: the guard cuts every line it holds and exits.
    await this.guard?.close().catch((err: unknown) => ctx.log.error({ err }, 'heat guard close failed'));
    ctx.db.close();
  }
}
