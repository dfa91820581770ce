/**
 * MQTT interop (issue 14 items 4 and 5): clients that are not MQTT.js talk to the embedded broker of a whole hub.
 * Debian's mosquitto_sub / mosquitto_pub / mosquitto_rr (MQTT 5) and Eclipse Paho for Python (python3-paho-mqtt,
 * through test-support/paho_client.py): CONNECT with a token, wildcard subscriptions, QoS 1 and 2, retained
 * alarms, will messages, session expiry, topic aliases, shared subscriptions (`$share/…`, checked as their filter),
 * refusals with their reason codes, and request/response (create a session, read its tasks, refused for a missing
 * scope, e-stop). Physical outcomes are read from the simulated fryer.
 */
import t from 'tap';
import { startFullHub } from '../../test-support/hub-app.js';
import { fryerPower, heatFryer, mosquitto, type PahoEvent, paho, subscriber, until } from '../../test-support/mqtt-peers.js';
import { FRY_RECIPE } from '../hub/test-helpers.js';

const h = await startFullHub();
t.teardown(() => h.close());
const k = h.events.hub?.kitchenId ?? 'kitchen';
const port = Number(new URL(h.mqttUrl).port);
const host = '127.0.0.1';
const admin = h.token(['read', 'cook', 'admin'], 'human', 'admin');
const cook = h.token(['read', 'cook'], 'agent', 'cook-agent');
const reader = h.token(['read'], 'agent', 'display');
const button = h.token(['notify'], 'agent', 'wall-button');
const v5 = (user: string, token: string) => ['-V', 'mqttv5', '-h', host, '-p', String(port), '-u', user, '-P', token];
const newSession = (token: string) =>
  h.call('POST', '/svc/v1/sessions', {
    token,
    body: { recipes: [{ recipeId: FRY_RECIPE }], serveAt: '2026-06-01T19:00:00Z', mode: 'assisted' },
  });

t.test('mosquitto_sub -V mqttv5 with a token: wildcards, QoS 1 events, and refusals with their reason codes', async (t) => {
  const sub = subscriber([
    ...v5('display', reader),
    '-t',
    `svc/${k}/session/+`,
    '-t',
    `svc/${k}/task/#`,
    '-q',
    '1',
    '-C',
    '1',
    '-W',
    '60',
    '-F',
    'MSG %t|%q|%C|%p',
  ]);
  await sub.subscribed;
  t.match(sub.output(), /Subscribed \(mid: \d+\): 1, 1/, 'SUBACK grants QoS 1 on both wildcard filters');
  const created = await newSession(cook);
  t.equal(created.status, 201);
  const line = (await sub.exited).split('\n').find((l) => l.startsWith('MSG '));
  const [topic, qos, contentType, ...payload] = (line ?? '').slice(4).split('|');
  t.equal(topic, `svc/${k}/session/${created.body.id}`);
  t.equal(qos, '1');
  t.equal(contentType, 'application/cloudevents+json');
  t.equal(JSON.parse(payload.join('|')).type, 'svc.session.updated');

  const bad = await mosquitto('mosquitto_sub', [...v5('display', 'hth_not-a-token'), '-t', `svc/${k}/safety/#`, '-W', '30']);
  t.equal(bad.code, 0x86, 'CONNACK 0x86 for a bad token (mosquitto_sub exits with the reason code)');
  t.match(bad.stderr, /Bad User Name or Password/i);

  const denied = await mosquitto('mosquitto_sub', [...v5('wall-button', button), '-t', `svc/${k}/session/#`, '-W', '30', '-d']);
  t.match(denied.stdout, /Subscribed \(mid: \d+\): 135/, 'SUBACK 0x87 without read');
  t.match(denied.stderr, /All subscription requests were denied/);

  const shared = await mosquitto('mosquitto_sub', [
    ...v5('display', reader),
    '-t',
    `$share/displays/svc/${k}/safety/#`,
    '-E',
    '-W',
    '30',
    '-d',
  ]);
  t.match(shared.stdout, /Subscribed \(mid: \d+\): 0/, 'SUBACK QoS 0: a shared subscription, checked as its filter');
  const sharedDenied = await mosquitto('mosquitto_sub', [
    ...v5('wall-button', button),
    '-t',
    `$share/g/svc/${k}/session/#`,
    '-W',
    '30',
    '-d',
  ]);
  t.match(sharedDenied.stdout, /Subscribed \(mid: \d+\): 135/, 'SUBACK 0x87: sharing a filter does not widen the scopes');

  const spoof = await mosquitto('mosquitto_pub', [...v5('wall-button', button), '-t', `svc/${k}/safety/oil-max`, '-q', '1', '-m', '{}']);
  t.match(spoof.stderr, /Publish 1 failed: Not authorized/, 'PUBACK 0x87 for a publish on a safety topic');

  const holder = subscriber([...v5('display', reader), '-i', 'hall-display', '-t', `svc/${k}/safety/#`, '-W', '120']);
  await holder.subscribed;
  const thief = await mosquitto('mosquitto_sub', [
    ...v5('wall-button', button),
    '-i',
    'hall-display',
    '-t',
    `svc/${k}/safety/#`,
    '-W',
    '30',
  ]);
  t.equal(thief.code, 0x85, 'CONNACK 0x85: the client id belongs to another token');
  holder.child.kill();
  await holder.exited;
});

