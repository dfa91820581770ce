/**
 * The surfaces of the hostile-input harness (fuzz.ts): one operation per surface (REST, raw HTTP, MCP, SSE,
 * WebSocket, MQTT, pairing, webhooks), each sending one seeded malformed or cross-scope call to the running hub
 * and judging the answer: no 5xx, every HTTP error a problem document (MCP may answer a JSON-RPC error instead),
 * nothing left without an answer for more than 5 s.
 */
import { connect as netConnect } from 'node:net';
import mqtt from 'mqtt';
import WebSocket from 'ws';
import { ROWS } from '../runtime/hub/testing/scope-table.js';
import { authHeader, body, CONTENT_TYPES, FIELDS, fillPath, JUNK_PATHS, METHODS, type Pick, rawRequest, topic } from './fuzz-cases.js';
import { HANG_MS, httpJudge, isShed } from './fuzz-judge.js';
import { mcpMessage, mcpVersionHeader } from './fuzz-mcp.js';
import type { FuzzTarget } from './fuzz-target.js';

export const SURFACES = ['rest', 'raw', 'mcp', 'indexmcp', 'sse', 'websocket', 'mqtt', 'pairing', 'webhooks', 'scope', 'stop'] as const;
export type Surface = (typeof SURFACES)[number];

export interface Tally {
  sent: number;
  ok: number;
  refused: number;
  server5xx: number;
  notProblem: number;
  hangs: number;
  /** MCP answers that were JSON-RPC -32603 (internal error): client input that reached a fault of ours. */
  internal: number;
  /** 503 memory-pressure with Retry-After: a hub with a memory limit shedding load near it, as it must (not a failure). */
  shed?: number;
}

export { HANG_MS } from './fuzz-judge.js';

const MCP_ACCEPT = 'application/json, text/event-stream';

/** What every operation needs: the seeded source, the hub, the tokens to try, the tallies and the failure list. */
export interface FuzzContext {
  p: Pick;
  h: { url: FuzzTarget['url']; mqttUrl: FuzzTarget['mqttUrl'] };
  /** Whether the hub accepts this token (read once before the run). */
  valid: (token: string) => boolean;
  tokens: readonly string[];
  kitchen: string;
  /** The index server's base URL (its /v1/mcp is the `indexmcp` surface). */
  indexUrl: string;
  bySurface: Record<Surface, Tally>;
  fail: (s: Surface, what: string) => void;
}

export type OpSurface = Exclude<Surface, 'scope' | 'stop'>;

