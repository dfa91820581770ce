/**
 * Relief events reach a token whose only scope is `relief` (runtime/events/filter.ts SCOPE_CATEGORIES), over a real
 * socket on the whole hub (SSE and the embedded MQTT broker): the coordinator follows the needs, pledges and
 * allocations it works on without `read`. A `cook` token's MQTT subscription to relief topics is refused.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startFullHub } from '../../../test-support/hub-app.js';
import { mqttSubscriber, sseSubscriber, waitFor } from '../../../test-support/subscribers.js';
import { packageRoot } from '../../config/paths.js';

const REF = join(packageRoot(), '../shared/reference/examples/relief');
const ref = (f: string) => JSON.parse(readFileSync(join(REF, `${f}.json`), 'utf8')) as Record<string, unknown>;

t.test('a relief-only token receives svc.relief.* over SSE and MQTT; a cook token does not', async (t) => {
  const h = await startFullHub({ config: { relief: { coordinator: true } } });
  t.teardown(() => h.close());
  const relief = h.token(['relief'], 'agent', 'relief only');
  const sse = await sseSubscriber(`${h.url}/svc/v1/events?types=svc.relief.`, relief);
  t.teardown(() => sse.close());
  const mqtt = await mqttSubscriber(h.mqttUrl, 'relief-watcher', relief, 'svc/+/relief/#');
  t.teardown(() => mqtt.close());
  t.same(
    mqtt.granted.map((g) => g.qos),
    [2],
    'the relief topics are granted to a relief token',
  );
  await t.rejects(
    mqttSubscriber(h.mqttUrl, 'cook-watcher', h.token(['cook'], 'agent', 'cook'), 'svc/+/relief/#'),
    /Not authorized/,
    'a cook token may not subscribe to relief topics',
  );

  t.equal((await h.call('POST', '/svc/v1/relief/needs', { token: relief, body: ref('need') })).status, 201);
  t.equal((await h.call('POST', '/svc/v1/relief/pledges', { token: relief, body: ref('pledge-robot') })).status, 201);
  const want = ['svc.relief.need need-2026-11-03-shubra', 'svc.relief.pledge pl-882'];
  const has = (seen: { type: string; subject?: string }[]) => want.filter((w) => !seen.some((e) => `${e.type} ${e.subject}` === w));
  await waitFor('relief events over SSE', () => has(sse.got.map((g) => g.ce)));
  await waitFor('relief events over MQTT', () => has(mqtt.got.map((g) => g.ce)));
  t.match(
    sse.got.find((g) => g.ce.type === 'svc.relief.need')?.ce.data,
    { id: 'need-2026-11-03-shubra', status: 'open' },
    'the need as posted',
  );
  t.same([...new Set(mqtt.got.map((g) => g.topic.split('/')[2]))], ['relief'], 'only relief topics');
});
