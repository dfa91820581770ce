import t from 'tap';
import { startTestApp } from '../app/testing.js';

t.test('GET /v1/recalls?since=: RFC 3339 with a time zone; a bad value says what to write', async (t) => {
  const h = await startTestApp({ listen: true });
  t.teardown(() => h.close());
  h.app.ctx.executor.recalls.add({
    id: 'rc-1',
    issuedAt: '2026-10-04T10:00:00Z',
    action: 'block',
    targets: [{ ref: 'x', allRevisions: true }],
  });
  const get = (q: string) => fetch(`${h.app.baseUrl}/v1/recalls?since=${q}`);
  const ids = async (q: string) => ((await (await get(q)).json()) as { id: string }[]).map((r) => r.id);
  t.same(await ids('2026-10-04T09:59:59Z'), ['rc-1']);
  t.same(await ids('2026-10-04T11:59:59%2B02:00'), ['rc-1'], 'an offset, with + percent-encoded');
  t.same(await ids('2026-10-04T10:00:00Z'), [], 'strictly after since');
  t.same(await ids('2026-10-04T10:00:01Z'), []);
  for (const [q, hint] of [
    ['yesterday', /"yesterday" is not an RFC 3339 date-time with a time zone; write it like 2026-11-25T06:00:00Z/],
    ['2026-10-04', /not an RFC 3339 date-time/],
    ['2026-10-04T10:00:00', /with a time zone/],
    ['2026-02-30T10:00:00Z', /not an RFC 3339 date-time/],
    ['2026-10-04T12:00:00+02:00', /a "\+" in a query string reads as a space: write the offset as %2B02:00/],
  ] as const) {
    const r = await get(q);
    t.equal(r.status, 400, q);
    t.match(r.headers.get('content-type'), /^application\/problem\+json/);
    t.match(await r.json(), { status: 400, detail: hint, errors: [{ in: 'querystring', pointer: '/since' }] }, q);
  }
});