/** Run `fn` with a 5 s bound; a timeout is a hang. */
export async function bounded<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T | 'hang'> {
  const ac = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<'hang'>((resolve) => {
    timer = setTimeout(() => {
      ac.abort();
      resolve('hang');
    }, HANG_MS);
  });
  try {
    return await Promise.race([fn(ac.signal), hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** One operation per surface; each sends one hostile call and tallies what came back. */
export function surfaceOps(c: FuzzContext): Record<OpSurface, () => Promise<void>> {
  const { p, h, valid, tokens, kitchen, indexUrl, bySurface, fail } = c;
  const host = new URL(h.url).host;
  const judge = httpJudge(bySurface, fail, h.url);
  const http = (
    s: Surface,
    method: string,
    path: string,
    headers: Record<string, string | undefined>,
    payload?: string,
    mcp = false,
    base = h.url,
  ) =>
    (async () => {
      bySurface[s].sent++;
      const clean: Record<string, string> = {};
      for (const [k, v] of Object.entries(headers)) if (v !== undefined) clean[k] = v;
      const res = await bounded((signal) =>
        fetch(`${base}${path}`, {
          method,
          headers: clean,
          signal,
          ...(payload !== undefined && method !== 'GET' && method !== 'HEAD' ? { body: payload } : {}),
        }).then(async (r) => {
          // A stream that answered 200 is fine: read its head, not the whole stream.
          if (r.status === 200 && (r.headers.get('content-type') ?? '').startsWith('text/event-stream') && method === 'GET' && !mcp) {
            await r.body?.cancel();
            return new Response(null, { status: 200 });
          }
          const text = await r.text();
          return new Response(r.status === 204 || r.status === 304 ? null : text, { status: r.status, headers: r.headers });
        }),
      ).catch((err: Error) => {
        fail(s, `${method} ${path.slice(0, 80)}: client error ${err.message}`);
        return undefined;
      });
      if (res) await judge(s, `${method} ${path.slice(0, 80)}`, res, mcp, base);
    })();

  return {
    rest: () => {
      const route = p.chance(0.7) ? fillPath(p, p.one(ROWS).route) : p.one(JUNK_PATHS);
      const method = p.one(METHODS);
      return http(
        'rest',
        method,
        route,
        {
          authorization: authHeader(p, tokens),
          'content-type': p.one(CONTENT_TYPES),
          'idempotency-key': p.one([undefined, `fuzz-${p.int(1e9)}`, 'short', 'k'.repeat(300)]),
          accept: p.one([undefined, 'application/json', 'text/html', '*/*']),
        },
        body(p, FIELDS),
        // The MCP route keeps JSON-RPC errors inside its protocol, whichever surface reached it.
        (route.split('?')[0] ?? '').replace(/\/+/g, '/').replace(/\/$/, '') === '/svc/v1/mcp',
      );
    },
    raw: async () => {
      bySurface.raw.sent++;
      const data = rawRequest(p, p.one(JUNK_PATHS), host);
      const answer = await bounded(
        () =>
          new Promise<string>((resolve) => {
            let out = '';
            const s = netConnect(Number(new URL(h.url).port), '127.0.0.1', () => s.write(data));
            s.on('data', (d) => {
              out += d.toString();
              if (/\r\n\r\n/.test(out)) s.destroy();
            });
            s.on('error', () => {});
            s.on('close', () => resolve(out));
          }),
      );
      if (answer === 'hang') {
        bySurface.raw.hangs++;
        return fail('raw', `${JSON.stringify(data.slice(0, 60))}: no answer`);
      }
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1] ?? 0);
      if (isShed(status, /^retry-after: (\S+)/im.exec(answer)?.[1], answer)) bySurface.raw.shed = (bySurface.raw.shed ?? 0) + 1;
      else if (status >= 500) {
        bySurface.raw.server5xx++;
        fail('raw', `${JSON.stringify(data.slice(0, 60))}: ${status}`);
      } else if (status >= 400) {
        bySurface.raw.refused++;
        if (!/content-type: application\/problem\+json/i.test(answer)) {
          bySurface.raw.notProblem++;
          fail('raw', `${JSON.stringify(data.slice(0, 60))}: ${answer.slice(0, 120)}`);
        }
      } else bySurface.raw.ok++;
    },
    // Mostly well-formed HTTP (JSON, the Accept MCP wants), so the JSON-RPC inside reaches the SDK and its handlers.
    mcp: () =>
      http(
        'mcp',
        p.one(['POST', 'POST', 'POST', 'POST', 'GET', 'DELETE', 'PUT']),
        '/svc/v1/mcp',
        {
          authorization: p.chance(0.6) ? `Bearer ${p.one(tokens)}` : authHeader(p, tokens),
          'content-type': p.chance(0.7) ? 'application/json' : p.one(CONTENT_TYPES),
          accept: p.chance(0.7) ? MCP_ACCEPT : p.one(['application/json', undefined]),
          'mcp-protocol-version': mcpVersionHeader(p),
        },
        p.chance(0.85) ? JSON.stringify(mcpMessage(p)) : body(p, FIELDS),
        true,
      ),
    indexmcp: () =>
      http(
        'indexmcp',
        p.one(['POST', 'POST', 'POST', 'POST', 'GET', 'DELETE']),
        '/v1/mcp',
        {
          'content-type': p.chance(0.8) ? 'application/json' : p.one(CONTENT_TYPES),
          accept: p.chance(0.8) ? MCP_ACCEPT : p.one(['application/json', undefined]),
          'mcp-protocol-version': mcpVersionHeader(p),
        },
        p.chance(0.85) ? JSON.stringify(mcpMessage(p)) : body(p, FIELDS),
        true,
        indexUrl,
      ),
    sse: () => {
      const q = p.one([
        '',
        '?types=svc.safety.',
        '?types=%zz,,',
        '?session=x',
        `?lastEventId=${p.int(1e6)}`,
        '?lastEventId=nope',
        `?types=${'a'.repeat(2000)}`,
      ]);
      return http('sse', p.one(['GET', 'GET', 'HEAD']), `/svc/v1/events${q}`, {
        authorization: authHeader(p, tokens),
        'last-event-id': p.one([undefined, '1', 'x', '99999999999999999999']),
      });
    },
    websocket: async () => {
      bySurface.websocket.sent++;
      const auth = authHeader(p, tokens);
      const q = p.one(['', '?after=nope', '?types=svc.', '?session=x', '?after=1']);
      const outcome = await bounded(
        () =>
          new Promise<{ status: number; ct: string; text: string; retryAfter?: string }>((resolve) => {
            const ws = new WebSocket(`${h.url.replace(/^http/, 'ws')}/svc/v1/events/ws${q}`, {
              headers: auth ? { authorization: auth } : {},
              ...(p.chance(0.2) ? { protocolVersion: 8 } : {}),
            });
            ws.on('open', () => {
              ws.close();
              resolve({ status: 101, ct: '', text: '' });
            });
            ws.on('unexpected-response', (_req, res) => {
              let text = '';
              res.on('data', (d: Buffer) => (text += d.toString()));
              res.on('end', () =>
                resolve({
                  status: res.statusCode ?? 0,
                  ct: String(res.headers['content-type'] ?? ''),
                  text,
                  retryAfter: res.headers['retry-after'] as string | undefined,
                }),
              );
            });
            ws.on('error', () => resolve({ status: 0, ct: '', text: '' }));
          }),
      );
      if (outcome === 'hang') {
        bySurface.websocket.hangs++;
        return fail('websocket', 'no answer to the upgrade');
      }
      if (isShed(outcome.status, outcome.retryAfter, outcome.text)) {
        bySurface.websocket.shed = (bySurface.websocket.shed ?? 0) + 1;
        return;
      }
      if (outcome.status >= 500 || outcome.status === 0) {
        bySurface.websocket.server5xx++;
        return fail('websocket', `upgrade answered ${outcome.status}`);
      }
      if (outcome.status === 101) bySurface.websocket.ok++;
      else {
        bySurface.websocket.refused++;
        if (!/^application\/problem\+json/.test(outcome.ct)) {
          bySurface.websocket.notProblem++;
          fail('websocket', `${outcome.status} ${outcome.ct} ${outcome.text.slice(0, 100)}`);
        }
      }
    },
    mqtt: async () => {
      bySurface.mqtt.sent++;
      if (p.chance(0.2)) {
        // Garbage bytes where an MQTT packet should be.
        const junk = Buffer.from(Array.from({ length: 1 + p.int(64) }, () => p.int(256)));
        const done = await bounded(
          () =>
            new Promise<void>((resolve) => {
              const s = netConnect(Number(new URL(h.mqttUrl).port), '127.0.0.1', () => s.end(junk));
              s.on('error', () => {});
              s.on('close', () => resolve());
              s.setTimeout(3000, () => s.destroy());
            }),
        );
        if (done === 'hang') bySurface.mqtt.hangs++;
        else bySurface.mqtt.refused++;
        return;
      }
      const token = p.one([...tokens, '']);
      const accepted = token !== '' && valid(token);
      const c = mqtt.connect(h.mqttUrl, {
        protocolVersion: p.one([4, 5] as const),
        reconnectPeriod: 0,
        connectTimeout: HANG_MS,
        clientId: p.one(['', 'kitchen-display', `fuzz-${p.int(1e6)}`, 'x'.repeat(200)]),
        ...(token ? { username: 'fuzz', password: token } : {}),
      });
      c.on('error', () => {});
      try {
        const connected = await bounded(
          () =>
            new Promise<boolean>((resolve) => {
              c.once('connect', () => resolve(true));
              c.once('close', () => resolve(false));
            }),
        );
        if (connected === 'hang') {
          bySurface.mqtt.hangs++;
          return fail('mqtt', 'no CONNACK and no close within 5 s');
        }
        if (!connected) {
          bySurface.mqtt.refused++;
          return;
        }
        bySurface.mqtt.ok++;
        if (!accepted) fail('mqtt', 'a client without a valid token got in');
        for (let i = 0; i < 3 && c.connected; i++) {
          const tp = topic(p, kitchen);
          const qos = p.one([0, 1, 2] as const);
          if (p.chance(0.5)) await bounded(() => c.subscribeAsync(tp, { qos }).catch(() => undefined));
          else if (!tp.includes('#') && !tp.includes('+'))
            await bounded(() =>
              c.publishAsync(tp, body(p, FIELDS), { qos: qos === 2 ? 1 : qos, retain: p.chance(0.3) }).catch(() => undefined),
            );
        }
      } finally {
        c.end(true);
      }
    },
    pairing: () => {
      const roll = p.int(3);
      if (roll === 0) return http('pairing', 'POST', '/svc/v1/pair', { 'content-type': 'application/json' }, body(p, FIELDS));
      if (roll === 1)
        return http(
          'pairing',
          'POST',
          '/svc/v1/pair/token',
          { 'content-type': 'application/json' },
          JSON.stringify({ pollSecret: p.one(['x', 'a'.repeat(500), 1, null]) }),
        );
      return http(
        'pairing',
        p.one(['GET', 'POST']),
        fillPath(p, p.one(['/svc/v1/pair/requests', '/svc/v1/pair/requests/:code/approve'])),
        {
          authorization: authHeader(p, tokens),
          'content-type': 'application/json',
          'idempotency-key': `fuzz-${p.int(1e9)}`,
        },
        '{}',
      );
    },
    webhooks: () => {
      const good = { url: 'http://127.0.0.1:9/hook', types: ['svc.safety.'], secret: 'a-secret-of-sixteen+' };
      const payload = p.chance(0.3)
        ? JSON.stringify({ ...good, [p.one(['url', 'types', 'secret'])]: p.one([null, 1, 'ftp://x', [], 'x']) })
        : body(p, FIELDS);
      return http(
        'webhooks',
        p.one(['POST', 'POST', 'GET', 'DELETE']),
        fillPath(p, p.one(['/svc/v1/subscriptions', '/svc/v1/subscriptions/:id'])),
        {
          authorization: authHeader(p, tokens),
          'content-type': 'application/json',
          'idempotency-key': `fuzz-${p.int(1e9)}`,
        },
        payload,
      );
    },
  };
}
