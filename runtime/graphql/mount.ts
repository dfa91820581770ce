/**
 * GraphQL on the hub: `POST|GET /svc/v1/graphql` (queries and mutations over HTTP) and subscriptions over
 * WebSocket with the graphql-ws protocol (`graphql-transport-ws`) at the same path. graphql-js loads on first use
 * and serves HTTP itself; mercurius loads only for the first subscription (platform/graphql/mount.ts). Until
 * GraphQL has loaded, an emergencyStop mutation runs without it (estop-direct.ts).
 *
 * - HTTP needs a valid bearer token (401 problem with the Bearer challenge before any GraphQL), then each field
 *   checks its scope (scopes.ts) and a refusal is a GraphQL error whose `extensions` carry the problem.
 * - WebSocket: the token comes in the upgrade's `Authorization` header or in the `connection_init` payload
 *   (`{"authorization": "Bearer hth_…"}`, for browsers); without a valid one the socket closes 4403. Revoking
 *   the token closes its sockets (4403 `token revoked`). Subscriptions count against a per-token cap.
 * - The Host/Origin guard of the hub applies to both (it runs before this route).
 * - Depth and cost limits (platform/graphql/limits.ts) apply to every operation, subscriptions included.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { GraphqlEngine } from '../../platform/graphql/http.js';
import { type CallData, innerWebsocket, mountLazyGraphql } from '../../platform/graphql/mount.js';
import { type Principal, requirePrincipal, type TokenStore } from '../../platform/http/auth.js';
import type { RevocationWatch } from '../../platform/http/revocation.js';
import type { EventBus } from '../events/bus.js';
import type { HubGraphqlDeps } from './resolvers.js';

export const HUB_GRAPHQL_PATH = '/svc/v1/graphql';

export interface HubGraphqlOptions extends HubGraphqlDeps {
  bus: EventBus;
  tokens: TokenStore;
  /** The hub's public base URL (problem types). */
  baseUrl(): string;
  /** Close the sockets of revoked tokens. */
  revocations?: RevocationWatch;
  /** Subscriptions one token may hold at once (default 8). */
  maxSubscriptionsPerToken?: number;
  log?: { error(obj: object, msg?: string): void };
}

interface Connection {
  socket: WebSocket;
  /** From the upgrade's Authorization header, if it had a valid one. */
  headerPrincipal: Principal | null;
  principal?: Principal;
}

/** The token of a connection_init payload: `authorization` ("Bearer …"), `Authorization`, or `token`. */
function payloadToken(payload: unknown): string | undefined | null {
  if (payload === null || typeof payload !== 'object') return undefined;
  const p = payload as Record<string, unknown>;
  const auth = p.authorization ?? p.Authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer +(\S+) *$/i.exec(auth);
    return m ? (m[1] as string) : null;
  }
  if (typeof p.token === 'string') return p.token;
  return auth === undefined && p.token === undefined ? undefined : null;
}

