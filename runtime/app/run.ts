/**
 * `hearth start`: build the app from the resolved configuration, listen, print exactly one line
 * `hearth ready http://HOST:PORT` on stdout, and on SIGTERM/SIGINT cut heat, stop and log running
 * executions, close the store and exit 0. Logs go to stderr as JSON lines.
 */
import { CliError } from '../cli/errors.js';
import { type CliOptions, ConfigError, resolveConfig } from '../config/config.js';
import { dashboardFeature } from '../dashboard/feature.js';
import { createEventFeatures } from '../events/feature.js';
import { homeAssistantFeature } from '../homeassistant/feature.js';
import { type Hub, hubFeature } from '../hub/feature.js';
import { syncFeature } from '../sync/feature.js';
import { App } from './app.js';
import { createSdNotifier } from './sd-notify.js';

export async function runStart(opts: CliOptions & { flows?: boolean }): Promise<void> {
  let app: App;
  try {
    app = await App.create(resolveConfig(opts));
    const events = createEventFeatures();
    for (const f of [events.events, events.mqtt, events.webhooks]) app.use(f); // events first: they hear every bus event the others emit
    app.use(syncFeature());
    // `--flows`: the embedded Node-RED (loaded only then), whose deployed flows the hub's run_flow tool runs.
    const flows = opts.flows ? (await import('../flows/feature.js')).flowsFeature() : undefined;
    let hub: Hub | undefined;
    app.use(hubFeature({ onReady: (h) => (hub = h), ...(flows ? { runFlow: (id, inputs) => flows.runFlow(id, inputs) } : {}) }));
    app.use(dashboardFeature({ hub: () => hub?.sessions }));
    const bus = () => {
      const { mqtt, hub: eventHub } = events.state;
      return mqtt && eventHub ? { transport: mqtt.transport, kitchenId: eventHub.kitchenId } : undefined;
    };
    app.use(homeAssistantFeature({ mqtt: bus }));
    if (flows) app.use(flows);
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message);
    throw err;
  }
  let url: string;
  try {
    url = await app.start();
  } catch (err) {
    await app.stop().catch(() => {});
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      throw new CliError(`cannot listen on ${app.ctx.config.host}:${app.ctx.config.httpPort} (${code})`);
    }
    if (err instanceof ConfigError) throw new CliError(err.message);
    throw err;
  }
  process.stdout.write(`hearth ready ${url}\n`);
  // systemd (Type=notify): READY now, watchdog pings while the loop runs, STOPPING on shutdown.
  const notify = createSdNotifier({ onError: (m) => app.ctx.log.warn(m) });
  notify.ready(`listening on ${url}`);
  await new Promise<void>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        // A second signal while shutting down: heat is already off; leave now.
        app.ctx.rig.allHeatOff();
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
          // Exit even if a library left a handle open.
          setTimeout(() => process.exit(0), 1000).unref();
          resolve();
        });
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
