/**
 * The dashboard's HTTP surface. `GET /` and `/dashboard/*` are the checked-in page (plain HTML, one ES module,
 * CSS; nothing is built at run time). Its data:
 *
 * - `GET /dashboard/v1/state` (a snapshot) and `GET /dashboard/v1/events` (Server-Sent Events, one JSON message
 *   per change) are read-only and answer without a token only to a local client (loopback or a private LAN
 *   range, see local.ts); from anywhere else they need a token with `read` (or `admin`).
 * - `POST /dashboard/v1/estop` is the kitchen's e-stop button on a screen: from a local client it needs no token
 *   (like the physical button), from anywhere else any valid token. Heat is cut through the supervisor before the
 *   body is read, and the request is never refused for its body.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ProblemError } from '../../platform/http/problems.js';
import { startSse } from '../../platform/http/sse.js';
import { packageRoot } from '../config/paths.js';
import { emergencyStop, type SafetyDeps } from '../hub/safety/index.js';
import { isLocalAddress } from './local.js';
import type { DashboardMessage, DashboardModel } from './model.js';

/** The page's files live in the source tree (runtime/dashboard/public), also when running from dist/. */
const PUBLIC = join(packageRoot(), 'runtime', 'dashboard', 'public');

const ASSETS: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/dashboard/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/dashboard/plot.js': { file: 'plot.js', type: 'text/javascript; charset=utf-8' },
  '/dashboard/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
  '/dashboard/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
  '/favicon.ico': { file: 'favicon.svg', type: 'image/svg+xml' },
};

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

export type Access = 'local' | 'token';

/** Local clients pass; others need a token (with `read`/`admin` when `needRead`). */
export function checkAccess(req: FastifyRequest, needRead: boolean): Access {
  if (isLocalAddress(req.ip)) return 'local';
  const p = req.principal;
  if (!p) {
    const presented = req.headers.authorization !== undefined;
    throw new ProblemError(
      'unauthorized',
      presented
        ? 'the bearer token is unknown, revoked or malformed'
        : 'the dashboard answers without a token only on the local network; from elsewhere send a bearer token',
      {},
      { 'WWW-Authenticate': presented ? 'Bearer realm="hearth", error="invalid_token"' : 'Bearer realm="hearth"' },
    );
  }
  if (needRead && !p.scopes.includes('read') && !p.scopes.includes('admin'))
    throw new ProblemError(
      'forbidden',
      'the dashboard feed needs a token with the read scope',
      {},
      {
        'WWW-Authenticate': 'Bearer realm="hearth", error="insufficient_scope", scope="read"',
      },
    );
  return 'token';
}

export interface DashboardRoutesOptions {
  model: DashboardModel;
  safety: SafetyDeps;
  keepAliveMs?: number;
}

export function registerDashboardRoutes(http: FastifyInstance, o: DashboardRoutesOptions): { close(): void } {
  const assets = new Map(Object.entries(ASSETS).map(([path, a]) => [path, { ...a, body: readFileSync(join(PUBLIC, a.file)) }]));
  for (const [path, a] of assets) {
    http.get(path, async (_req, reply) => reply.headers(SECURITY_HEADERS).type(a.type).send(a.body));
  }

  http.get('/dashboard/v1/state', async (req) => {
    checkAccess(req, true);
    return o.model.snapshot();
  });

  const open = new Set<() => void>();
  http.get('/dashboard/v1/events', async (req, reply) => {
    checkAccess(req, true);
    const res = startSse(reply, 2000);
    const write = (m: DashboardMessage | { type: 'snapshot'; snapshot: unknown }) => {
      if (!res.writableEnded) res.write(`data: ${JSON.stringify(m)}\n\n`);
    };
    write({ type: 'snapshot', snapshot: o.model.snapshot() });
    const off = o.model.subscribe(write);
    const timer = setInterval(() => res.write(': keep-alive\n\n'), o.keepAliveMs ?? 15_000);
    timer.unref();
    const close = () => {
      clearInterval(timer);
      off();
      open.delete(close);
      if (!res.writableEnded) res.end();
    };
    open.add(close);
    res.on('close', close);
  });

  type Stopped = FastifyRequest & { dashboardStop?: ReturnType<typeof emergencyStop> };
  const registerEstop = (scope: FastifyInstance) =>
    scope.post(
      '/dashboard/v1/estop',
      {
        config: { idempotency: 'optional' },
        onRequest: async (req) => {
          const access = checkAccess(req, false);
          const by = access === 'local' ? `the dashboard at ${req.ip}` : `${req.principal?.kind} ${req.principal?.name} via the dashboard`;
          (req as Stopped).dashboardStop = emergencyStop(o.safety, 'the e-stop on the dashboard was pressed', by);
        },
      },
      async (req, reply) =>
        reply.code(202).send({ accepted: true, action: 'heat_off_all', trip: (req as Stopped).dashboardStop, safety: o.model.safety() }),
    );
  // In its own context, where any body of any type is read and dropped: the stop is never refused for its body.
  http.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, payload, done) => {
      payload.resume();
      payload.on('end', () => done(null, undefined));
      payload.on('error', () => done(null, undefined));
    });
    registerEstop(scope);
  });
  return {
    close() {
      for (const c of [...open]) c();
    },
  };
}
