/**
 * Configuration of the event transports: the kitchen id and the MQTT bus. These keys live in the same config as
 * everything else of `hearth start` (file or command line); `eventsConfigSchema` is the fragment of the config
 * schema they validate against, `eventsOptionsOf` reads them with their defaults.
 */
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
} as const;

export interface EventsOptions {
  kitchenId: string;
  mqttPort: number;
  mqttWsPort?: number;
  mqttUrl?: string;
  mqttUsername?: string;
  mqttPassword?: string;
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
  return o;
}
