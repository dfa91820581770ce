import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ConfigError, defaultConfig, loadConfigFile, resolveConfig } from './config.js';
import { loadDevice } from './device.js';
import { loadRecipes } from './recipes.js';

const dir = mkdtempSync(join(tmpdir(), 'hearth-config-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('defaults', (t) => {
  const d = defaultConfig();
  t.equal(d.host, '127.0.0.1');
  t.equal(d.httpPort, 8080);
  t.equal(d.rig, 'simulated');
  t.equal(d.simSpeed, 1);
  t.match(d.device, /examples\/devices\/demo-fryer-robot\.json$/);
  t.match(d.limits, /examples\/limits\/demo-fryer\.limits\.json$/);
  t.match(d.recipes, /examples\/recipes$/);
  t.end();
});

t.test('file (YAML and JSON), then command line over it; relative paths follow the file', (t) => {
  const yaml = join(dir, 'a.yaml');
  writeFileSync(yaml, 'host: 0.0.0.0\nhttpPort: 9000\ndataDir: data\nsimSpeed: manual\nrecipes: ./r\n');
  const c = resolveConfig({ config: yaml, httpPort: '0' }, '/elsewhere');
  t.equal(c.host, '0.0.0.0');
  t.equal(c.httpPort, 0, 'command line wins');
  t.equal(c.dataDir, join(dir, 'data'));
  t.equal(c.recipes, join(dir, 'r'));
  t.equal(c.simSpeed, 'manual');
  const json = join(dir, 'b.json');
  writeFileSync(json, JSON.stringify({ simSpeed: 30, rig: 'rig.yaml' }));
  const j = loadConfigFile(json);
  t.equal(j.simSpeed, 30);
  t.equal(j.rig, join(dir, 'rig.yaml'));
  t.equal(resolveConfig({ simSpeed: '2.5', dataDir: 'x' }, '/base').dataDir, '/base/x');
  t.end();
});

t.test('relief coordination: relief: {coordinator: true} in the file, or --relief-coordinator', (t) => {
  t.equal(defaultConfig().relief, undefined, 'off by default');
  const f = join(dir, 'relief.yaml');
  writeFileSync(f, 'relief:\n  coordinator: true\n');
  t.same(resolveConfig({ config: f }).relief, { coordinator: true });
  t.same(resolveConfig({ reliefCoordinator: true }).relief, { coordinator: true }, 'the flag as commander gives it');
  t.equal(resolveConfig({}).relief, undefined);
  const bad = join(dir, 'relief-bad.yaml');
  writeFileSync(bad, 'relief:\n  coordinator: yes please\n');
  t.throws(() => loadConfigFile(bad), /relief-bad\.yaml: \/relief\/coordinator must be boolean/);
  writeFileSync(bad, 'relief:\n  coordinate: true\n');
  t.throws(() => loadConfigFile(bad), /relief-bad\.yaml: \/coordinate is not a known option/);
  t.end();
});

t.test('webhook destinations: webhooks.allow in the file, or --webhooks-allow; bad entries named', (t) => {
  t.equal(defaultConfig().webhooks, undefined, 'nothing beyond public addresses by default');
  const f = join(dir, 'webhooks.yaml');
  writeFileSync(f, 'webhooks:\n  allow: [192.168.1.20, nodered.local, 10.0.0.0/24]\n');
  t.same(resolveConfig({ config: f }).webhooks, { allow: ['192.168.1.20', 'nodered.local', '10.0.0.0/24'] });
  t.same(resolveConfig({ config: f, webhooksAllow: '127.0.0.1, ::1' }).webhooks, { allow: ['127.0.0.1', '::1'] }, 'the flag wins');
  t.throws(() => resolveConfig({ webhooksAllow: '10.0.0.0/33' }), /^--webhooks-allow: 10\.0\.0\.0\/33: a \/33 network is longer/);
  const bad = join(dir, 'webhooks-bad.yaml');
  writeFileSync(bad, 'webhooks:\n  allow: ["http://x/"]\n');
  t.throws(() => loadConfigFile(bad), /webhooks-bad\.yaml: \/webhooks\/allow: http:\/\/x\/: not an address/);
  writeFileSync(bad, 'webhooks:\n  allowed: []\n');
  t.throws(() => loadConfigFile(bad), /webhooks-bad\.yaml: \/allowed is not a known option/);
  t.end();
});

