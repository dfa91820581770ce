// @slow: starts mosquitto and runs the project's MQTT 5 cases against it and the embedded broker (about a minute)
/**
 * `npm run interop:mqtt` as a test (issue 29 item 3): Hearth's embedded broker passes every one of the project's
 * own MQTT 5 cases that Debian's mosquitto passes, and the cases the embedded broker needs its MQTT 5 additions
 * for (flow control, maximum packet size, shared subscriptions, 0x99, redelivery with DUP, session present) pass.
 */
import t from 'tap';
import { sideBySide } from './mqtt-interop-cli.js';

t.test('side by side: hearth passes every case mosquitto passes', async (t) => {
  const r = await sideBySide();
  const failed = (l: typeof r.hearth) => l.filter((c) => !c.pass).map((c) => `${c.name}: ${c.detail}`);
  t.same(r.behind, [], `cases mosquitto passes and hearth fails:\n${failed(r.hearth).join('\n')}`);
  const hearth = new Map(r.hearth.map((c) => [c.name, c.pass]));
  for (const name of [
    'flow_control',
    'maximum_packet_size',
    'shared_subscriptions',
    'payload_format_invalid',
    'redelivery_on_reconnect',
    'session_expiry',
  ])
    t.equal(hearth.get(name), true, name);
  t.ok(r.mosquitto.filter((c) => c.pass).length >= 20, 'the cases are sound: mosquitto passes most of them');
});
