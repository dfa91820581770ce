/**
 * The suite's runner (scripts/test-run.mjs): which files share a process and which run alone, how the groups are
 * cut and written, and that a written group runs every test of every member.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { repoRoot } from '../test-support/cli.js';
// @ts-expect-error: a plain .mjs script without type declarations
import * as runner from './test-run.mjs';

type Runner = {
  GROUP_DIR: string;
  isSlow(source: string): boolean;
  isGroupable(source: string): boolean;
  lintGroupable(source: string): string[];
  makeGroups(files: string[], count?: number, weight?: (f: string) => number): string[][];
  writeGroups(groups: string[][], dir?: string): string[];
  plan(dir?: string): { grouped: string[]; alone: string[] };
};
const r = runner as Runner;

const list = (...flags: string[]) =>
  execFileSync(process.execPath, [join(repoRoot, 'scripts/test-run.mjs'), '--list', ...flags], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l !== '');
const tracked = () =>
  execFileSync('git', ['ls-files', '*.test.ts'], { cwd: repoRoot, encoding: 'utf8' })
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('flows/examples/'));
/** Runs a group file as a plain process, not as a child of the tap running this file. */
const runGroup = (path: string, cwd: string) =>
  spawnSync(process.execPath, [path], {
    cwd,
    encoding: 'utf8',
    env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^_?TAP/.test(k))),
  });
const source = (f: string) => readFileSync(join(repoRoot, f), 'utf8');

t.test('npm test runs every test file; test:fast all but the ones tagged @slow', async (t) => {
  const all = tracked();
  t.same(
    list().filter((f) => all.includes(f)),
    all,
    'every tracked test file is in the full run',
  );
  const fast = list('--fast');
  t.ok(fast.includes('scripts/test-run.test.ts'), 'this file is fast');
  const slow = all.filter((f) => !fast.includes(f));
  t.ok(slow.length > 0, 'some files are tagged slow');
  for (const f of slow) t.ok(r.isSlow(source(f)), `${f} carries the tag`);
  for (const f of fast) t.notOk(r.isSlow(source(f)), `${f} is not tagged slow`);
  t.ok(slow.includes('hil-tests/mutants.test.ts'), 'the mutation run is slow');
});

t.test('the files that share a process are the untagged ones, and none of them claims the root test', async (t) => {
  const { grouped, alone } = r.plan();
  t.ok(grouped.length > alone.length, `most files share a process (${grouped.length} grouped, ${alone.length} alone)`);
  for (const f of alone) t.notOk(r.isGroupable(source(f)), `${f} starts processes or is tagged @slow or @own-process`);
  for (const f of grouped) t.same(r.lintGroupable(source(f)), [], `${f} can share a process`);
  for (const f of ['runtime/graphql/estop-direct.test.ts', 'platform/http/app.test.ts', 'runtime/flows/nodes.test.ts']) {
    t.ok(alone.includes(f), `${f} runs alone`);
    t.match(source(f), /@own-process: \S.{10,}/, `${f} says why it runs alone`);
  }
});

