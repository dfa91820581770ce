// The floor `npm run bench -- start` measures `hearth start` against: a bare Node process that starts Fastify
// with one route and answers it. Plain JavaScript (no tsx) so that it costs what such a process costs.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const app = Fastify();
app.get('/v1/safety-limits', async () => ({ limits: [] }));
// `npm run bench -- hash` compares status reads with this floor answering a body of the same size and shape:
// FLOOR_BODY_FILE names a JSON file, served (serialized per request, as hearth does) at /floor/body.
if (process.env.FLOOR_BODY_FILE) {
  const body = JSON.parse(readFileSync(process.env.FLOOR_BODY_FILE, 'utf8'));
  app.get('/floor/body', async () => body);
}
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`floor ready ${url}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
