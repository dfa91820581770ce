/**
 * The embedded MQTT 5 broker (aedes) on TCP and, optionally, WebSocket. Clients log in with a paired bearer
 * token as the password (any username); every publish, subscription and delivery is checked against the
 * kitchen's topic rules (topics.ts). A client that tries to publish on a safety topic is refused (PUBACK/PUBREC
 * 0x87 for MQTT 5) and reported to the hub as a spoof attempt, with its client id.
 */
import { once } from 'node:events';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { Aedes, type AuthenticateError, type Client } from 'aedes';
import mqttPacket from 'mqtt-packet';
import { createWebSocketStream, WebSocketServer } from 'ws';
import type { MqttGrants } from '../../platform/http/mqtt-grants.js';
import { LogLimiter, limitedLog } from '../events/log-limit.js';
import { ClientIdOwners, DEFAULT_FRONT_DOOR, FrontDoor, type FrontDoorLimits } from './front-door.js';
import { forwardable, offerSharedSubscriptions, parseShared, payloadFormatInvalid, reasonError } from './mqtt5.js';
import { boundedPersistence, DEFAULT_SESSION_LIMITS, type SessionLimits } from './session-limits.js';
import { type AclPrincipal, canReceive, checkPublish, checkSubscribe, commandOf } from './topics.js';
import type { BusTransport, CommandHandler, OutgoingMessage, RequestHandler, TokenVerifier } from './transport.js';

export interface SpoofReport {
  clientId: string;
  principal: string;
  topic: string;
}

export interface EmbeddedBrokerOptions {
  kitchenId: string;
  tokens: TokenVerifier;
  host?: string;
  /** TCP port (0 = a free one). */
  port: number;
  /** WebSocket port (0 = a free one; undefined = no WebSocket listener). */
  wsPort?: number;
  /** A refused safety publish; reports are rate-limited to one per client per `spoofReportMs`. */
  onSpoof?: (report: SpoofReport) => void;
  spoofReportMs?: number;
  now?: () => number;
  /** Repeated lines (same message and client) are rate-limited: see runtime/events/log-limit.ts. */
  log?: (msg: string, detail?: Record<string, unknown>) => void;
  /** What a connection may cost before it logs in (front-door.ts); defaults in DEFAULT_FRONT_DOOR. */
  frontDoor?: Partial<FrontDoorLimits>;
  /** What a kept session may hold while its client is away (session-limits.ts); defaults in DEFAULT_SESSION_LIMITS. */
  sessions?: Partial<SessionLimits>;
  /** Operator topic grants from the config file, by token name, added to the token's own (mqtt-grants.ts). */
  grants?: Readonly<Record<string, MqttGrants>>;
}

/** Refusals already logged (client id + topic): each is logged once, not per message. */
const MAX_REFUSALS_REMEMBERED = 4096;

interface Session {
  principal: AclPrincipal & { kind: string };
  token: string;
}

/** Topic aliases a client may set up per connection (MQTT 5, client to broker). */
export const TOPIC_ALIAS_MAXIMUM = 32;

/** returnCode 4: bad user name or password; 2: client identifier rejected (MQTT 5: 0x86 and 0x85). */
function authError(message: string, returnCode: 2 | 4 = 4): AuthenticateError {
  return Object.assign(new Error(message), { returnCode }) as AuthenticateError;
}

export class EmbeddedBroker implements BusTransport {
  private aedes: Aedes | undefined;
  private tcp: Server | undefined;
  private http: HttpServer | undefined;
  private wss: WebSocketServer | undefined;
  private readonly sessions = new WeakMap<Client, Session>();
  private readonly lastSpoof = new Map<string, number>();
  private readonly refusals = new Set<string>();
  private readonly frontDoor: FrontDoor;
  private readonly owners: ClientIdOwners;
  private readonly log: (msg: string, detail?: Record<string, unknown>) => void;
  private readonly handlers: CommandHandler[] = [];
  private requests: RequestHandler | undefined;
  private tcpPort = 0;
  private websocketPort: number | undefined;
  /** The hub's messages enter aedes one at a time, in order (see `start`); this settles when the last one is in. */
  private entering: Promise<void> = Promise.resolve();
  /** Payload of the hub message on its way in → let the next one in. */
  private readonly onTheWay = new Map<Buffer, () => void>();

  constructor(private readonly o: EmbeddedBrokerOptions) {
    const limiter = new LogLimiter(o.now ? { now: o.now } : {});
    this.log = limitedLog(limiter, o.log, (msg, detail) => `${msg}|${String(detail?.clientId ?? detail?.address ?? '')}`);
    this.frontDoor = new FrontDoor({ ...DEFAULT_FRONT_DOOR, ...o.frontDoor }, this.log);
    this.owners = new ClientIdOwners((token) => this.o.tokens.verify(token) !== null);
  }

