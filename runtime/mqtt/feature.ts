/**
 * The local bus as a feature of the hub process: the embedded broker (or a client of an external one) plus the
 * bridge that puts every hub event on it. A refused safety publish becomes a `safety` bus event of kind
 * `spoof_refused` naming the client; an e-stop request over MQTT goes to `estop` (the supervisor's cutAll).
 */
import type { MqttGrants } from '../../platform/http/mqtt-grants.js';
import type { RevocationWatch } from '../../platform/http/revocation.js';
import type { EventBus } from '../events/bus.js';
import type { EventHub } from '../events/hub.js';
import { reasonOfMessage } from '../http/stop-body.js';
import type { HubMcpDeps } from '../mcp/tools.js';
import { availabilityMessage, MqttBridge } from './bridge.js';
import { EmbeddedBroker } from './broker.js';
import { MqttCommands } from './commands.js';
import { ExternalBroker } from './external.js';
import type { SessionLimits } from './session-limits.js';
import type { BusTransport, CommandOrigin, TokenVerifier } from './transport.js';

export interface MqttFeatureOptions {
  bus: EventBus;
  hub: EventHub;
  tokens: TokenVerifier;
  /** Interface the embedded broker listens on. */
  host: string;
  /** Embedded broker TCP port (0 = a free one). */
  mqttPort: number;
  /** Embedded broker WebSocket port (0 = a free one, undefined = none). */
  mqttWsPort?: number;
  /** Use this external broker instead of the embedded one. */
  mqttUrl?: string;
  mqttUsername?: string;
  mqttPassword?: string;
  /**
   * Called for an e-stop request from a bus client; cut the heat here. `reason` is the one the payload gave
   * (`{"reason": …}` or plain text; runtime/http/stop-body.ts `reasonOfMessage`), if any.
   */
  estop?: (message: string, origin: CommandOrigin, reason?: string) => void;
  /**
   * Serve the hub's MCP tools as request/response operations on `svc/{k}/command/{operation}` (commands.ts;
   * embedded broker only). `deps` is read per request: undefined until the hub feature has started.
   */
  commands?: { deps: () => HubMcpDeps | undefined; problemBase: () => string };
  /** Disconnect a token's MQTT sessions as soon as it is revoked (without it: a sweep every 30 s). */
  revocations?: RevocationWatch;
  now?: () => number;
  log?: (level: 'info' | 'warn' | 'error', msg: string, detail?: Record<string, unknown>) => void;
  /** What a kept session may hold while its client is away (embedded broker; session-limits.ts). */
  sessions?: Partial<SessionLimits>;
  /** Config-file topic grants by token name (embedded broker; platform/http/mqtt-grants.ts). */
  grants?: Readonly<Record<string, MqttGrants>>;
}

export class MqttFeature {
  readonly transport: BusTransport;
  readonly bridge: MqttBridge;
  readonly embedded: EmbeddedBroker | undefined;
  readonly commands: MqttCommands | undefined;
  private sweep: NodeJS.Timeout | undefined;
  private offRevoke: (() => void) | undefined;

  constructor(private readonly o: MqttFeatureOptions) {
    const now = o.now ?? Date.now;
    const iso = () => new Date(now()).toISOString();
    if (o.mqttUrl) {
      this.transport = new ExternalBroker({
        url: o.mqttUrl,
        kitchenId: o.hub.kitchenId,
        ...(o.mqttUsername !== undefined ? { username: o.mqttUsername } : {}),
        ...(o.mqttPassword !== undefined ? { password: o.mqttPassword } : {}),
        will: availabilityMessage(o.hub, false, iso()),
      });
    } else {
      this.embedded = new EmbeddedBroker({
        kitchenId: o.hub.kitchenId,
        tokens: o.tokens,
        host: o.host,
        port: o.mqttPort,
        ...(o.mqttWsPort !== undefined ? { wsPort: o.mqttWsPort } : {}),
        ...(o.sessions ? { sessions: o.sessions } : {}),
        ...(o.grants ? { grants: o.grants } : {}),
        now,
        log: (msg, detail) => o.log?.('warn', msg, detail),
        onSpoof: (r) =>
          o.bus.emit('safety', {
            kind: 'spoof_refused',
            action: 'none',
            message: `refused a safety publish on ${r.topic} from MQTT client ${r.clientId} (token ${r.principal}): only the hub publishes safety events`,
            at: iso(),
            origin: { clientId: r.clientId, principal: r.principal, topic: r.topic },
          }),
      });
      this.transport = this.embedded;
      if (o.commands) {
        this.commands = new MqttCommands({
          kitchenId: o.hub.kitchenId,
          transport: this.embedded,
          deps: o.commands.deps,
          problemBase: o.commands.problemBase,
          ...(o.log ? { log: o.log } : {}),
        });
        this.embedded.onRequest(this.commands.handle);
      }
    }
    this.bridge = new MqttBridge({
      hub: o.hub,
      transport: this.transport,
      now,
      onError: (err) => o.log?.('error', 'mqtt publish failed', { err: String(err) }),
      onEstop: (origin, payload) => {
        const by = origin.principal ?? origin.clientId;
        // Bounded (at most a few KiB decoded) and never a reason to refuse: a bad payload is only a warning.
        const { reason, warnings } = reasonOfMessage(payload);
        o.estop?.(`e-stop requested over MQTT by ${by}${reason ? `: ${reason}` : ''}`.slice(0, 500), origin, reason);
        o.log?.('warn', 'e-stop requested over MQTT', {
          ...origin,
          ...(reason ? { reason } : {}),
          ...(warnings.length ? { warnings } : {}),
        });
      },
    });
  }

  get urls(): string[] {
    return this.transport.urls;
  }

  async start(): Promise<void> {
    await this.bridge.start();
    if (this.embedded) {
      const broker = this.embedded;
      this.sweep = setInterval(() => broker.revokeStale(), 30_000);
      this.sweep.unref();
      this.offRevoke = this.o.revocations?.onRevoke(() => broker.revokeStale());
    }
    this.o.log?.('info', 'mqtt bus ready', { urls: this.urls });
  }

  async stop(): Promise<void> {
    if (this.sweep) clearInterval(this.sweep);
    this.offRevoke?.();
    await this.commands?.idle();
    await this.bridge.stop();
  }
}
