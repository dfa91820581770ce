import t from 'tap';
import { startDashboardApp } from './test-app.js';

t.test('the page and its assets are served without a build step', async (t) => {
  const d = await startDashboardApp();
  t.teardown(() => d.close());
  const page = await fetch(`${d.url}/`);
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /text\/html/);
  t.match(page.headers.get('content-security-policy'), /script-src 'self'/);
  const html = await page.text();
  t.match(html, /<button id="estop"/);
  for (const asset of ['/dashboard/app.js', '/dashboard/plot.js', '/dashboard/style.css']) {
    const r = await fetch(`${d.url}${asset}`);
    t.equal(r.status, 200, asset);
    t.ok((await r.text()).length > 100, `${asset} has content`);
  }
});

t.test('state: local clients need no token; others need read', async (t) => {
  const d = await startDashboardApp();
  t.teardown(() => d.close());
  const http = d.app.ctx.http;
  const local = await http.inject({ url: '/dashboard/v1/state', remoteAddress: '192.168.4.20' });
  t.equal(local.statusCode, 200);
  const snap = local.json();
  t.same(
    snap.sensors.map((s: { id: string }) => s.id),
    [...d.app.ctx.rig.sensors.keys()],
  );
  t.equal(snap.safety.latched, d.app.ctx.supervisor.status().latched, 'the supervisor’s state');

  const away = await http.inject({ url: '/dashboard/v1/state', remoteAddress: '203.0.113.5' });
  t.equal(away.statusCode, 401);
  t.match(away.headers['content-type'], /application\/problem\+json/);
  t.match(away.json(), { status: 401, detail: /local network/ });
  const cookOnly = await http.inject({
    url: '/dashboard/v1/state',
    remoteAddress: '203.0.113.5',
    headers: { authorization: `Bearer ${d.token(['cook'])}` },
  });
  t.equal(cookOnly.statusCode, 403);
  const reader = await http.inject({
    url: '/dashboard/v1/state',
    remoteAddress: '203.0.113.5',
    headers: { authorization: `Bearer ${d.token(['read'])}` },
  });
  t.equal(reader.statusCode, 200);
  const spoofed = await http.inject({
    url: '/dashboard/v1/state',
    remoteAddress: '203.0.113.5',
    headers: { 'x-forwarded-for': '127.0.0.1' },
  });
  t.equal(spoofed.statusCode, 401, 'a forwarded header does not make a request local');
});

t.test('e-stop: no token from the LAN, a token from elsewhere; heat is cut', async (t) => {
  const d = await startDashboardApp();
  t.teardown(() => d.close());
  const { http, supervisor } = d.app.ctx;
  const refused = await http.inject({ method: 'POST', url: '/dashboard/v1/estop', remoteAddress: '8.8.8.8' });
  t.equal(refused.statusCode, 401);
  t.not(supervisor.status().trip?.reason, 'estop', 'no e-stop from a refused request');
  const ok = await http.inject({
    method: 'POST',
    url: '/dashboard/v1/estop',
    remoteAddress: '10.1.2.3',
    payload: 'not json at all',
    headers: { 'content-type': 'text/plain' },
  });
  t.equal(ok.statusCode, 202, 'never refused for its body');
  t.match(ok.json(), {
    accepted: true,
    action: 'heat_off_all',
    safety: { latched: true, trip: { reason: 'estop', message: /dashboard at 10\.1\.2\.3/ } },
  });
  t.equal(supervisor.status().latched, true);
  t.ok(
    [...d.app.ctx.rig.heaters.values()].every((h) => h.power === 0),
    'every heater off',
  );
  const remote = await http.inject({
    method: 'POST',
    url: '/dashboard/v1/estop',
    remoteAddress: '8.8.8.8',
    headers: { authorization: `Bearer ${d.token(['read'], 'agent')}` },
  });
  t.equal(remote.statusCode, 202, 'any valid token from elsewhere');
});

t.test('the event stream starts with a snapshot and carries live readings', async (t) => {
  const d = await startDashboardApp();
  t.teardown(() => d.close());
  const ac = new AbortController();
  t.teardown(() => ac.abort());
  const res = await fetch(`${d.url}/dashboard/v1/events`, { signal: ac.signal });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /text\/event-stream/);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const dec = new TextDecoder();
  let buf = '';
  const next = async (pred: (m: { type: string; [k: string]: unknown }) => boolean) => {
    for (;;) {
      const frames = buf.split('\n\n');
      buf = frames.pop() ?? '';
      for (const f of frames) {
        const line = f.split('\n').find((l) => l.startsWith('data: '));
        if (!line) continue;
        const m = JSON.parse(line.slice(6));
        if (pred(m)) return m;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error('stream ended');
      buf += `${dec.decode(value)}`;
    }
  };
  const first = await next(() => true);
  t.equal(first.type, 'snapshot');
  const sensor = [...d.app.ctx.rig.sensors.keys()][0] as string;
  await fetch(`${d.url}/sim/v1/temperature`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sensor, tempC: 142.5 }),
  });
  await d.clock.advanceAsync(1000);
  const reading = await next(
    (m) => m.type === 'telemetry' && m.sensor === sensor && typeof m.tempC === 'number' && Math.abs((m.tempC as number) - 142.5) < 3,
  );
  t.match(reading, { type: 'telemetry', sensor });
  await fetch(`${d.url}/dashboard/v1/estop`, { method: 'POST' });
  const safety = await next((m) => m.type === 'safety');
  t.match(safety, { safety: { latched: true, trip: { reason: 'estop' } } });
});