  get port(): number {
    return this.tcpPort;
  }

  get wsPort(): number | undefined {
    return this.websocketPort;
  }

  get urls(): string[] {
    const host = this.o.host ?? '127.0.0.1';
    const h = host.includes(':') ? `[${host}]` : host;
    const urls = [`mqtt://${h}:${this.tcpPort}`];
    if (this.websocketPort !== undefined) urls.push(`ws://${h}:${this.websocketPort}`);
    return urls;
  }

  /** Connected clients (for status pages and tests). */
  get clientCount(): number {
    return this.aedes?.connectedClients ?? 0;
  }

  onCommand(handler: CommandHandler): void {
    this.handlers.push(handler);
  }

  /** Serve request/response operations on `svc/{k}/command/{operation}` (runtime/mqtt/commands.ts). */
  onRequest(handler: RequestHandler): void {
    this.requests = handler;
  }

  async start(): Promise<void> {
    // mqtt-packet (aedes' writer) builds a table of 65,536 two-byte Buffers for packet ids on its first packet:
    // ~7 MB of heap held for good, to save one 2-byte allocation per QoS 1/2 packet. A small board keeps the 7 MB.
    mqttPacket.writeToStream.cacheNumbers = false;
    const limits = this.frontDoor.limits;
    const kept = { ...DEFAULT_SESSION_LIMITS, ...this.o.sessions };
    const aedes = await Aedes.createBroker({
      persistence: boundedPersistence(kept.maxQueued, (clientId, dropped) => {
        if (dropped === 1)
          this.log('mqtt session queue full: new messages for the absent client are dropped', { clientId, maxQueued: kept.maxQueued });
      }),
      sessionExpiryIntervalLimit: kept.maxExpirySeconds,
      pendingSessionsLimit: kept.maxPending,
      id: `hearth-${this.o.kitchenId}`,
      maxClientsIdLength: 128,
      maximumPacketSize: limits.maxPacketBytes,
      connectTimeout: limits.connectTimeoutMs,
      topicAliasMaximum: TOPIC_ALIAS_MAXIMUM,
    });
    this.aedes = aedes;
    // MQTT 5 additions (mqtt5.ts, scripts/patch-aedes.mjs): shared subscriptions, and the Receive Maximum queue of
    // each client bounded like an absent client's.
    offerSharedSubscriptions(aedes as unknown as Parameters<typeof offerSharedSubscriptions>[0]);
    Object.assign(aedes, { outgoingHeldLimit: kept.maxQueued });
    aedes.on('outgoingDropped' as 'clientError', (client: Client) =>
      this.log('mqtt client receive window full: messages beyond its queue are dropped for it', { clientId: client.id }),
    );
    // aedes numbers a message when publish() is called but hands it to the subscribers only after asynchronous
    // steps that differ by QoS and retain (store a retained message, queue it for offline sessions), and a client
    // drops any message numbered below one it already got (aedes' dedupe of overlapping subscriptions). So a hub
    // message that overtook an earlier one made the earlier one vanish for every connected client: a trip followed
    // at once by a heater sample (QoS 0), an e-stop (retained) followed by its reset. The hub's messages therefore
    // enter one at a time, the next once the previous has been handed to the subscribers' queues (synchronous in
    // mq.emit), not once it is delivered: a slow client holds nobody up.
    // `mq` (the broker's mqemitter) is public in aedes but missing from its type declarations.
    const { mq } = aedes as unknown as { mq: { emit: (packet: { payload?: unknown }, cb?: (err?: Error) => void) => unknown } };
    const emit = mq.emit.bind(mq);
    mq.emit = (packet, cb) => {
      const next = Buffer.isBuffer(packet.payload) ? this.onTheWay.get(packet.payload) : undefined;
      try {
        return emit(packet, cb);
      } finally {
        next?.();
      }
    };
    // [MQTT-3.1.2.11.4] A Maximum Packet Size of 0 is a protocol error (aedes takes it): close at once (§4.13).
    aedes.preConnect = (_client, packet, done) => {
      if (packet.protocolVersion === 5 && packet.properties?.maximumPacketSize === 0) {
        this.log('mqtt connection refused: Maximum Packet Size 0 is a protocol error', { clientId: packet.clientId });
        return done(new Error('Maximum Packet Size 0 is a protocol error'), false);
      }
      done(null, true);
    };
    aedes.authenticate = (client, _username, password, done) => {
      const token = password ? password.toString('utf8') : '';
      const who = token ? this.o.tokens.verify(token) : null;
      if (!who) return done(authError('bad user name or password'), false);
      if (!this.owners.mayUse(client.id, who.id)) {
        this.log('mqtt client id refused: it belongs to another token', { clientId: client.id, principal: who.name });
        return done(authError('this client id belongs to another token', 2), false);
      }
      this.owners.claim(client, who.id, token);
      const mqtt = this.grantsOf(who.name, who.mqtt);
      this.sessions.set(client, {
        principal: { id: who.id, name: who.name, kind: who.kind, scopes: [...who.scopes], clientId: client.id, ...(mqtt ? { mqtt } : {}) },
        token,
      });
      done(null, true);
    };
    aedes.on('clientDisconnect', (client) => this.owners.release(client));
    aedes.authorizePublish = (client, packet, done) => {
      const s = client ? this.sessions.get(client) : undefined;
      if (!client || !s) return done(new Error('not authorized'));
      if (payloadFormatInvalid(packet)) return done(reasonError('the payload is marked UTF-8 but is not', 0x99));
      const operation = this.requests ? commandOf(this.o.kitchenId, packet.topic) : undefined;
      if (operation !== undefined && this.requests) {
        const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
        const props = packet.properties;
        let answer: ReturnType<RequestHandler>;
        try {
          answer = this.requests({
            operation,
            clientId: client.id,
            principal: { id: s.principal.id, name: s.principal.name, kind: s.principal.kind, scopes: [...s.principal.scopes] },
            payload,
            ...(props?.responseTopic !== undefined ? { responseTopic: props.responseTopic } : {}),
            ...(props?.correlationData !== undefined ? { correlationData: props.correlationData } : {}),
          });
        } catch (err) {
          this.log('mqtt command request failed', { clientId: client.id, err: String(err) });
          return done(new Error('the request failed'));
        }
        if (answer) return answer.ok ? done(null) : done(new Error(answer.reason));
      }
      const verdict = checkPublish(this.o.kitchenId, packet.topic, s.principal);
      if (!verdict.ok) {
        this.refused('mqtt publish refused', client.id, s.principal.name, packet.topic);
        if (verdict.spoof) this.reportSpoof(client.id, s.principal.name, packet.topic);
        return done(new Error(verdict.reason));
      }
      if (verdict.command) {
        const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
        for (const h of this.handlers) {
          try {
            h(verdict.command, { clientId: client.id, principal: s.principal.name, kind: s.principal.kind }, payload);
          } catch (err) {
            this.log('mqtt command handler failed', { err: String(err) });
          }
        }
      }
      done(null);
    };
    aedes.authorizeSubscribe = (client, sub, done) => {
      const s = this.sessions.get(client);
      // A shared subscription ($share/{group}/{filter}) is checked as its filter.
      const filter = parseShared(sub.topic)?.filter ?? sub.topic;
      const ok = !!s && checkSubscribe(this.o.kitchenId, filter, s.principal);
      if (s && !ok) this.refused('mqtt subscription refused', client.id, s.principal.name, sub.topic);
      done(null, ok ? sub : null);
    };
    aedes.authorizeForward = (client, packet) => {
      const s = this.sessions.get(client);
      if (!s || !canReceive(this.o.kitchenId, packet.topic, s.principal)) return null;
      // Expired: never delivered; too large for the client's Maximum Packet Size: dropped for it (mqtt5.ts).
      const max = (client as unknown as { maximumPacketSize?: number }).maximumPacketSize;
      return forwardable(packet, max, Date.now()) ?? null;
    };
    aedes.on('clientError', (client, err) => this.log('mqtt client error', { clientId: client?.id, err: err.message }));

    const host = this.o.host ?? '127.0.0.1';
    // No Nagle: a safety event must not wait for a delayed ACK before it leaves.
    this.tcp = createServer({ noDelay: true }, (socket) => {
      if (!this.frontDoor.admit(socket.remoteAddress, (fn) => socket.once('close', fn))) {
        socket.destroy();
        return;
      }
      socket.on('error', () => {}); // a reset by the peer; aedes reports what matters as a client error
      aedes.handle(socket);
      this.frontDoor.watchTcp(socket);
    });
    this.tcp.listen(this.o.port, host);
    await once(this.tcp, 'listening');
    this.tcpPort = (this.tcp.address() as AddressInfo).port;
    if (this.o.wsPort !== undefined) {
      this.http = createHttpServer((_req, res) => {
        res.writeHead(426, { 'content-type': 'text/plain' }).end('MQTT over WebSocket: connect with the mqtt subprotocol\n');
      });
      this.wss = new WebSocketServer({
        server: this.http,
        maxPayload: limits.maxPacketBytes + 16,
        handleProtocols: (protocols) => (protocols.has('mqtt') ? 'mqtt' : protocols.has('mqttv3.1') ? 'mqttv3.1' : false),
      });
      this.wss.on('connection', (ws, req) => {
        const address = req.socket.remoteAddress;
        if (!this.frontDoor.admit(address, (fn) => ws.once('close', fn))) {
          ws.close(1013, 'too many connections from this address');
          return;
        }
        const stream = createWebSocketStream(ws);
        aedes.handle(stream, req);
        this.frontDoor.watchWebSocket(ws, stream, address);
      });
      this.http.listen(this.o.wsPort, host);
      await once(this.http, 'listening');
      this.websocketPort = (this.http.address() as AddressInfo).port;
    }
  }

