/**
 * `hearth start`: build the app from the resolved configuration, listen, print exactly one line
 * `hearth ready http://HOST:PORT` on stdout, and on SIGTERM/SIGINT/SIGHUP (a closed terminal) cut heat, stop and log running
 * executions, close the store and exit 0. Logs go to stderr as JSON lines. A stop on a signal is a clean stop,
 * whether the heat guard got the same signal (Ctrl-C, `systemctl stop`) or not: no trip, the next start is not
 * latched; an end without one while heating latches `unclean_stop` at the next start (docs/safety.md).
 *
 * Start-up order: read the configuration, take the data directory's lock (a second hearth on the same data
 * directory exits 2 naming the pid, and never touches the first one's outputs), then switch every heater
 * output off from the rig configuration alone (`hearth safe-off`), and only then load anything else (device,
 * recipes, the database), any of which may fail. Then the heat guard (runtime/guard) is started and holds the
 * heater lines from there on; the app closes it last on shutdown.
 */
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { RigConfig } from '../../drivers/rig-config.js';
import { safeOff } from '../../drivers/safe-off.js';
import { loadRigForSafeOff, type SafeOffRigFile } from '../../drivers/safe-off-rig.js';
import { keptFlags, reduceMemoryNow } from '../../platform/young-generation.js';
import { controlActive } from '../../safety/controls.js';
import { CliError } from '../cli/errors.js';
import { type CliOptions, ConfigError, type HearthConfig, resolveConfig } from '../config/config.js';
import { dashboardFeature } from '../dashboard/feature.js';
import { createEventFeatures } from '../events/feature.js';
import { guardSpecFor, type HeatGuard, startHeatGuard } from '../guard/client.js';
import { claimWarmGuard, prewarmHeatGuard, type WarmGuard } from '../guard/warm.js';
import { homeAssistantFeature } from '../homeassistant/feature.js';
import { type Hub, hubFeature } from '../hub/feature.js';
import { HEAT_MARKER_FILE } from '../supervisor/heat-marker.js';
import { syncFeature } from '../sync/feature.js';
import { App } from './app.js';
import { type DataDirLock, lockDataDir } from './data-dir-lock.js';
import { createSdNotifier } from './sd-notify.js';

/** Switch every output of a hardware rig off before anything that can fail; warnings go to stderr. */
async function safeOffAtStart(config: HearthConfig): Promise<void> {
  // The mutation run's "safe-off-at-start" mutant: outputs keep whatever level a dead process left.
  if (!controlActive('safe-off-at-start') || config.rig === 'simulated') return;
  let file: SafeOffRigFile;
  try {
    // A rig file that fails validation still names outputs: they are cut before start-up refuses it.
    file = loadRigForSafeOff(config.rig);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  for (const r of await safeOff(file.rig)) {
    if (!r.ok) process.stderr.write(`hearth: safe-off: heater "${r.heater}" (${r.target}) not switched off: ${r.error}\n`);
  }
  if (file.problem) throw new CliError(file.problem);
}

/** Where a setting came from, as the user wrote it: `--host`, `/etc/hearth.yaml: /host`, or the default. */
function origin(opts: CliOptions, key: 'host' | 'httpPort', flag: string): string {
  if (opts[key] !== undefined) return flag;
  if (opts.config) return `${resolve(opts.config)}: /${key}`;
  return `${flag} (default)`;
}

/** A listen failure as one line naming the file (or option) and the key, or undefined when it is not one. */
export function listenProblem(
  err: NodeJS.ErrnoException & { port?: number },
  opts: CliOptions,
  config: Pick<HearthConfig, 'host' | 'httpPort'>,
): string | undefined {
  const code = err?.code;
  const host = JSON.stringify(config.host);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'EAI_NONAME')
    return `${origin(opts, 'host', '--host')}: ${host} does not resolve to an address (${code}); use an address of this machine such as 127.0.0.1 or 0.0.0.0, or a name that resolves`;
  if (code === 'EADDRNOTAVAIL')
    return `${origin(opts, 'host', '--host')}: ${host} is not an address of this machine (${code}); use one of its addresses, 127.0.0.1 or 0.0.0.0`;
  if (code === 'EADDRINUSE' || code === 'EACCES') {
    const why = code === 'EADDRINUSE' ? 'is in use by another process' : 'needs privileges (ports below 1024)';
    if (err.port !== undefined && err.port !== config.httpPort) return `cannot listen on port ${err.port}: it ${why} (${code})`;
    return `${origin(opts, 'httpPort', '--http-port')}: port ${config.httpPort} on ${config.host} ${why} (${code})`;
  }
  return undefined;
}

export async function runStart(opts: CliOptions & { flows?: boolean }): Promise<void> {
  let config: HearthConfig;
  try {
    config = resolveConfig(opts);
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message);
    throw err;
  }
  const lock: DataDirLock = await lockDataDir(config.dataDir);
  // The guard's process waits for its spec (startGuard below) while ours starts up: started by the CLI's entry
  // before it loaded the rest (runtime/cli/run.ts), or now (a start called in-process).
  const warm = claimWarmGuard() ?? prewarmHeatGuard();
  try {
    await safeOffAtStart(config);
    await startLocked(opts, config, warm);
  } finally {
    warm.dispose(); // nothing when the guard took its spec
    await lock.release();
  }
}

