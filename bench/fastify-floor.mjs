// The floor `npm run bench -- start` measures `hearth start` against: a bare Node process that starts Fastify
// with one route and answers it. Plain JavaScript (no tsx) so that it costs what such a process costs.
import Fastify from 'fastify';

const app = Fastify();
app.get('/v1/safety-limits', async () => ({ limits: [] }));
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`floor ready ${url}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
