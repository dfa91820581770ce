/**
 * The hostile-input harness: a real hub (every feature, 127.0.0.1, free ports) and a seeded stream of malformed,
 * oversized and cross-scope calls over every surface (REST, MCP, SSE, WebSocket, MQTT, pairing, webhooks, raw
 * HTTP). It checks: no 5xx; every HTTP error a problem document (MCP may answer a JSON-RPC error instead); no
 * request hanging more than 5 s; the scope matrix of runtime/hub/scope-table.ts; no safety message on the bus that
 * the hub did not journal (no spoof got through); heat cut by every stop (REST, MQTT, MCP, dashboard), read from
 * the simulated heaters; and RSS after the run against before. `npm run fuzz` runs it in full; fuzz.test.ts runs
 * a short one inside `npm test`.
 */
import { connect as netConnect } from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import mqtt from 'mqtt';
import WebSocket from 'ws';
import { expected, ROWS, TOKEN_SCOPES } from '../runtime/hub/scope-table.js';
import { authHeader, body, CONTENT_TYPES, FIELDS, fillPath, JUNK_PATHS, METHODS, Pick, rawRequest, rng, topic } from './fuzz-cases.js';
import { type FullHub, startFullHub } from './hub-app.js';

export const SURFACES = ['rest', 'raw', 'mcp', 'sse', 'websocket', 'mqtt', 'pairing', 'webhooks', 'scope', 'stop'] as const;
export type Surface = (typeof SURFACES)[number];

export interface Tally {
  sent: number;
  ok: number;
  refused: number;
  server5xx: number;
  notProblem: number;
  hangs: number;
}

export interface FuzzReport {
  seed: number;
  requests: number;
  bySurface: Record<Surface, Tally>;
  failures: string[];
  stops: { via: string; heatCut: boolean }[];
  spoofsSeen: number;
  rssBeforeMb: number;
  rssAfterMb: number;
}

const HANG_MS = 5000;
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

function rssMb(): number {
  gc();
  gc();
  return process.memoryUsage().rss / 1024 / 1024;
}

