/**
 * Configuration of the event transports: the kitchen id and the MQTT bus. These keys live in the same config as
 * everything else of `hearth start` (file or command line); `eventsConfigSchema` is the fragment of the config
 * schema they validate against, `eventsOptionsOf` reads them with their defaults.
 */
import { type MqttGrants, parseGrantList } from '../../platform/http/mqtt-grants.js';
import { checkBrokerUrl } from '../mqtt/url.js';

export interface EventsConfig {
  /** The kitchen's id: the second level of every MQTT topic (default `kitchen`). */
  kitchenId?: string;
  /** Embedded MQTT broker TCP port (default 1883, or 0 when the HTTP port is 0; 0 picks a free one). */
  mqttPort?: number;
  /** Embedded broker WebSocket port (absent: no WebSocket listener; 0 picks a free one). */
  mqttWsPort?: number;
  /** An external broker to use instead of the embedded one, e.g. mqtt://broker.local:1883. */
  mqttUrl?: string;
  mqttUsername?: string;
  /** Password for the external broker (or the environment variable HEARTH_MQTT_PASSWORD). */
  mqttPassword?: string;
  /** The fleet bridge: a broker to forward events to and take commands from (runtime/mqtt/fleet-bridge.ts). */
  bridgeUrl?: string;
  bridgeUsername?: string;
  /** Password for the fleet broker (or the environment variable HEARTH_BRIDGE_PASSWORD). */
  bridgePassword?: string;
  /** Topic prefix on the fleet broker (default `hearth`): topics are `{prefix}/{kitchenId}/…`. */
  bridgePrefix?: string;
  /** PEM files for TLS to the fleet broker: CA bundle, client certificate, client key. */
  bridgeCa?: string;
  bridgeCert?: string;
  bridgeKey?: string;
  /** Messages kept while the fleet broker is away (default 10000). */
  bridgeQueue?: number;
  /**
   * Operator topic grants on the embedded broker, by token name: `{"plug-1": {"publish": ["devices/plug-1/#"],
   * "subscribe": [...]}}`, added to what the token was created with (`hearth token create --mqtt-publish`).
   */
  mqttGrants?: Record<string, { publish?: string[]; subscribe?: string[] }>;
}

export const DEFAULT_KITCHEN_ID = 'kitchen';
export const DEFAULT_MQTT_PORT = 1883;

export const eventsConfigSchema = {
  kitchenId: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$' },
  mqttPort: { type: 'integer', minimum: 0, maximum: 65535 },
  mqttWsPort: { type: 'integer', minimum: 0, maximum: 65535 },
  mqttUrl: { type: 'string', pattern: '^(mqtt|mqtts|ws|wss)://[^\\s]+$' },
  mqttUsername: { type: 'string', minLength: 1, maxLength: 200 },
  mqttPassword: { type: 'string', minLength: 1, maxLength: 500 },
  bridgeUrl: { type: 'string', pattern: '^(mqtt|mqtts|ws|wss)://[^\\s]+$' },
  bridgeUsername: { type: 'string', minLength: 1, maxLength: 200 },
  bridgePassword: { type: 'string', minLength: 1, maxLength: 500 },
  bridgePrefix: { type: 'string', pattern: '^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*$', maxLength: 200 },
  bridgeCa: { type: 'string', minLength: 1 },
  bridgeCert: { type: 'string', minLength: 1 },
  bridgeKey: { type: 'string', minLength: 1 },
  bridgeQueue: { type: 'integer', minimum: 1, maximum: 1000000 },
  mqttGrants: {
    type: 'object',
    maxProperties: 1000,
    additionalProperties: {
      type: 'object',
      additionalProperties: false,
      properties: {
        publish: { type: 'array', maxItems: 32, items: { type: 'string', minLength: 1, maxLength: 200 } },
        subscribe: { type: 'array', maxItems: 32, items: { type: 'string', minLength: 1, maxLength: 200 } },
      },
    },
  },
} as const;

export interface EventsOptions {
  kitchenId: string;
  mqttPort: number;
  mqttWsPort?: number;
  mqttUrl?: string;
  mqttUsername?: string;
  mqttPassword?: string;
  bridge?: {
    url: string;
    username?: string;
    password?: string;
    prefix?: string;
    ca?: string;
    cert?: string;
    key?: string;
    queue?: number;
  };
  /** Config-file topic grants by token name (checked: none reaches svc/…). */
  mqttGrants?: Record<string, MqttGrants>;
}

/** Read the event options out of a config object (extra keys ignored), with defaults. Throws on a bad value. */
export function eventsOptionsOf(config: object, env: NodeJS.ProcessEnv = process.env): EventsOptions {
  const c = config as EventsConfig;
  const kitchenId = c.kitchenId ?? DEFAULT_KITCHEN_ID;
  if (!new RegExp(eventsConfigSchema.kitchenId.pattern).test(kitchenId)) {
    throw new Error(`kitchenId ${JSON.stringify(kitchenId)}: use 1-64 letters, digits, - or _ (it is an MQTT topic level)`);
  }
  // An ephemeral HTTP port (tests, several hubs on one machine) means an ephemeral MQTT port by default too.
  const httpPort = (config as { httpPort?: number }).httpPort;
  const o: EventsOptions = { kitchenId, mqttPort: c.mqttPort ?? (httpPort === 0 ? 0 : DEFAULT_MQTT_PORT) };
  if (c.mqttWsPort !== undefined) o.mqttWsPort = c.mqttWsPort;
  if (c.mqttUrl !== undefined) {
    const bad = checkBrokerUrl(c.mqttUrl);
    if (bad) throw new Error(`mqttUrl ${bad}`);
    o.mqttUrl = c.mqttUrl;
  }
  if (c.mqttUsername !== undefined) o.mqttUsername = c.mqttUsername;
  const password = c.mqttPassword ?? env.HEARTH_MQTT_PASSWORD;
  if (password !== undefined && password !== '') o.mqttPassword = password;
  if (c.mqttGrants !== undefined) {
    const grants: Record<string, MqttGrants> = {};
    for (const [name, g] of Object.entries(c.mqttGrants)) {
      grants[name] = {
        publish: parseGrantList(g.publish, `mqttGrants.${name}.publish`),
        subscribe: parseGrantList(g.subscribe, `mqttGrants.${name}.subscribe`),
      };
    }
    o.mqttGrants = grants;
  }
  if (c.bridgeUrl !== undefined) {
    const badBridge = checkBrokerUrl(c.bridgeUrl);
    if (badBridge) throw new Error(`bridgeUrl ${badBridge}`);
    const b: NonNullable<EventsOptions['bridge']> = { url: c.bridgeUrl };
    if (c.bridgeUsername !== undefined) b.username = c.bridgeUsername;
    const bridgePassword = c.bridgePassword ?? env.HEARTH_BRIDGE_PASSWORD;
    if (bridgePassword !== undefined && bridgePassword !== '') b.password = bridgePassword;
    if (c.bridgePrefix !== undefined) b.prefix = c.bridgePrefix;
    if (c.bridgeCa !== undefined) b.ca = c.bridgeCa;
    if (c.bridgeCert !== undefined) b.cert = c.bridgeCert;
    if (c.bridgeKey !== undefined) b.key = c.bridgeKey;
    if (c.bridgeQueue !== undefined) b.queue = c.bridgeQueue;
    o.bridge = b;
  }
  return o;
}