  /**
   * Publish as the hub (no ACL: the hub is the only one allowed on its own topics). Messages reach the subscribers
   * in the order of the calls; the promise settles once the broker has handled the message.
   */
  publish(msg: OutgoingMessage): Promise<void> {
    if (!this.aedes || this.aedes.closed) return Promise.reject(new Error('the MQTT broker is not running'));
    // A fresh buffer per message: its identity tells the mq.emit hook (see `start`) which message is going in.
    const payload = Buffer.from(msg.payload);
    return new Promise((resolve, reject) => {
      this.entering = this.entering.then(
        () =>
          new Promise<void>((letNextIn) => {
            const next = () => {
              this.onTheWay.delete(payload);
              letNextIn();
            };
            const aedes = this.aedes;
            if (!aedes || aedes.closed) {
              next();
              return reject(new Error('the MQTT broker is not running'));
            }
            this.onTheWay.set(payload, next);
            aedes.publish(
              {
                cmd: 'publish',
                topic: msg.topic,
                payload,
                qos: msg.qos,
                retain: msg.retain,
                dup: false,
                ...(msg.contentType || msg.correlationData || msg.userProperties
                  ? {
                      properties: {
                        ...(msg.contentType ? { contentType: msg.contentType } : {}),
                        ...(msg.correlationData ? { correlationData: msg.correlationData } : {}),
                        ...(msg.userProperties ? { userProperties: msg.userProperties } : {}),
                      },
                    }
                  : {}),
              },
              (err) => {
                next(); // also when it failed before reaching the subscribers
                if (err) reject(err);
                else resolve();
              },
            );
          }),
      );
    });
  }

