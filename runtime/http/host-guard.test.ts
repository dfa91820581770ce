/**
 * DNS rebinding and discovery over real sockets, against the hub as `hearth start` builds it: a foreign Host or
 * Origin is refused on REST, MCP and the events WebSocket (with a valid token: the token is no defence when a
 * page drives the victim's own client); a malformed Host is a 400 problem, never a 500; every 401 points at the
 * RFC 9728 metadata, which describes pairing.
 */
import { request } from 'node:http';
import t from 'tap';
import WebSocket from 'ws';
import { eventFeatures } from '../events/feature.js';
import { EVENTS_WS_PATH } from '../events/routes.js';
import { startHub } from '../hub/test-helpers.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** An HTTP/1.1 request with exactly these headers (fetch will not send a Host of our choosing). */
function raw(base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, method, headers, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const MCP_BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};

t.test('a foreign Host or Origin is refused on REST, MCP and WebSocket; a malformed Host is 400', async (t) => {
  const h = await startHub({
    beforeStart: (app) => {
      app.ctx.config.mqttPort = 0;
      for (const f of eventFeatures()) app.use(f);
    },
  });
  t.teardown(() => h.close());
  const token = h.token(['read', 'cook'], 'human');
  const port = new URL(h.url).port;
  const auth = { authorization: `Bearer ${token}` };

  const ok = await raw(h.url, 'GET', '/svc/v1/sessions', { ...auth, host: `localhost:${port}` });
  t.equal(ok.status, 200, 'localhost is allowed');
  t.equal(
    (await raw(h.url, 'GET', '/svc/v1/sessions', { ...auth, host: `127.0.0.1:${port}`, origin: `http://localhost:${port}` })).status,
    200,
  );

  const evil = await raw(h.url, 'GET', '/svc/v1/sessions', { ...auth, host: `evil.example.com:${port}` });
  t.equal(evil.status, 403, 'REST: foreign Host');
  t.match(evil.headers['content-type'], /application\/problem\+json/);
  t.match(JSON.parse(evil.body).type, /\/errors\/host-not-allowed$/);
  const evilOrigin = await raw(h.url, 'GET', '/svc/v1/sessions', { ...auth, host: `127.0.0.1:${port}`, origin: 'http://evil.example.com' });
  t.equal(evilOrigin.status, 403, 'REST: foreign Origin');
  t.match(JSON.parse(evilOrigin.body).type, /\/errors\/origin-not-allowed$/);
  const nullOrigin = await raw(h.url, 'GET', '/svc/v1/sessions', { ...auth, host: `127.0.0.1:${port}`, origin: 'null' });
  t.equal(nullOrigin.status, 403, 'a sandboxed page (Origin: null) is refused');
  const noToken = await raw(h.url, 'POST', '/safety/estop', { host: `evil.example.com:${port}` });
  t.equal(noToken.status, 403, 'refused before anything else, the e-stop route included');

  const mcp = await raw(h.url, 'POST', '/svc/v1/mcp', { ...auth, ...MCP_HEADERS, host: `evil.example.com:${port}` }, MCP_BODY);
  t.equal(mcp.status, 403, 'MCP: foreign Host');
  t.match(JSON.parse(mcp.body).type, /host-not-allowed$/);
  const mcpOrigin = await raw(
    h.url,
    'POST',
    '/svc/v1/mcp',
    { ...auth, ...MCP_HEADERS, host: `localhost:${port}`, origin: 'https://evil.example.com' },
    MCP_BODY,
  );
  t.equal(mcpOrigin.status, 403, 'MCP: foreign Origin');
  const mcpOk = await raw(h.url, 'POST', '/svc/v1/mcp', { ...auth, ...MCP_HEADERS, host: `localhost:${port}` }, MCP_BODY);
  t.equal(mcpOk.status, 200, 'MCP from localhost works');
  for (const bad of ['evil example', 'a:99999', '[zz]', 'a/b', '']) {
    const r = await raw(h.url, 'POST', '/svc/v1/mcp', { ...auth, ...MCP_HEADERS, host: bad }, MCP_BODY);
    t.equal(r.status, 400, `malformed Host ${JSON.stringify(bad)}: 400`);
    t.match(JSON.parse(r.body).type, /\/errors\/bad-request$/);
  }

  const upgrade = (headers: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}${EVENTS_WS_PATH}`, { headers: { ...auth, ...headers } });
      ws.on('open', () => {
        ws.close();
        resolve(101);
      });
      ws.on('unexpected-response', (_req, res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      ws.on('error', reject);
    });
  t.equal(await upgrade({}), 101, 'WebSocket from 127.0.0.1 opens');
  t.equal(await upgrade({ host: `evil.example.com:${port}` }), 403, 'WebSocket: foreign Host');
  t.equal(await upgrade({ origin: 'http://evil.example.com' }), 403, 'WebSocket: foreign Origin');
});

t.test('RFC 9728 metadata, and every 401 points at it', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const meta = await h.call('GET', '/.well-known/oauth-protected-resource');
  t.equal(meta.status, 200);
  t.equal(meta.body.resource, h.url);
  t.ok((meta.body.scopes_supported as string[]).includes('cook'));
  t.same(meta.body.bearer_methods_supported, ['header']);
  const pairing = meta.body.hearth_pairing as Record<string, string>;
  t.equal(pairing.device_authorization_endpoint, `${h.url}/svc/v1/pair`);
  t.equal(pairing.token_endpoint, `${h.url}/svc/v1/pair/token`);
  t.equal((await h.call('GET', '/.well-known/oauth-protected-resource/svc/v1/mcp')).status, 200, 'path-inserted form for the MCP URL');
  const expected = `resource_metadata="${h.url}/.well-known/oauth-protected-resource"`;
  for (const [method, path] of [
    ['GET', '/svc/v1/sessions'],
    ['POST', '/svc/v1/mcp'],
    ['GET', '/.well-known/agent-card.json'],
  ] as const) {
    const r = await h.call(method, path, { body: method === 'POST' ? {} : undefined, key: false });
    t.equal(r.status, 401, `${method} ${path}`);
    t.match(r.headers.get('www-authenticate'), /^Bearer realm="hearth"/);
    t.ok(r.headers.get('www-authenticate')?.includes(expected), `${path}: ${r.headers.get('www-authenticate')}`);
  }
  const bad = await h.call('GET', '/svc/v1/sessions', { token: 'hth_nope' });
  t.match(bad.headers.get('www-authenticate'), /error="invalid_token".*resource_metadata=/);
  const narrow = await h.call('GET', '/svc/v1/sessions', { token: h.token(['notify']) });
  t.equal(narrow.status, 403);
  t.match(narrow.headers.get('www-authenticate'), /insufficient_scope.*resource_metadata=/);
});