t.test('Paho: QoS 2 subscription, session expiry, topic aliases, shared subscriptions', async (t) => {
  const subs = paho({
    host,
    port,
    steps: [
      { do: 'connect', clientId: 'paho-display', password: reader },
      {
        do: 'subscribe',
        filters: [
          [`svc/${k}/safety/#`, 2],
          [`svc/${k}/#`, 1],
          [`$share/g/svc/${k}/#`, 1],
          [`svc/${k}/reply/someone/#`, 1],
        ],
      },
    ],
  });
  const connack = await subs.waitFor((e) => e.event === 'connack');
  t.equal(connack.rc, 0);
  t.equal(connack.topicAliasMaximum, 32, 'CONNACK offers 32 topic aliases');
  t.same(
    (await subs.waitFor((e) => e.event === 'suback')).rcs,
    [2, 1, 1, 0x87],
    'QoS 2 and 1 granted; shared 1; foreign reply topics 0x87',
  );
  await subs.done;

  // Session expiry: a kept session queues what happens while the client is away.
  const open = paho({
    host,
    port,
    steps: [
      { do: 'connect', clientId: 'paho-tablet', password: reader, sessionExpiry: 600 },
      { do: 'subscribe', filters: [[`svc/${k}/session/#`, 1]] },
      { do: 'disconnect' },
    ],
  });
  t.equal((await open.done).code, 0, 'subscribed and left');
  const created = await newSession(cook);
  const resume = paho({
    host,
    port,
    steps: [
      { do: 'connect', clientId: 'paho-tablet', password: reader, sessionExpiry: 600, cleanStart: false },
      { do: 'wait', count: 1, timeout: 60 },
    ],
  });
  t.equal((await resume.waitFor((e) => e.event === 'connack')).sessionPresent, true, 'session present after reconnecting');
  const queued = await resume.waitFor((e) => e.event === 'message');
  t.match(queued, { topic: `svc/${k}/session/${created.body.id}`, qos: 1 }, 'the event queued while away arrives');
  await resume.done;
  const gone = paho({
    host,
    port,
    steps: [{ do: 'connect', clientId: 'paho-phone', password: reader, sessionExpiry: 0 }, { do: 'disconnect' }],
  });
  await gone.done;
  const again = paho({ host, port, steps: [{ do: 'connect', clientId: 'paho-phone', password: reader, cleanStart: false }] });
  t.equal((await again.waitFor((e) => e.event === 'connack')).sessionPresent, false, 'session expiry 0: nothing kept');
  await again.done;

  // Topic aliases: the second request names its topic by alias only.
  const aliased = paho({
    host,
    port,
    steps: [
      { do: 'connect', clientId: 'paho-alias', password: reader },
      { do: 'subscribe', filters: [[`svc/${k}/reply/paho-alias/#`, 1]] },
      {
        do: 'publish',
        topic: `svc/${k}/command/get_mode`,
        payload: '{}',
        qos: 1,
        alias: 1,
        responseTopic: `svc/${k}/reply/paho-alias`,
        correlation: 'a1',
      },
      { do: 'publish', topic: '', payload: '{}', qos: 1, alias: 1, responseTopic: `svc/${k}/reply/paho-alias`, correlation: 'a2' },
      { do: 'wait', count: 2, timeout: 60 },
    ],
  });
  await aliased.done;
  const answers = aliased.events.filter((e) => e.event === 'message');
  t.same(answers.map((e) => e.correlation).sort(), ['a1', 'a2'], 'both requests answered: the alias resolved to svc/{k}/command/get_mode');
  t.ok(
    answers.every((e) => JSON.parse(String(e.payload)).mode),
    'each answer is the mode',
  );
});