/**
 * Start the heat guard (runtime/guard), the separate process that alone holds the heater lines and cuts them
 * when this process stops renewing its lease (frozen, killed, stalled). Started by hearth itself, as its child,
 * so it runs wherever hearth runs (by hand, in tests, under systemd, where it shares the unit's cgroup).
 */
async function startGuard(config: HearthConfig, rig: RigConfig, warm: WarmGuard): Promise<HeatGuard | undefined> {
  const spec = guardSpecFor(rig, config.dataDir);
  if (!spec) return undefined;
  try {
    return await startHeatGuard(spec, { log: (m) => process.stderr.write(`hearth: ${m}\n`), warm });
  } catch (err) {
    throw new CliError(`heat guard: ${(err as Error).message}`);
  }
}

/**
 * The features `hearth start` runs on top of the core, in order. Also used by the build
 * (scripts/build-route-validators.mjs) to see every route schema the device serves.
 */
export async function useStartFeatures(app: App, opts: { flows?: boolean }): Promise<void> {
  let hub: Hub | undefined;
  // The hub's tools also answer MQTT 5 requests on svc/{k}/command/{operation} once the hub runs.
  const events = createEventFeatures({ hubTools: () => hub?.tools });
  for (const f of [events.events, events.mqtt, events.webhooks]) app.use(f); // events first: they hear every bus event the others emit
  app.use(syncFeature());
  // `--flows`: the embedded Node-RED (loaded only then), whose deployed flows the hub's run_flow tool runs.
  const flows = opts.flows ? (await import('../flows/feature.js')).flowsFeature() : undefined;
  app.use(hubFeature({ onReady: (h) => (hub = h), ...(flows ? { runFlow: (id, inputs) => flows.runFlow(id, inputs) } : {}) }));
  app.use(dashboardFeature({ hub: () => hub?.sessions }));
  const bus = () => {
    const { mqtt, hub: eventHub } = events.state;
    return mqtt && eventHub ? { transport: mqtt.transport, kitchenId: eventHub.kitchenId } : undefined;
  };
  app.use(homeAssistantFeature({ mqtt: bus }));
  if (flows) app.use(flows);
}

async function startLocked(opts: CliOptions & { flows?: boolean }, config: HearthConfig, warm: WarmGuard): Promise<void> {
  let app: App;
  try {
    app = await App.create(config, { heatGuard: (rig) => startGuard(config, rig, warm) });
    await useStartFeatures(app, opts);
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message);
    throw err;
  }
  let url: string;
  try {
    url = await app.start();
  } catch (err) {
    await app.stop().catch(() => {});
    const listen = listenProblem(err as NodeJS.ErrnoException & { port?: number }, opts, app.ctx.config);
    if (listen) throw new CliError(listen);
    if (err instanceof ConfigError) throw new CliError(err.message);
    throw err;
  }
  // HEARTH_YOUNG_GENERATION=shrink: start-up's garbage collected and V8's young generation shrunk back before the
  // ready line, once, where V8 can (Node 24: ~5 MB less resident for ~70 ms more to the first answer;
  // platform/young-generation.ts, docs/performance.md).
  const settle = process.cpuUsage();
  if (reduceMemoryNow()) {
    const cpu = process.cpuUsage(settle);
    app.ctx.log.debug({ cpuMs: Math.round((cpu.user + cpu.system) / 1000) }, 'heap settled after start');
  }
  // What V8 was told at run time (the young generation's size, code flushing): a log reader sees the settings in force.
  app.ctx.log.debug({ v8Flags: keptFlags() }, 'V8 flags set at run time');
  process.stdout.write(`hearth ready ${url}\n`);
  // systemd (Type=notify): READY now, watchdog pings while the loop runs, STOPPING on shutdown.
  // WATCHDOG=1 only while the loop is healthy: a blocked or frozen process stops pinging, systemd kills it after
  // WatchdogSec and runs ExecStopPost (`hearth safe-off`).
  const notify = createSdNotifier({
    onError: (m) => app.ctx.log.warn(m),
    onSkip: (why) => app.ctx.log.warn({ why }, 'systemd watchdog ping skipped'),
  });
  notify.ready(`listening on ${url}`);
  await new Promise<void>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        // A second signal while shutting down: heat is already off; leave now. Still a stop, not a death: the
        // heat marker goes (the guard cuts on its own signal, or when this process's socket closes).
        app.ctx.rig.allHeatOff();
        if (app.ctx.config.dataDir) rmSync(join(app.ctx.config.dataDir, HEAT_MARKER_FILE), { force: true });
        process.exit(0);
      }
      stopping = true;
      notify.stopping();
      app.ctx.log.info({ signal }, 'shutting down');
      app
        .stop()
        .catch((err: unknown) => app.ctx.log.error({ err }, 'shutdown failed'))
        .finally(() => {
          process.off('SIGTERM', onSignal);
          process.off('SIGINT', onSignal);
          process.off('SIGHUP', onSignal);
          // Exit even if a library left a handle open.
          setTimeout(() => process.exit(0), 1000).unref();
          resolve();
        });
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    // The heat guard takes a hang-up as a stop signal too (runtime/guard/guard.ts): both must agree it is clean.
    process.on('SIGHUP', onSignal);
  });
}
