import { Writable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import { createHttpApp } from './app.js';

function logged() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const log = pino({ level: 'info' }, stream);
  let children = 0;
  const child = log.child;
  // Children inherit this property: count the children bound to a request id (one per request that has one).
  log.child = function (this: typeof log, ...args: Parameters<typeof child>) {
    if ('reqId' in (args[0] ?? {})) children++;
    return child.apply(this, args);
  } as typeof log.child;
  return { log, lines, children: () => children };
}

t.test("a request's logger is made when the request logs, with the request id, and works as pino's", async (t) => {
  const { log, lines, children } = logged();
  const app = createHttpApp({ baseUrl: 'http://dev', loggerInstance: log });
  app.get('/quiet', async () => ({ ok: true }));
  app.get('/talks', async (req) => {
    req.log.info({ step: 1 }, 'hello');
    req.log.child({ part: 'inner' }).warn('from a child');
    return { level: req.log.level, enabled: (req.log as unknown as pino.Logger).isLevelEnabled('debug') };
  });
  app.get('/boom', async () => {
    throw new Error('secret internals');
  });
  await app.ready();

  const before = children();
  for (let i = 0; i < 5; i++) t.equal((await app.inject({ method: 'GET', url: '/quiet' })).statusCode, 200);
  t.equal(children(), before, 'requests that do not log make no child logger');

  const talks = await app.inject({ method: 'GET', url: '/talks' });
  t.same(talks.json(), { level: 'info', enabled: false });
  t.equal(children(), before + 1, 'one child for the request that logged');
  const hello = lines.find((l) => l.msg === 'hello');
  t.match(hello, { level: 30, step: 1, reqId: String });
  t.match(
    lines.find((l) => l.msg === 'from a child'),
    { level: 40, part: 'inner', reqId: hello?.reqId },
  );

  const boom = await app.inject({ method: 'GET', url: '/boom' });
  t.equal(boom.statusCode, 500);
  t.match(
    lines.find((l) => l.msg === 'unhandled error'),
    { level: 50, reqId: String, err: { message: 'secret internals' } },
    "an internal error is logged through the request's logger",
  );
  await app.close();
});
