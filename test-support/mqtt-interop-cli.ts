/**
 * `npm run interop:mqtt`: the project's own MQTT 5 conformance cases (mqtt-interop-cases.ts) against Debian's
 * mosquitto and against Hearth's embedded broker, in one run, side by side. Both get the same user: on mosquitto a
 * password and an ACL (read/write `interop/#`, read `$SYS/#`), on Hearth a paired token with `read` and the grants
 * `interop/#` (`hearth token create --mqtt-publish interop/# --mqtt-subscribe interop/#`). Prints one line per
 * case and both pass counts; exits 1 when Hearth fails a case mosquitto passes. `--json` prints the results as JSON.
 */
import { makeKitchen } from '../runtime/events/testing.js';
import { EmbeddedBroker } from '../runtime/mqtt/broker.js';
import { startMosquitto } from '../runtime/mqtt/mosquitto.js';
import { type CaseResult, runCases, type Target } from './mqtt-interop.js';
import { CASES } from './mqtt-interop-cases.js';

export interface SideBySide {
  cases: number;
  mosquitto: CaseResult[];
  hearth: CaseResult[];
  /** Cases mosquitto passes and Hearth does not. */
  behind: string[];
}

export async function sideBySide(only?: readonly string[]): Promise<SideBySide> {
  const cases = only ? CASES.filter((c) => only.includes(c.name)) : CASES;
  const mosq = await startMosquitto({
    users: { interop: 'interop-pass' },
    acl: 'user interop\ntopic readwrite interop/#\ntopic read $SYS/#\n',
  });
  const k = makeKitchen({ kitchenId: 'kitchen' });
  const hearth = new EmbeddedBroker({ kitchenId: 'kitchen', tokens: k.tokens, host: '127.0.0.1', port: 0 });
  try {
    await hearth.start();
    const token = k.tokens.create({ name: 'interop', scopes: ['read'], mqtt: { publish: ['interop/#'], subscribe: ['interop/#'] } }).token;
    const targets: Target[] = [
      { name: 'mosquitto', host: '127.0.0.1', port: mosq.port, username: 'interop', password: 'interop-pass' },
      { name: 'hearth', host: '127.0.0.1', port: hearth.port, username: 'interop', password: token },
    ];
    const [m, h] = [await runCases(targets[0] as Target, cases), await runCases(targets[1] as Target, cases)];
    const behind = m.filter((r, i) => r.pass && !h[i]?.pass).map((r) => r.name);
    return { cases: cases.length, mosquitto: m, hearth: h, behind };
  } finally {
    await hearth.stop().catch(() => {});
    await mosq.stop();
    k.db.close();
  }
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const r = await sideBySide(only.length ? only : undefined);
  if (json) {
    process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
  } else {
    process.stdout.write("The project's own MQTT 5 cases (not the Eclipse Paho suite): test-support/mqtt-interop-cases.ts\n\n");
    const w = Math.max(...r.mosquitto.map((c) => c.name.length));
    process.stdout.write(`${'case'.padEnd(w)}  mosquitto  hearth  clause\n`);
    r.mosquitto.forEach((c, i) => {
      const h = r.hearth[i];
      const mark = (ok: boolean | undefined) => (ok ? 'pass' : 'FAIL');
      process.stdout.write(`${c.name.padEnd(w)}  ${mark(c.pass).padEnd(9)}  ${mark(h?.pass).padEnd(6)}  ${c.clause}\n`);
      for (const [who, res] of [
        ['mosquitto', c],
        ['hearth', h],
      ] as const)
        if (res && !res.pass) process.stdout.write(`${''.padEnd(w)}  ${who}: ${res.detail}\n`);
    });
    const passed = (l: CaseResult[]) => l.filter((c) => c.pass).length;
    process.stdout.write(`\nmosquitto: ${passed(r.mosquitto)} of ${r.cases} passed\n`);
    process.stdout.write(`hearth: ${passed(r.hearth)} of ${r.cases} passed\n`);
    process.stdout.write(
      r.behind.length === 0
        ? 'hearth passes every case mosquitto passes\n'
        : `hearth fails cases mosquitto passes: ${r.behind.join(', ')}\n`,
    );
  }
  process.exitCode = r.behind.length === 0 ? 0 : 1;
}

if (process.argv[1]?.endsWith('mqtt-interop-cli.ts')) {
  main().catch((err: Error) => {
    process.stderr.write(`interop:mqtt: ${err.message}\n`);
    process.exitCode = 2;
  });
}