export async function mountHubGraphql(http: FastifyInstance, o: HubGraphqlOptions) {
  // Upgrades reach fastify's router only through @fastify/websocket (the events feature registers it too).
  if (!http.hasDecorator('websocketServer')) {
    const { default: websocket } = await import('@fastify/websocket');
    await http.register(websocket, { options: { maxPayload: 64 * 1024 } });
  }
  const conns = new Map<WebSocket, Connection>();
  const offRevoke = o.revocations?.onRevoke((ids) => {
    for (const c of [...conns.values()]) if (c.principal && ids.has(c.principal.id)) c.socket.close(4403, 'token revoked');
  });

  /** Authenticate at connection_init, before mercurius reads the message (our listener runs first). */
  const watch = (socket: WebSocket, raw: IncomingMessage, callData: CallData) => {
    const conn: Connection = { socket, headerPrincipal: (callData({ raw, headers: raw.headers }) as Principal | null) ?? null };
    conns.set(socket, conn);
    socket.once('close', () => conns.delete(socket));
    const first = (data: unknown) => {
      socket.off('message', first);
      let msg: { type?: unknown; payload?: unknown } | undefined;
      try {
        msg = JSON.parse(String(data)) as typeof msg;
      } catch {
        return; // mercurius answers a malformed message itself
      }
      if (msg?.type !== 'connection_init') return;
      const token = payloadToken(msg.payload);
      const principal = token === undefined ? conn.headerPrincipal : token === null ? null : o.tokens.verify(token);
      if (!principal) {
        socket.close(4403, token === undefined ? 'Forbidden: a bearer token is needed' : 'Forbidden: unknown, revoked or malformed token');
        return;
      }
      conn.principal = principal;
    };
    socket.on('message', first);
  };

  const base = () => o.baseUrl();
  const log = (err: unknown) => o.log?.error({ err, component: 'graphql' }, 'GraphQL resolver failed');
  const lazy = mountLazyGraphql(http, {
    path: HUB_GRAPHQL_PATH,
    admit: (req: FastifyRequest, kind) => (kind === 'http' ? requirePrincipal(req) : req.principal),
    // An emergency stop never waits on loading GraphQL (estop-direct.ts).
    direct: async (body, principal) => {
      const { directEmergencyStop } = await import('./estop-direct.js');
      return directEmergencyStop(o, body, principal as Principal);
    },
    async engine() {
      const [{ buildEngine }, limits, errors, { HUB_SCHEMA }, { hubResolvers, JsonScalar }, { hubSubscriptions }] = await Promise.all([
        import('../../platform/graphql/engine.js'),
        import('../../platform/graphql/limits.js'),
        import('../../platform/graphql/errors.js'),
        import('./schema.js'),
        import('./resolvers.js'),
        import('./subscriptions.js'),
      ]);
      const subs = hubSubscriptions(o.bus, o.maxSubscriptionsPerToken);
      const resolvers = errors.withProblems({ ...hubResolvers(o), Subscription: subs.resolvers }, base, log);
      return buildEngine({
        sdl: HUB_SCHEMA,
        resolvers: { ...resolvers, JSON: JsonScalar },
        rules: [limits.limitsRule()],
        context: (principal) => ({ principal: principal as Principal }),
        base,
      });
    },
    subscriptions: (engine, callData) => subscriptionServer(engine, callData),
  });

  /** mercurius on an inner instance, for graphql-ws only, on the engine's schema (resolvers attached). */
  async function subscriptionServer(engine: GraphqlEngine, callData: CallData) {
    const [{ default: Fastify }, { default: mercurius }, limits, errors] = await Promise.all([
      import('fastify'),
      import('mercurius'),
      import('../../platform/graphql/limits.js'),
      import('../../platform/graphql/errors.js'),
    ]);
    const inner = Fastify({ logger: false });
    await innerWebsocket(inner);
    inner.websocketServer.on('connection', (socket: WebSocket, raw: IncomingMessage) => watch(socket, raw, callData));
    await inner.register(mercurius, {
      schema: engine.schema,
      path: HUB_GRAPHQL_PATH,
      graphiql: false,
      // Queries over the socket are rare: no LRU of parsed documents (HTTP keeps none either).
      cache: false,
      validationRules: [...engine.rules],
      errorFormatter: errors.problemErrorFormatter(base, mercurius.defaultErrorFormatter),
      subscription: {
        context: (socket, request) => ({ principal: conns.get(socket as WebSocket)?.principal ?? null, raw: request.raw }),
        keepAlive: 15_000,
      },
    });
    // Subscriptions skip mercurius' validation rules: check the limits before one starts.
    inner.graphql.addHook('preSubscriptionExecution', async (schema, document) => {
      const { validate } = await import('graphql');
      const [err] = validate(schema, document, [limits.limitsRule()]);
      if (err) throw errors.problemGraphqlError('query-too-complex', err.message, err.extensions, base());
    });
    return inner;
  }

  return {
    loaded: lazy.loaded,
    async close() {
      offRevoke?.();
      for (const c of [...conns.values()]) c.socket.close(1001, 'hub shutting down');
      await lazy.close();
    },
  };
}
