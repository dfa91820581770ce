/**
 * The seam between the event bridge and an MQTT broker: the embedded aedes broker (broker.ts) or an external one
 * reached as a client (external.ts). Both publish the same topics with the same QoS, retain flag and MQTT 5
 * content type, and both report client commands (the e-stop request) to the hub.
 */
import type { QoS } from './topics.js';

export interface OutgoingMessage {
  topic: string;
  /** Empty payload with retain: clear the retained message of the topic. */
  payload: string | Buffer;
  qos: QoS;
  retain: boolean;
  /** MQTT 5 Content Type property. */
  contentType?: string;
}

/** Who sent a command. On an external broker the hub cannot know more than the topic. */
export interface CommandOrigin {
  clientId: string;
  principal?: string;
}

export type CommandHandler = (command: string, origin: CommandOrigin, payload: Buffer) => void;

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
  verify(token: string): { id: string; name: string; scopes: string[]; kind: string } | null;
}