t.test('will messages: a refused will is reported, a will on the e-stop topic stops the kitchen', async (t) => {
  const watch = subscriber([...v5('display', reader), '-t', `svc/${k}/safety/#`, '-q', '2', '-C', '1', '-W', '90', '-F', 'MSG %p']);
  await watch.subscribed;
  const spoofer = paho({
    host,
    port,
    steps: [
      {
        do: 'connect',
        clientId: 'paho-spoof-will',
        password: button,
        will: { topic: `svc/${k}/safety/oil-max`, payload: '{"fake":true}', qos: 1 },
      },
      { do: 'print', text: 'ready' },
      { do: 'hang' },
    ],
  });
  await spoofer.waitFor((e) => e.event === 'print');
  spoofer.child.kill('SIGKILL'); // no DISCONNECT: the broker publishes the will
  const line = (await watch.exited).split('\n').find((l) => l.startsWith('MSG '));
  const ce = JSON.parse((line ?? 'MSG {}').slice(4));
  t.equal(ce.type, 'svc.safety.spoof_refused', 'the will on a safety topic was refused and reported');
  t.match(ce.data.origin, { clientId: 'paho-spoof-will', principal: 'wall-button' });
  t.equal(h.app.ctx.supervisor.status().latched, false, 'and stopped nothing');

  await heatFryer(t, h, admin);
  const panel = paho({
    host,
    port,
    steps: [
      { do: 'connect', clientId: 'paho-panel', password: button, will: { topic: `svc/${k}/command/estop`, payload: '{}', qos: 1 } },
      { do: 'print', text: 'ready' },
      { do: 'hang' },
    ],
  });
  await panel.waitFor((e) => e.event === 'print');
  t.ok(fryerPower(h) > 0, 'still heating while the panel is connected');
  panel.child.kill('SIGKILL');
  t.ok(await until(() => fryerPower(h) === 0), 'the panel’s will cut the heat');
  t.equal(h.app.ctx.supervisor.status().latched, true);
});

t.test('mosquitto_pub QoS 2 e-stop; mosquitto_sub gets the retained alarm at QoS 2', async (t) => {
  await heatFryer(t, h, admin);
  const pub = await mosquitto('mosquitto_pub', [...v5('wall-button', button), '-t', `svc/${k}/command/estop`, '-q', '2', '-m', '{}']);
  t.equal(pub.code, 0, pub.stderr);
  t.equal(fryerPower(h), 0, 'heat is off');
  const later = await mosquitto('mosquitto_sub', [
    ...v5('wall-button', button),
    '-t',
    `svc/${k}/safety/#`,
    '-q',
    '2',
    '-C',
    '1',
    '-W',
    '60',
    '-F',
    '%t %r %q %p',
  ]);
  const [topic, retained, qos, ...rest] = later.stdout.trim().split(' ');
  t.same([topic, retained, qos], [`svc/${k}/safety/kitchen`, '1', '2'], 'retained, QoS 2');
  t.equal(JSON.parse(rest.join(' ')).type, 'svc.safety.estop');
});

