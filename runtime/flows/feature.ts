/**
 * The embedded Node-RED of `hearth start --flows` (off by default), on the hub's own HTTP server: the editor and
 * admin API at /flows, flow HTTP endpoints at /flows/api, the editor's WebSocket at /flows/comms. Everything
 * there needs a Hearth token with the admin scope (see node-red.ts). Flows use Hearth only through the nodes in
 * flows/, i.e. the public API: they can ask, the safety supervisor decides.
 *
 * `runFlow(flowId, inputs)` runs a deployed flow that starts with an "svc flow in" node (the hub's `run_flow`).
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext, Feature } from '../app/context.js';
import { flowsPackageDir, loadNodeRed, type NodeRed, nodeRedSettings } from './node-red.js';

const require = createRequire(import.meta.url);

export const FLOWS_ROOT = '/flows';

interface Runs {
  run(flowId: string, inputs: unknown, opts?: { timeoutMs?: number; requestedBy?: string }): Promise<unknown>;
  list(): string[];
}

export interface FlowsFeature extends Feature {
  runFlow(flowId: string, inputs: unknown, opts?: { timeoutMs?: number; requestedBy?: string }): Promise<unknown>;
  flowIds(): string[];
}

type Upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

export function flowsFeature(opts: { userDir?: string } = {}): FlowsFeature {
  const dir = flowsPackageDir();
  // The same module instance the svc-flow nodes register with (Node-RED requires them from this directory).
  const runs = require(join(dir, 'nodes/lib/runs.js')) as Runs;
  let RED: NodeRed | undefined;
  const upgrades = new EventEmitter();
  let dispatcher: Upgrade | undefined;
  let originals: Upgrade[] = [];
  return {
    name: 'flows',
    runFlow: (flowId, inputs, o) => {
      if (!RED) return Promise.reject(new Error('flows are off: start Hearth with --flows'));
      return runs.run(flowId, inputs, o);
    },
    flowIds: () => (RED ? runs.list() : []),
    async start(ctx: AppContext) {
      const loaded = loadNodeRed();
      RED = loaded.RED;
      const settings = nodeRedSettings({
        root: FLOWS_ROOT,
        userDir: opts.userDir ?? join(ctx.config.dataDir, 'flows'),
        nodesDir: join(dir, 'nodes'),
        verify: (token) => ctx.tokens.verify(token),
        baseUrl: () => ctx.baseUrl(),
        log: (level, msg) => ctx.log[level]({ component: 'flows' }, msg),
      });
      // Node-RED only listens for WebSocket upgrades on the server it is given; Hearth hands it the editor's.
      RED.init(upgrades, settings);
      const app = loaded.express();
      app.disable('x-powered-by');
      app.use(`${FLOWS_ROOT}/api`, RED.httpNode);
      app.use(FLOWS_ROOT, RED.httpAdmin);
      // Before Fastify reads the body: Node-RED's express apps parse their own requests.
      const pass = async (req: FastifyRequest, reply: FastifyReply) => {
        reply.hijack();
        app(req.raw, reply.raw);
      };
      const method = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];
      for (const url of [FLOWS_ROOT, `${FLOWS_ROOT}/*`]) ctx.http.route({ method, url, onRequest: pass, handler: async () => undefined });
      // Node-RED loads its node modules here, before the safety supervisor and its event-loop watchdog start:
      // that burst of synchronous work must not look like a stalled control loop.
      await RED.start();
    },
    ready(ctx: AppContext) {
      const server = ctx.http.server;
      originals = server.listeners('upgrade') as Upgrade[];
      server.removeAllListeners('upgrade');
      dispatcher = (req, socket, head) => {
        if ((req.url ?? '').split('?')[0] === `${FLOWS_ROOT}/comms`) upgrades.emit('upgrade', req, socket, head);
        else for (const l of originals) l.call(server, req, socket, head);
      };
      server.on('upgrade', dispatcher);
    },
    listening(ctx: AppContext) {
      // Only now does the base URL carry the real port (with --http-port 0 it would say :0 before).
      ctx.log.info({ editor: `${ctx.baseUrl()}${FLOWS_ROOT}/` }, 'flows (Node-RED) started');
    },
    async stop(ctx: AppContext) {
      try {
        await RED?.stop();
      } finally {
        if (dispatcher) {
          ctx.http.server.off('upgrade', dispatcher);
          for (const l of originals) ctx.http.server.on('upgrade', l);
        }
        RED = undefined;
      }
    },
  };
}