t.test('what cannot share a process is found', async (t) => {
  t.same(r.lintGroupable("t.test('a', () => {});\nt.test('b', () => {});\n"), []);
  t.same(
    r.lintGroupable("t.test('a', (t) => {\n  t.beforeEach(() => {});\n  t.plan(1);\n  const d = t.testdir();\n});\n"),
    [],
    'on a subtest',
  );
  const found = (src: string, why: RegExp) => {
    const reasons = r.lintGroupable(src);
    t.equal(reasons.length, 1, `one reason for ${JSON.stringify(src)}`);
    t.match(reasons[0], why);
  };
  found('t.afterEach(() => helper.unload());\n', /hook on tap's root/);
  found('t.before(() => {});\n', /hook/);
  found('t.plan(3);\n', /plan/);
  found('const root = t.testdir({ recipes: {} });\n', /fixture directory/);
  t.ok(r.isGroupable('// nothing special\n'));
  t.notOk(r.isGroupable('/**\n * What it does.\n *\n * @own-process: it watches process warnings.\n */\n'));
  t.notOk(r.isGroupable('// @slow: starts a hub\n'));
  t.ok(r.isGroupable(`${'\n'.repeat(45)}// @slow: too far down to be a header tag\n`), 'only the header counts');
});

t.test('groups keep every file once, in order, and are about even', async (t) => {
  const files = Array.from({ length: 40 }, (_, i) => `d${Math.floor(i / 7)}/f${String(i).padStart(2, '0')}.test.ts`);
  const weight = (f: string) => (f.endsWith('3.test.ts') ? 50 : 10);
  const groups = r.makeGroups(files, 6, weight);
  t.equal(groups.length, 6);
  t.same(groups.flat(), files, 'each file once, in the order given');
  const sizes = groups.map((g) => g.reduce((s, f) => s + weight(f), 0));
  const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length;
  for (const s of sizes) t.ok(s < mean * 1.6 && s > mean * 0.4, `a group of weight ${s} is near the mean ${mean.toFixed(0)}`);
  t.same(r.makeGroups(files.slice(0, 3), 8, weight).flat(), files.slice(0, 3), 'fewer files than groups');
  t.same(r.makeGroups([], 8, weight), []);
});

t.test('a written group runs every test of every member, one after the other', async (t) => {
  const dir = t.testdir({
    'a.test.mjs': "import t from 'tap';\nt.test('a1', async (t) => t.pass('a1 ran'));\nt.test('a2', async (t) => t.pass('a2 ran'));\n",
    sub: { 'b.test.mjs': "import t from 'tap';\nt.test('b1', async (t) => t.pass('b1 ran'));\n" },
    '.tap': { groups: { '01-old.test.mjs': "throw new Error('a group from an earlier run');\n" } },
  });
  const [group] = r.writeGroups([['a.test.mjs', 'sub/b.test.mjs']], dir) as [string];
  t.ok(group.startsWith(`${r.GROUP_DIR}/01-`), group);
  const path = join(dir, group);
  const text = readFileSync(path, 'utf8');
  for (const spec of text.matchAll(/import\('([^']+)'\)/g)) {
    t.ok(existsSync(fileURLToPath(new URL(spec[1] as string, `file://${path}`))), `${spec[1]} names a member`);
  }
  t.notOk(existsSync(join(dir, r.GROUP_DIR, '01-old.test.mjs')), 'groups of an earlier run are gone');
  const run = runGroup(path, dir);
  t.equal(run.status, 0, run.stderr);
  t.match(run.stdout, /ok 2 - a1[\s\S]*ok 3 - a2[\s\S]*ok 4 - b1/, 'all three tests, in order');
  t.match(run.stdout, /^1\.\.4$/m);
  // A failing member fails the group.
  writeFileSync(join(dir, 'sub/b.test.mjs'), "import t from 'tap';\nt.test('b1', async (t) => t.fail('b1 broke'));\n");
  const bad = runGroup(path, dir);
  t.not(bad.status, 0, 'the group fails');
  t.match(bad.stdout, /not ok \d+ - b1/);
});

t.test('a group holds tap open while a member loads: no member is lost to an idle root', async (t) => {
  // The first member registers a root teardown, which lets tap end its root once idle; the second takes a while
  // to load (as a member importing a large module graph does). Its test must still run.
  const dir = t.testdir({
    'a.test.mjs': "import t from 'tap';\nt.teardown(() => {});\nt.test('a', async (t) => t.pass('a ran'));\n",
    'b.test.mjs': "import t from 'tap';\nawait new Promise((r) => setTimeout(r, 300));\nt.test('b', async (t) => t.pass('b ran'));\n",
  });
  const [group] = r.writeGroups([['a.test.mjs', 'b.test.mjs']], dir) as [string];
  const run = runGroup(join(dir, group), dir);
  t.equal(run.status, 0, run.stderr);
  t.match(run.stdout, /ok 1 - this group's 2 test files load[\s\S]*ok 2 - a[\s\S]*ok 3 - b/);
  t.notMatch(run.stderr, /test group:/);
});

t.test('a member that cannot load fails its group, by name', async (t) => {
  const dir = t.testdir({
    'a.test.mjs': "import t from 'tap';\nt.test('a', async (t) => t.pass('a ran'));\n",
    'b.test.mjs': "throw new Error('b is broken');\n",
  });
  const [group] = r.writeGroups([['a.test.mjs', 'b.test.mjs']], dir) as [string];
  const run = runGroup(join(dir, group), dir);
  t.not(run.status, 0);
  t.match(run.stdout + run.stderr, /b is broken/);
  t.match(run.stdout, /not ok 1 - this group's 2 test files load/);
});