t.test('mosquitto_rr: create a session, read its tasks, refused for a missing scope, e-stop', async (t) => {
  const rr = (user: string, token: string, op: string, body: string, extra: string[] = []) =>
    mosquitto('mosquitto_rr', [
      ...v5(user, token),
      '-i',
      user,
      '-t',
      `svc/${k}/command/${op}`,
      '-e',
      `svc/${k}/reply/${user}`,
      '-m',
      body,
      '-W',
      '60',
      '-F',
      '%j',
      ...extra,
    ]);
  const answer = (r: { stdout: string }) => {
    const j = JSON.parse(r.stdout.trim()) as { payload: string; properties: Record<string, unknown> };
    return { body: JSON.parse(j.payload), props: j.properties };
  };
  const created = answer(
    await rr(
      'cook-agent',
      cook,
      'create_session',
      JSON.stringify({ recipes: [{ recipeId: FRY_RECIPE }], serveAt: '2026-06-01T19:00:00Z', mode: 'assisted' }),
      ['-D', 'PUBLISH', 'correlation-data', 'req-1'],
    ),
  );
  t.equal(created.body.state, 'planned');
  t.match(created.props, { 'content-type': 'application/json', 'correlation-data': 'req-1', 'user-properties': { status: '200' } });
  const prepared = answer(
    await rr(
      'cook-agent',
      cook,
      'confirm_session',
      JSON.stringify({ id: created.body.id, acknowledgedRules: created.body.confirmation.requiredRules }),
    ),
  );
  t.equal(prepared.body.state, 'awaiting_confirmation');
  const tasks = answer(await rr('display', reader, 'list_tasks', JSON.stringify({ id: created.body.id })));
  t.equal(tasks.body.items[0]?.state, 'input_required', 'the confirmation waits for a person');

  const refused = await rr('display', reader, 'create_session', '{}', ['-q', '1']);
  // The PUBACK is 0x87 too (mosquitto_rr does not print it; MQTT.js and mosquitto_pub do: commands.test.ts, above).
  const problem = answer(refused);
  t.match(problem.body, { status: 403, type: `${h.url}/errors/forbidden`, requiredScope: 'cook' });
  t.match(problem.props, { 'content-type': 'application/problem+json', 'user-properties': { 'reason-code': '0x87', status: '403' } });

  await heatFryer(t, h, admin);
  const stop = answer(await rr('wall-button', button, 'emergency_stop', 'smoke in the kitchen (not JSON)'));
  t.equal(fryerPower(h), 0, 'heat is off');
  t.match(stop.body, { accepted: true, action: 'heat_off_all', latched: true, warnings: [/not an object/] });
});

t.test('Paho request/response: create a session, read its tasks, refused for a missing scope, e-stop', async (t) => {
  const ask = (clientId: string, token: string, requests: { op: string; args: unknown; qos?: number }[]) =>
    paho({
      host,
      port,
      steps: [
        { do: 'connect', clientId, password: token },
        { do: 'subscribe', filters: [[`svc/${k}/reply/${clientId}/#`, 1]] },
        ...requests.map((r, i) => ({
          do: 'publish',
          topic: `svc/${k}/command/${r.op}`,
          payload: typeof r.args === 'string' ? r.args : JSON.stringify(r.args),
          qos: r.qos ?? 1,
          responseTopic: `svc/${k}/reply/${clientId}/answers`,
          correlation: `${clientId}-${i}`,
        })),
        { do: 'wait', count: requests.length, timeout: 60 },
      ],
    });
  const replies = async (run: ReturnType<typeof ask>) => {
    await run.done;
    const byCorr = new Map<string, PahoEvent>();
    for (const e of run.events) if (e.event === 'message') byCorr.set(String(e.correlation), e);
    return (corr: string) => {
      const e = byCorr.get(corr);
      return {
        body: JSON.parse(String(e?.payload ?? '{}')),
        props: (e?.userProperties ?? {}) as Record<string, string>,
        contentType: e?.contentType,
      };
    };
  };
  const a = await replies(
    ask('paho-agent', cook, [
      { op: 'create_session', args: { recipes: [{ recipeId: FRY_RECIPE }], serveAt: '2026-06-01T19:00:00Z', mode: 'assisted' } },
    ]),
  );
  const session = a('paho-agent-0').body;
  t.equal(session.state, 'planned', 'created over Paho');
  const b = await replies(
    ask('paho-reader', reader, [
      { op: 'list_tasks', args: { id: session.id } },
      { op: 'create_session', args: { recipes: [{ recipeId: FRY_RECIPE }], serveAt: '2026-06-01T19:00:00Z', mode: 'assisted' }, qos: 2 },
    ]),
  );
  t.same(b('paho-reader-0').body, { items: [] }, 'no task until a confirmation is prepared');
  const refused = b('paho-reader-1');
  t.equal(refused.contentType, 'application/problem+json');
  t.match(refused.body, { status: 403, detail: 'the tool create_session needs the scope cook' });
  t.same([refused.props['reason-code'], refused.props.status], ['0x87', '403'], 'the reason code travels as a user property');

  await heatFryer(t, h, admin);
  const c = await replies(ask('paho-button', button, [{ op: 'emergency_stop', args: { reason: 'pan on fire' }, qos: 2 }]));
  t.equal(fryerPower(h), 0, 'heat is off');
  t.match(c('paho-button-0').body, { accepted: true, action: 'heat_off_all', latched: true });
  t.match(h.app.ctx.supervisor.status().trip?.message, /wall-button via MQTT: pan on fire/);
});
