#!/usr/bin/env node
// Makes sure the real third-party peers the tests talk to are on this machine: Debian's mosquitto and
// mosquitto-clients (an MQTT 5 broker and clients, mosquitto_rr included), python3-paho-mqtt (Eclipse Paho, the
// other MQTT 5 client of runtime/mqtt/interop.test.ts), socat (pty pairs for serial tests), chromium
// (browser tests), python3 (its http.server hosts a built index) and postgresql (the registry's PostgreSQL store; tests make a throwaway cluster). Installs what is missing with apt-get when it can (root, or passwordless sudo);
// otherwise stops with one line naming the packages to install. Does nothing when all are present.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

const needs = [
  { bin: 'mosquitto', pkg: 'mosquitto' },
  { bin: 'mosquitto_sub', pkg: 'mosquitto-clients' },
  { bin: 'socat', pkg: 'socat' },
  { bin: 'chromium', pkg: 'chromium' },
  // the unit's `systemd-analyze verify` test and sd_notify (systemd/, runtime/app/sd-notify.ts)
  { bin: 'systemd-analyze', pkg: 'systemd' },
  { bin: 'systemd-notify', pkg: 'systemd' },
  // a web server that is not Hearth, serving a built index (runtime/sync/plain-host.test.ts)
  { bin: 'python3', pkg: 'python3' },
  // Eclipse Paho for Python (test-support/paho_client.py): Debian's python3 must import it
  { bin: 'paho', pkg: 'python3-paho-mqtt', found: () => hasPaho() },
  // line-buffered output of mosquitto_sub in the interop tests
  { bin: 'stdbuf', pkg: 'coreutils' },
  // a terminal for `hearth hil`'s prompts (util-linux's script, runtime/hil/hil-command.test.ts)
  { bin: 'script', pkg: 'bsdutils' },
  // an XML Schema validator: the JUnit XML of `hearth hil --junit` against the Jenkins/Ant schema (runtime/hil/junit.test.ts)
  { bin: 'xmllint', pkg: 'libxml2-utils' },
  // Debian keeps initdb and pg_ctl in /usr/lib/postgresql/<major>/bin, off PATH (test-support/postgres.ts)
  { bin: 'initdb', pkg: 'postgresql', found: () => debianPostgres() },
];

const has = (bin) => spawnSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }).status === 0;
function hasPaho() {
  return ['/usr/bin/python3', 'python3'].some((py) => spawnSync(py, ['-c', 'import paho.mqtt.client'], { stdio: 'ignore' }).status === 0);
}
function debianPostgres() {
  const root = '/usr/lib/postgresql';
  return existsSync(root) && readdirSync(root).some((m) => existsSync(`${root}/${m}/bin/initdb`));
}
const missing = [...new Set(needs.filter((n) => !has(n.bin) && !n.found?.()).map((n) => n.pkg))];
if (missing.length === 0) process.exit(0);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const sudo = isRoot ? [] : spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0 ? ['sudo', '-n'] : null;
if (sudo === null || !has('apt-get')) {
  console.error(`hearth tests need these Debian packages: ${missing.join(' ')} (install them with apt-get, then run npm test again)`);
  process.exit(1);
}
console.error(`installing test peers from Debian: ${missing.join(' ')}`);
const run = (args) => {
  const [cmd, ...rest] = [...sudo, ...args];
  execFileSync(cmd, rest, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
};
run(['apt-get', 'update', '-q']);
run(['apt-get', 'install', '-y', '-q', '--no-install-recommends', ...missing]);