t.test('errors name the file, the path and the reason', (t) => {
  const cases: [string, string, RegExp][] = [
    ['p.yaml', 'httpPort: 70000\n', /p\.yaml: \/httpPort must be <= 65535/],
    ['q.yaml', 'colour: red\n', /q\.yaml: \/colour is not a known option/],
    ['r.yaml', 'simSpeed: -1\n', /r\.yaml: \/simSpeed must be a number above 0/],
    ['s.yaml', 'logLevel: loud\n', /s\.yaml: \/logLevel must be equal to one of the allowed values \(silent/],
    ['t.json', '{"host":', /t\.json: not valid JSON/],
    ['u.yaml', '- a\n- b\n', /u\.yaml: \/ must be an object of options/],
    ['v.yaml', 'publicUrl: ftp://x\n', /v\.yaml: \/publicUrl must match pattern/],
  ];
  for (const [name, text, re] of cases) {
    const f = join(dir, name);
    writeFileSync(f, text);
    t.throws(() => loadConfigFile(f), re, name);
    t.throws(() => loadConfigFile(f), ConfigError);
  }
  t.throws(() => loadConfigFile(join(dir, 'missing.yaml')), /missing\.yaml: cannot read the config file \(ENOENT\)/);
  t.throws(() => resolveConfig({ httpPort: 'abc' }), /^--http-port must be integer/);
  t.throws(() => resolveConfig({ simSpeed: '0' }), /^--sim-speed must be a number above 0/);
  t.end();
});

t.test('the example device, limits and recipes load', (t) => {
  const d = defaultConfig();
  const dev = loadDevice(d.device, d.limits);
  t.ok(dev.capabilities.capabilities.ops.some((o) => o.op === 'cw.op.deep_fry'));
  t.equal(dev.limitSets.length, 2);
  t.match(dev.capabilitiesHash, /^sha256:[0-9a-f]{64}$/);
  const recipes = loadRecipes(d.recipes);
  t.same(recipes.skipped, []);
  t.ok(recipes.get('example-koshari'));
  const bad = join(dir, 'bad-limits.json');
  writeFileSync(bad, '{"kind":"SafetyLimits","limits":[{"id":"x","kind":"max_temp","max":"hot"}]}');
  t.throws(() => loadDevice(d.device, bad), /bad-limits\.json: \/limits\/0\/max must be a number/);
  const rdir = join(dir, 'recipes');
  rmSync(rdir, { recursive: true, force: true });
  t.throws(() => loadRecipes(rdir), /cannot read the recipes folder/);
  t.end();
});

t.test('a recipe whose hash does not match its content is not loaded', (t) => {
  const rdir = mkdtempSync(join(dir, 'r-'));
  writeFileSync(join(rdir, 'a.svc.json'), JSON.stringify({ id: 'a', process: { nodes: [] }, hash: `sha256:${'0'.repeat(64)}` }));
  writeFileSync(join(rdir, 'b.svc.json'), JSON.stringify({ id: 'b', process: { nodes: [] } }));
  writeFileSync(join(rdir, 'c.svc.json'), '{"id":"c","id":"d"}');
  const cat = loadRecipes(rdir);
  t.same(
    cat.list().map((r) => r.id),
    ['b'],
  );
  t.equal(cat.skipped.length, 2);
  t.match(cat.skipped[0]?.reason, /does not match its content/);
  t.match(cat.skipped[1]?.reason, /duplicate key/);
  t.end();
});
