/**
 * The seam between the event bridge and an MQTT broker: the embedded aedes broker (broker.ts) or an external one
 * reached as a client (external.ts). Both publish the same topics with the same QoS, retain flag and MQTT 5
 * content type, and both report client commands (the e-stop request) to the hub.
 */
import type { MqttGrants } from '../../platform/http/mqtt-grants.js';
import type { QoS } from './topics.js';

export interface OutgoingMessage {
  topic: string;
  /** Empty payload with retain: clear the retained message of the topic. */
  payload: string | Buffer;
  qos: QoS;
  retain: boolean;
  /** MQTT 5 Content Type property. */
  contentType?: string;
  /** MQTT 5 Correlation Data (a reply carries the request's). */
  correlationData?: Buffer;
  /** MQTT 5 User Properties. */
  userProperties?: Record<string, string>;
}

/** Who sent a command. On an external broker the hub cannot know more than the topic. */
export interface CommandOrigin {
  clientId: string;
  /** The token's name. */
  principal?: string;
  /** The token's kind (`human`, `agent`), when the broker knows the token. */
  kind?: string;
}

export type CommandHandler = (command: string, origin: CommandOrigin, payload: Buffer) => void;

/** A request on `svc/{k}/command/{operation}` from a logged-in client of the embedded broker. */
export interface CommandRequest {
  operation: string;
  clientId: string;
  principal: { id: string; name: string; kind: string; scopes: string[] };
  payload: Buffer;
  /** MQTT 5 Response Topic and Correlation Data of the request, when it wants an answer. */
  responseTopic?: string;
  correlationData?: Buffer;
}

/** Accept the request (the answer follows on its response topic) or refuse it (PUBACK/PUBREC 0x87 with `reason`). */
export type RequestVerdict = { ok: true } | { ok: false; reason: string };

/** Serves command requests; undefined = not an operation it serves (the broker's own rules then apply). */
export type RequestHandler = (req: CommandRequest) => RequestVerdict | undefined;

export interface BusTransport {
  /** `mqtt://host:port` of the broker (and `ws://…` for the embedded one's WebSocket listener, if any). */
  readonly urls: string[];
  start(): Promise<void>;
  publish(msg: OutgoingMessage): Promise<void>;
  onCommand(handler: CommandHandler): void;
  /** Safety topics holding a retained alarm when the transport started (an external broker outlives the hub). */
  retainedAlarms?(): string[];
  stop(): Promise<void>;
}

/** The minimal token check the broker needs: a paired bearer token → principal, or null. */
export interface TokenVerifier {
  verify(token: string): { id: string; name: string; scopes: string[]; kind: string; mqtt?: MqttGrants } | null;
}
