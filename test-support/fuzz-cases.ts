/**
 * Generators of hostile input for the harness (fuzz.ts), all drawn from one seeded random source so a run can be
 * replayed: malformed JSON bodies, wrong types, huge and deep documents, odd methods, paths, headers and tokens.
 */

/** mulberry32: a small seeded PRNG (same seed, same run). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Pick {
  constructor(readonly r: () => number) {}
  int(n: number): number {
    return Math.floor(this.r() * n);
  }
  one<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)] as T;
  }
  chance(p: number): boolean {
    return this.r() < p;
  }
}

export const JUNK_BODIES: readonly string[] = [
  '{',
  '[1,',
  '{"a":}',
  'nul',
  '"unterminated',
  '{} trailing',
  '{"a":1,}',
  "{'a':1}",
  '{"a":NaN}',
  '{"a":1}{"b":2}',
  '\uFEFF{}',
  '{"a":"\\ud800"}',
  '{"a":01}',
  '{"a":9007199254740993}',
  '{"k":1,"k":2}',
  `${'['.repeat(3000)}${']'.repeat(3000)}`,
  `${'{"a":'.repeat(500)}1${'}'.repeat(500)}`,
  '1',
  '"a string"',
  '[]',
  'null',
  'true',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '',
];

const WRONG: readonly unknown[] = [null, 0, -1, 1.5, 1e308, true, '', ' ', 'x'.repeat(5000), [], [1], {}, '\u0000', '💥'.repeat(50)];

/** A body: junk text, an object with wrong-typed fields, or a big one. */
export function body(p: Pick, fields: readonly string[]): string {
  const roll = p.int(10);
  if (roll < 4) return p.one(JUNK_BODIES);
  if (roll < 9) {
    const o: Record<string, unknown> = {};
    const n = 1 + p.int(4);
    for (let i = 0; i < n; i++) o[p.one(fields)] = p.one(WRONG);
    return JSON.stringify(o);
  }
  return JSON.stringify({ pad: 'x'.repeat(p.one([1000, 100_000, 300_000])) });
}

export const FIELDS: readonly string[] = [
  'recipes',
  'serveAt',
  'mode',
  'acknowledgedRules',
  'answer',
  'upsert',
  'lines',
  'audience',
  'urgency',
  'message',
  'reason',
  'name',
  'kind',
  'scopes',
  'pollSecret',
  'url',
  'types',
  'secret',
  'core',
  'recipe',
  'recipeHash',
  'idempotencyKey',
  'note',
  'jsonrpc',
  'method',
  'params',
  'id',
];

export const METHODS: readonly string[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

export const CONTENT_TYPES: readonly (string | undefined)[] = [
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/',
  undefined,
];

/** A route path with its parameters filled by something valid-looking or junk. */
export function fillPath(p: Pick, route: string): string {
  const filled = route.replace(/:[a-z]+/gi, () =>
    p.one(['x', 'ses_0000000000000000', '..', '%2e%2e', '%00', 'a'.repeat(300), '💥', '12345', 'sub_0123456789abcdef', '%zz']),
  );
  const roll = p.int(10);
  if (roll === 0) return `${filled}/`;
  if (roll === 1) return `/${filled}`;
  if (roll === 2) return `${filled}?${p.one(['a=1&a=2', 'types=%zz', `session=${'x'.repeat(500)}`, '__proto__[x]=1', 'limit=-1'])}`;
  return filled;
}

export const JUNK_PATHS: readonly string[] = [
  '/',
  '/svc',
  '/svc/v1',
  '/svc/v1/',
  '/svc/v1/nope',
  '/../etc/passwd',
  '/%2e%2e/%2e%2e/etc/passwd',
  '/svc/v1/sessions/%00',
  `/svc/v1/${'a'.repeat(3000)}`,
  '/svc//v1///sessions',
  '/.well-known/',
  '/.well-known/oauth-protected-resource',
  '/.well-known/agent-card.json',
  '/dashboard/',
  '/dashboard/v1/state',
  '/dashboard/v1/estop',
  '/v1/executions',
  '/v1/incidents',
  '/v1/capabilities',
  '/v1/safety-limits',
  '/v1/recalls',
  '/sim/v1/state',
  '/favicon.ico',
  '/index.html',
];

/** An Authorization header value (or none). */
export function authHeader(p: Pick, tokens: readonly string[]): string | undefined {
  const roll = p.int(12);
  if (roll < 7) return `Bearer ${p.one(tokens)}`;
  return p.one([
    undefined,
    'Bearer',
    'Bearer ',
    'Basic dXNlcjpwYXNz',
    'bearer hth_not-a-token',
    `Bearer hth_${'x'.repeat(400)}`,
    'Bearer a b c',
    'Token x',
  ]);
}

/** Raw HTTP requests a client library would not send: broken request lines, headers, framing and Host. */
export function rawRequest(p: Pick, path: string, host: string): string {
  return p.one([
    'GET\r\n\r\n',
    `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nBad Header\r\n\r\n`,
    `FOO ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
    `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nX-A: ${'a'.repeat(20_000)}\r\n\r\n`,
    `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: abc\r\n\r\n`,
    `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n`,
    `GET ${path} HTTP/1.1\r\n\r\n`,
    `GET ${path} HTTP/1.1\r\nHost: evil.example.com\r\n\r\n`,
    `GET ${path} HTTP/1.1\r\nHost: a b\r\n\r\n`,
    `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
    `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 99\r\n\r\n`,
    `TRACE ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
    `GET ${path} HTTP/1.0\r\n\r\n`,
  ]);
}

/** MQTT topics a client might publish or subscribe to, hostile ones included. */
export function topic(p: Pick, kitchen: string): string {
  return p.one([
    `svc/${kitchen}/safety/oil-max`,
    `svc/${kitchen}/safety/kitchen`,
    `svc/${kitchen}/command/estop`,
    `svc/${kitchen}/telemetry/oil`,
    `svc/${kitchen}/#`,
    'svc/+/safety/#',
    '#',
    '$SYS/#',
    `svc/${kitchen}/device/hub`,
    `svc/other/safety/x`,
    'a/'.repeat(200),
  ]);
}
