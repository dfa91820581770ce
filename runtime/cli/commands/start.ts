/** `hearth start`: the device process (HTTP API, store, executor, simulated or real rig). */
import { Command } from 'commander';
import type { RegisterCommand } from './types.js';

export const registerStart: RegisterCommand = (program) => {
  program.addCommand(
    new Command('start')
      .description('run the device: Core API over HTTP, SQLite store, executor and the rig (simulated by default)')
      .option('--config <file>', 'config file (JSON or YAML); command-line options override it')
      .option('--host <host>', 'interface to listen on (default 127.0.0.1)')
      .option('--http-port <port>', 'HTTP port; 0 picks a free one (default 8080)')
      .option('--data-dir <dir>', 'where the store lives (default ./var)')
      .option('--rig <rig>', '"simulated" (the demo fryer robot) or a rig file (default simulated)')
      .option('--recipes <dir>', 'folder of .svc.json recipes the device may cook (default examples/recipes)')
      .option('--sim-speed <n>', 'simulated clock speed-up, or "manual" to move time with POST /sim/v1/clock (default 1)')
      .option('--device <file>', 'capabilities document (default examples/devices/demo-fryer-robot.json)')
      .option('--limits <file>', "the device's own SafetyLimits (default examples/limits/demo-fryer.limits.json)")
      .option('--public-url <url>', 'public base URL (default http://HOST:PORT)')
      .option(
        '--allowed-hosts <names>',
        'comma-separated host names and addresses the hub answers to besides localhost, this machine and the public URL (DNS rebinding); * turns the check off',
      )
      .option(
        '--webhooks-allow <entries>',
        'comma-separated addresses, networks (10.0.0.0/24) and host names webhooks and A2A pushes may go to besides public addresses (loopback and the LAN are refused otherwise; docs/events.md)',
      )
      .option('--log-level <level>', 'silent, error, warn, info or debug (default info)')
      .option(
        '--index <url>',
        'static index to sync recipes and recalls from (repeatable; needs --trust)',
        (v: string, p: string[] = []) => [...p, v],
      )
      .option('--trust <file>', 'key records whose signatures sync accepts (a record, an array or a discovery file)')
      .option('--market <dir>', 'folder of market documents (Provider, OfferFeed) the hub searches and quotes from (default: none)')
      .option('--relief-coordinator', 'keep relief needs, pledges and allocations on this hub (scope relief; docs/hub.md#relief)')
      .option(
        '--fault <spec>',
        'simulated rig: schedule a fault, TARGET-KIND[-at=WHEN][,value=N], e.g. oil-open-at=60s or fryer-welded-at=2m (repeatable; docs/hil.md)',
        (v: string, p: string[] = []) => [...p, v],
      )
      .option('--sync-interval <duration>', 'time between scheduled syncs: seconds or 30s, 15m, 1h (default 15m, ±10% jitter)')
      .option('--kitchen-id <id>', 'kitchen id, the second level of every MQTT topic (default kitchen)')
      .option('--mqtt-port <port>', 'embedded MQTT 5 broker TCP port; 0 picks a free one (default 1883; 0 with --http-port 0)')
      .option('--mqtt-ws-port <port>', 'embedded broker MQTT-over-WebSocket port; 0 picks a free one (default: none)')
      .option('--mqtt-url <url>', 'use this external broker (mqtt://host:port) instead of the embedded one')
      .option('--mqtt-username <name>', 'user name for the external broker (password: HEARTH_MQTT_PASSWORD or the config file)')
      .option(
        '--bridge-url <url>',
        'fleet bridge: forward events to this broker (mqtt://host:port) and take commands from it (docs/fleet.md)',
      )
      .option('--bridge-username <name>', 'user name on the fleet broker (password: HEARTH_BRIDGE_PASSWORD or the config file)')
      .option('--bridge-prefix <prefix>', 'topic prefix on the fleet broker: {prefix}/{kitchenId}/… (default hearth)')
      .option('--bridge-ca <file>', 'PEM CA bundle for TLS to the fleet broker (mqtts:// or wss://)')
      .option('--bridge-cert <file>', 'PEM client certificate for the fleet broker')
      .option('--bridge-key <file>', 'PEM client key for the fleet broker')
      .option('--bridge-queue <n>', 'messages kept while the fleet broker is away (default 10000)')
      .option('--flows', 'run the embedded Node-RED at /flows (editor and admin API need a token with admin; docs/maker.md)')
      .action(
        async (
          opts: Record<string, string | undefined> & { index?: string[]; fault?: string[]; flows?: boolean; reliefCoordinator?: boolean },
        ) => {
          // Before the start allocates: keeps V8's young generation from growing to 32 MB for good
          // (platform/young-generation.ts; HEARTH_YOUNG_GENERATION=grow opts out), and lets V8 drop the code of
          // functions that stopped running (HEARTH_CODE_FLUSH=keep opts out; `npm run bench -- estop` measures
          // what that costs a stop).
          const { flushIdleCode, keepYoungGenerationSmall } = await import('../../../platform/young-generation.js');
          keepYoungGenerationSmall();
          flushIdleCode(process.env);
          const { runStart } = await import('../../app/run.js');
          await runStart(opts);
        },
      ),
  );
};