  /** Disconnect clients whose token has been revoked since they logged in; returns how many. */
  revokeStale(): number {
    let n = 0;
    const clients = (this.aedes as unknown as { clients?: Record<string, Client> } | undefined)?.clients ?? {};
    for (const c of Object.values(clients)) {
      const s = this.sessions.get(c);
      if (s && !this.o.tokens.verify(s.token)) {
        c.close();
        n++;
      }
    }
    return n;
  }

  async stop(): Promise<void> {
    const aedes = this.aedes;
    this.aedes = undefined;
    for (const c of this.wss?.clients ?? []) c.terminate();
    await Promise.all([
      this.tcp ? new Promise<void>((r) => this.tcp?.close(() => r())) : undefined,
      this.http ? new Promise<void>((r) => this.http?.close(() => r())) : undefined,
      aedes ? new Promise<void>((r) => aedes.close(() => r())) : undefined,
    ]);
  }

  /** A token's own grants plus the config file's for its name. */
  private grantsOf(name: string, own: MqttGrants | undefined): MqttGrants | undefined {
    const extra = this.o.grants?.[name];
    if (!extra) return own;
    return {
      publish: [...new Set([...(own?.publish ?? []), ...extra.publish])],
      subscribe: [...new Set([...(own?.subscribe ?? []), ...extra.subscribe])],
    };
  }

  /** Log a refused publish or subscription once per client and topic (a device retrying every second logs once). */
  private refused(msg: string, clientId: string, principal: string, topic: string): void {
    const key = `${msg}\n${clientId}\n${topic.slice(0, 200)}`;
    if (this.refusals.has(key)) return;
    this.refusals.add(key);
    if (this.refusals.size > MAX_REFUSALS_REMEMBERED) this.refusals.delete(this.refusals.values().next().value as string);
    this.log(msg, { clientId, principal, topic: topic.slice(0, 200) });
  }

  private reportSpoof(clientId: string, principal: string, topic: string): void {
    const now = (this.o.now ?? Date.now)();
    const last = this.lastSpoof.get(clientId);
    if (last !== undefined && now - last < (this.o.spoofReportMs ?? 10_000)) return;
    this.lastSpoof.set(clientId, now);
    if (this.lastSpoof.size > 1000) this.lastSpoof.delete(this.lastSpoof.keys().next().value as string);
    this.o.onSpoof?.({ clientId, principal, topic: topic.slice(0, 200) });
  }
}