/** Run `fn` with a 5 s bound; a timeout is a hang. */
async function bounded<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T | 'hang'> {
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

export async function runFuzz(o: {
  seed: number;
  requests: number;
  concurrency?: number;
  log?: (line: string) => void;
  /** Called with the running hub after the last round, before RSS is measured (memory checks). */
  inspect?: (h: FullHub) => void | Promise<void>;
}): Promise<FuzzReport> {
  const p = new Pick(rng(o.seed));
  const h = await startFullHub();
  const bySurface = Object.fromEntries(
    SURFACES.map((s) => [s, { sent: 0, ok: 0, refused: 0, server5xx: 0, notProblem: 0, hangs: 0 }]),
  ) as Record<Surface, Tally>;
  const failures: string[] = [];
  const fail = (s: Surface, what: string) => {
    if (failures.length < 50) failures.push(`${s}: ${what}`);
  };
  const kitchen = h.events.hub?.kitchenId ?? 'kitchen';
  const host = new URL(h.url).host;
  const scoped = new Map<string | null, string | undefined>(
    TOKEN_SCOPES.map((s) => [s, s === null ? undefined : h.token([s], 'human', `fuzz ${s}`)]),
  );
  const revoked = h.newToken(['read', 'cook'], 'human', 'fuzz revoked');
  h.app.ctx.tokens.revoke('fuzz revoked');
  const agent = h.token(['read', 'cook', 'notify', 'inventory', 'order:create'], 'agent', 'fuzz agent');
  const admin = h.token(['admin', 'read'], 'human', 'fuzz admin');
  const tokens = [...[...scoped.values()].filter((t): t is string => !!t), revoked.token, agent, admin, 'hth_not-a-real-token'];

  // A watcher of the bus: every safety message it sees must be one the hub journalled.
  const watcher = await mqtt.connectAsync(h.mqttUrl, { protocolVersion: 5, reconnectPeriod: 0, username: 'watch', password: admin });
  let spoofsSeen = 0;
  const journal = h.events.journal;
  watcher.on('message', (_t, payload) => {
    if (payload.length === 0) return;
    try {
      const ce = JSON.parse(payload.toString()) as { id?: string };
      if (!ce.id || journal?.positionOf(ce.id) === undefined) spoofsSeen++;
    } catch {
      spoofsSeen++;
    }
  });
  await watcher.subscribeAsync(`svc/${kitchen}/safety/#`, { qos: 1 });

  /** Check one HTTP answer. */
  const judge = async (s: Surface, label: string, res: Response | 'hang', mcp = false) => {
    const t = bySurface[s];
    if (res === 'hang') {
      t.hangs++;
      return fail(s, `${label}: no answer within ${HANG_MS} ms`);
    }
    const text = await res.text().catch(() => '');
    if (res.status >= 500) {
      t.server5xx++;
      return fail(s, `${label}: ${res.status} ${text.slice(0, 200)}`);
    }
    if (res.status < 400) {
      t.ok++;
      return;
    }
    t.refused++;
    const ct = res.headers.get('content-type') ?? '';
    let doc: Record<string, unknown> = {};
    try {
      doc = JSON.parse(text) as Record<string, unknown>;
    } catch {}
    const problem =
      /^application\/problem\+json/.test(ct) &&
      typeof doc.type === 'string' &&
      doc.type.startsWith(`${h.url}/errors/`) &&
      doc.status === res.status;
    const jsonRpc = mcp && typeof doc.jsonrpc === 'string' && typeof doc.error === 'object';
    if (!problem && !jsonRpc && !(res.status === 405 && ct === '' && text === '') && !(label.startsWith('HEAD') && text === '')) {
      t.notProblem++;
      fail(s, `${label}: ${res.status} ${ct} ${text.slice(0, 120)}`);
    }
  };

  const http = (s: Surface, method: string, path: string, headers: Record<string, string | undefined>, payload?: string, mcp = false) =>
    (async () => {
      bySurface[s].sent++;
      const clean: Record<string, string> = {};
      for (const [k, v] of Object.entries(headers)) if (v !== undefined) clean[k] = v;
      const res = await bounded((signal) =>
        fetch(`${h.url}${path}`, {
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
      if (res) await judge(s, `${method} ${path.slice(0, 80)}`, res, mcp);
    })();

  const ops: Record<Exclude<Surface, 'scope' | 'stop'>, () => Promise<void>> = {
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
      if (status >= 500) {
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
    mcp: () => {
      const tool = p.one(['search_recipes', 'get_recipe', 'emergency_stop', 'get_inventory', 'set_mode', 'nope', 'create_session']);
      const msg = p.one([
        { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: tool, arguments: toolArgs(p) },
        },
        {
          jsonrpc: '2.0',
          id: 4,
          method: 'resources/read',
          params: { uri: p.one(['svc://inventory', 'svc://recipe/x', 'file:///etc/passwd']) },
        },
        { jsonrpc: '1.0', id: 5, method: 'x' },
        [{ jsonrpc: '2.0', id: 6, method: 'tools/list' }],
      ]);
      return http(
        'mcp',
        p.one(['POST', 'POST', 'POST', 'GET', 'DELETE', 'PUT']),
        '/svc/v1/mcp',
        {
          authorization: authHeader(p, tokens),
          'content-type': p.one(CONTENT_TYPES),
          accept: p.one(['application/json, text/event-stream', 'application/json', undefined]),
          'mcp-protocol-version': p.one(['2025-06-18', '2026-07-28', 'bogus', undefined]),
        },
        p.chance(0.8) ? JSON.stringify(msg) : body(p, FIELDS),
        true,
      );
    },
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
          new Promise<{ status: number; ct: string; text: string }>((resolve) => {
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
              res.on('end', () => resolve({ status: res.statusCode ?? 0, ct: String(res.headers['content-type'] ?? ''), text }));
            });
            ws.on('error', () => resolve({ status: 0, ct: '', text: '' }));
          }),
      );
      if (outcome === 'hang') {
        bySurface.websocket.hangs++;
        return fail('websocket', 'no answer to the upgrade');
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
      const valid = token !== '' && !!h.app.ctx.tokens.verify(token);
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
        if (!valid) fail('mqtt', 'a client without a valid token got in');
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
  const weights: [keyof typeof ops, number][] = [
    ['rest', 34],
    ['raw', 6],
    ['mcp', 14],
    ['sse', 8],
    ['websocket', 8],
    ['mqtt', 8],
    ['pairing', 10],
    ['webhooks', 12],
  ];
  const total = weights.reduce((s, [, w]) => s + w, 0);
  const pickOp = () => {
    let x = p.int(total);
    for (const [name, w] of weights) {
      if (x < w) return name;
      x -= w;
    }
    return 'rest' as const;
  };

  o.log?.('scope matrix');
  await scopeMatrix(h, p, scoped, bySurface.scope, fail, o.requests >= 5000);
  o.log?.('hostile calls');
  const stops: FuzzReport['stops'] = [];
  const runOps = async (n: number) => {
    let next = 0;
    const worker = async () => {
      while (next < n) {
        next++;
        const name = pickOp();
        // Every operation has its own 5 s bounds; this outer bound (3×) catches a client library left waiting.
        let timer: NodeJS.Timeout | undefined;
        const stuck = await Promise.race([
          ops[name]().then(() => false),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(true), 3 * HANG_MS);
          }),
        ]);
        clearTimeout(timer);
        if (stuck) {
          bySurface[name].hangs++;
          fail(name, 'an operation did not finish within 15 s');
        }
        if (next % 100 === 0) o.log?.(`${next}/${n}`);
      }
    };
    await Promise.all(Array.from({ length: o.concurrency ?? 4 }, worker));
  };
  await runOps(Math.min(300, Math.floor(o.requests / 10)));
  const rssBeforeMb = rssMb();
  const { stopChecks } = await import('./fuzz-stops.js');
  const rounds = Math.max(1, Math.floor(o.requests / 5000));
  for (let r = 0; r < rounds; r++) {
    await runOps(Math.floor(o.requests / rounds));
    o.log?.('stops');
    stops.push(...(await stopChecks(h, admin, kitchen, bySurface.stop, fail)));
  }
  watcher.end(true);
  await o.inspect?.(h);
  o.log?.('closing');
  const rssAfterMb = rssMb();
  await Promise.race([h.close(), new Promise((r) => setTimeout(r, 20_000).unref())]);
  return {
    seed: o.seed,
    requests: SURFACES.reduce((s, k) => s + bySurface[k].sent, 0),
    bySurface,
    failures,
    stops,
    spoofsSeen,
    rssBeforeMb,
    rssAfterMb,
  };
}

