/**
 * A loopback web server for tests: serves fixed bodies at paths (a /.well-known/svc-verify record, a recipe
 * collection, a JWKS). `url(path)` gives the full URL. Unknown paths answer 404.
 */
import { createServer, type Server } from 'node:http';

export interface TestWebServer {
  base: string;
  url(path: string): string;
  set(path: string, body: string | Buffer, type?: string): void;
  close(): Promise<void>;
}

export async function startTestWebServer(): Promise<TestWebServer> {
  const files = new Map<string, { body: Buffer; type: string }>();
  const server: Server = createServer((req, res) => {
    const f = files.get((req.url ?? '/').split('?')[0] ?? '/');
    if (!f) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': f.type, 'content-length': f.body.length }).end(f.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = addr && typeof addr === 'object' ? addr.port : 0;
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    url: (path) => `${base}${path}`,
    set(path, body, type = 'application/json') {
      files.set(path, { body: Buffer.isBuffer(body) ? body : Buffer.from(body), type });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
