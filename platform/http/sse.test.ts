import t from 'tap';
import { createHttpApp } from './app.js';
import { startSse } from './sse.js';

t.test('startSse sends the event-stream head and the retry delay, then the route writes events', async (t) => {
  const app = createHttpApp({ baseUrl: 'http://dev' });
  app.get('/feed', (_req, reply) => {
    const res = startSse(reply, 1500);
    res.end('data: {"n":1}\n\n');
  });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'GET', url: '/feed' });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-type'], 'text/event-stream; charset=utf-8');
  t.equal(res.headers['cache-control'], 'no-cache, no-transform');
  t.equal(res.headers['x-accel-buffering'], 'no');
  t.equal(res.body, 'retry: 1500\n\ndata: {"n":1}\n\n');
});