/** MCP tool arguments: an object with wrong-typed or junk fields (never invalid JSON: the envelope carries it). */
function toolArgs(p: Pick): Record<string, unknown> {
  try {
    const v = JSON.parse(body(p, FIELDS)) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
  } catch {
    return { query: 'x'.repeat(p.int(3000)) };
  }
}

/** The scope matrix (runtime/hub/scope-table.ts): every row against every token scope, or a sample. */
async function scopeMatrix(
  h: FullHub,
  p: Pick,
  scoped: Map<string | null, string | undefined>,
  t: Tally,
  fail: (s: Surface, what: string) => void,
  full: boolean,
): Promise<void> {
  await h.presence(true);
  const pairs = ROWS.flatMap((row) => TOKEN_SCOPES.map((scope) => ({ row, scope })));
  const chosen = full ? pairs : pairs.filter(() => p.chance(0.25));
  for (const { row, scope } of chosen) {
    h.app.ctx.supervisor.reset('fuzz');
    const want = expected(row.need, scope);
    const prepared = row.setup ? await row.setup(h) : {};
    const r = await h.call(row.method, prepared.path ?? row.route, {
      token: scoped.get(scope),
      ...((prepared.body ?? row.body) !== undefined ? { body: prepared.body ?? row.body } : {}),
      ...(row.headers ? { headers: row.headers } : {}),
    });
    t.sent++;
    const good = want === 'ok' ? r.status === row.ok : r.status === want;
    if (good) t.ok++;
    else fail('scope', `${row.method} ${row.route} with ${scope ?? 'no token'}: ${r.status}, expected ${want === 'ok' ? row.ok : want}`);
    row.cleanup?.(h);
  }
  h.app.ctx.supervisor.reset('fuzz');
}
