#!/usr/bin/env node
// Runs the test suite: `npm test`, `npm run test:fast` and `npm run test:coverage` all come here.
//
//   node scripts/test-run.mjs [--fast] [--list] [--groups=N] [--node24] [tap options...]
//
// --node24 (`npm test`): once this suite has passed, the fast suite runs again on Node 24 (scripts/test-node24.mjs).
//
// Most test files share a process. A test process costs about half a second of CPU before its first assertion
// (Node, tap and its plugins, the TypeScript loader), and files of one area import much the same modules. So the
// files that start nothing of their own are packed into a few group files under .tap/groups/, each importing its
// members one after another; tap runs the groups and every other file as usual, four at a time. Measured on this
// 2-core machine, the 16 hub files took 60 s of CPU as 16 processes and 21 s as one.
//
// A file runs in its own process when it starts processes itself (the CLI, scripts: it mostly waits on them, and
// in a group the members after it would wait too), or when its header (the first 40 lines) has a comment line
// starting with a tag:
//   @slow          it starts hubs, browsers, brokers or databases (the slow end-to-end suites; --fast skips them);
//   @own-process   it measures or changes something the whole process shares (warnings, memory), so it must be
//                  alone, with a word on why.
// A grouped file must not set hooks, a plan or a fixture directory on tap's root test, nor wait on it at the top
// level: in a group, the root is every member's. This script refuses to run a group that would, and
// `scripts/test-run.test.ts` checks the tree; `lintGroupable` below says what it looks for.
//
// `npx tap path/to/file.test.ts` still runs one file alone. A failure inside a group names the test, and its
// `at:` line names the member file.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', '.tap', 'bench', 'coverage']);
export const GROUP_DIR = '.tap/groups';
const DEFAULT_GROUPS = 10;

/** Every *.test.ts file under `dir`, repository-relative, sorted. */
export function testFiles(dir = root) {
  const out = [];
  const walk = (rel) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && path !== 'flows/examples') walk(path);
      } else if (e.name.endsWith('.test.ts')) out.push(path);
    }
  };
  walk('');
  return out.sort();
}

const header = (source) => source.split('\n').slice(0, 40).join('\n');
const tagged = (source, tag) => new RegExp(`^\\s*(\\/\\/|\\*)\\s*@${tag}\\b`, 'm').test(header(source));

/** True when the file's header tags it `@slow`. */
export function isSlow(source) {
  return tagged(source, 'slow');
}

/**
 * True when the file starts processes of its own (the CLI, scripts, brokers): it mostly waits on them, so run
 * alone it waits beside other files rather than holding up a group's members behind it.
 */
export function startsProcesses(source) {
  return /\b(runCli|spawnCli|runScript|spawn|spawnSync|execFile|execFileSync|execSync|fork)\(/.test(source);
}

/** True when the file runs in a group: not tagged `@slow` or `@own-process`, and starting no processes. */
export function isGroupable(source) {
  return !isSlow(source) && !tagged(source, 'own-process') && !startsProcesses(source);
}

const ROOT_ONLY = [
  [/^t\.(beforeEach|afterEach|before|after)\(/m, "a hook on tap's root test (it would run around the other members' tests)"],
  [/^t\.(plan|end)\(/m, "a plan or end on tap's root test (it would count or end the other members' tests)"],
  [/^await t\./m, "a top-level wait on tap's root test (a group runs no member's tests until every member is in)"],
  [/^(export )?(const|let|var) [^=]+= t\.testdir\(/m, "a fixture directory of tap's root test (members would share it)"],
];

/** Why a file cannot share a process with others (empty when it can). */
export function lintGroupable(source) {
  return ROOT_ONLY.filter(([re]) => re.test(source)).map(([, why]) => why);
}

/**
 * Packs files into at most `count` groups of about equal weight (source size, a rough stand-in for the work),
 * keeping files of one folder together and in order, so a group is one area of the code.
 */
export function makeGroups(files, count = DEFAULT_GROUPS, weight = (f) => statSync(join(root, f)).size) {
  const total = files.reduce((s, f) => s + weight(f), 0);
  const target = total / Math.max(1, count);
  const groups = [];
  let current = [];
  let size = 0;
  for (const f of files) {
    const w = weight(f);
    if (current.length > 0 && size + w / 2 > target && groups.length < count - 1) {
      groups.push(current);
      current = [];
      size = 0;
    }
    current.push(f);
    size += w;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

const label = (files) => {
  const dirs = [...new Set(files.map((f) => f.split('/').slice(0, -1).slice(0, 2).join('-') || 'top'))];
  return dirs.length <= 2 ? dirs.join('+') : `${dirs[0]}..${dirs.at(-1)}`;
};

/**
 * The text of a group file: it imports its members one after another, holding tap's root test busy until the
 * last one is in; the members' tests then run in order.
 *
 * tap ends its root test on its own in two cases, and either would end a group early: the members imported after
 * that add tests nobody runs, and the group passes on what it had (seen here: 314 of a group's 595 assertions).
 * - Once a root teardown is registered (members register them to close what they started), tap ends the root
 *   when it has been idle for three timer turns, as it is while the next member loads. A first root test that
 *   waits for every member keeps it busy.
 * - When the process runs out of work ('beforeExit'), and Node 20 does not count an import waiting on the
 *   module-hooks thread (the TypeScript loader) as work. A timer keeps the process busy until the last import.
 * Should tap still end the root early, the group fails, naming the member it was loading.
 */
export function groupSource(members) {
  const list = members.map((f) => `  '../../${f}',`).join('\n');
  return `// Written by scripts/test-run.mjs: these test files share this process, one after another.
import t from 'tap';

const members = [
${list}
];
let lost;
process.on('exit', () => {
  if (lost === undefined) return;
  process.exitCode = 1;
  process.stderr.write(\`test group: tap ended while \${lost} was loading or before, so its tests and the later members' never ran\\n\`);
});
let loaded;
const allLoaded = new Promise((resolve) => {
  loaded = resolve;
});
t.test(\`this group's \${members.length} test files load\`, async (t) => {
  const failed = await allLoaded;
  if (failed) t.error(failed.error, \`\${failed.member} loads\`);
  else t.pass('every member loaded');
});
const alive = setInterval(() => {}, 60_000);
try {
  for (const member of members) {
    try {
      await import(member);
    } catch (error) {
      loaded({ member, error });
      throw error;
    }
    if (t.ended || t.results) lost ??= member;
  }
} finally {
  clearInterval(alive);
  loaded();
}
`;
}

/** Writes the group files (replacing any earlier ones) and returns their repository-relative paths. */
export function writeGroups(groups, dir = root) {
  const out = join(dir, GROUP_DIR);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  return groups.map((members, i) => {
    const name = `${String(i + 1).padStart(2, '0')}-${label(members)}.test.mjs`;
    writeFileSync(join(out, name), groupSource(members));
    return `${GROUP_DIR}/${name}`;
  });
}

/** The suite's plan: the grouped files, and the files that run alone. */
export function plan(dir = root) {
  const grouped = [];
  const alone = [];
  for (const f of testFiles(dir)) (isGroupable(readFileSync(join(dir, f), 'utf8')) ? grouped : alone).push(f);
  return { grouped, alone };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const fast = args.includes('--fast');
  const list = args.includes('--list');
  const count = Number(/^--groups=(\d+)$/.exec(args.find((a) => a.startsWith('--groups=')) ?? '')?.[1] ?? DEFAULT_GROUPS);
  const node24 = args.includes('--node24');
  const tapArgs = args.filter((a) => a !== '--fast' && a !== '--list' && a !== '--node24' && !a.startsWith('--groups='));
  // Files named on the command line (`npm test -- path/x.test.ts`): tap runs just those, as it would alone.
  if (tapArgs.some((a) => !a.startsWith('-') && existsSync(join(root, a)))) {
    const r = spawnSync(join(root, 'node_modules/.bin/tap'), tapArgs, { cwd: root, stdio: 'inherit' });
    process.exit(r.status ?? 1);
  }
  const { grouped, alone } = plan();
  const slow = new Set(alone.filter((f) => isSlow(readFileSync(join(root, f), 'utf8'))));
  const solo = fast ? alone.filter((f) => !slow.has(f)) : alone;
  const groups = makeGroups(grouped, count);
  if (list) {
    // Every file this run would test, one per line: the grouped ones and the ones alone.
    process.stdout.write(`${[...grouped, ...solo].sort().join('\n')}\n`);
    process.exit(0);
  }
  const bad = grouped.flatMap((f) => lintGroupable(readFileSync(join(root, f), 'utf8')).map((why) => `${f}: ${why}`));
  if (bad.length > 0) {
    process.stderr.write(`test-run: these files cannot share a process; fix them or tag them @own-process:\n  ${bad.join('\n  ')}\n`);
    process.exit(1);
  }
  const files = [...writeGroups(groups), ...solo];
  process.stdout.write(`test-run: ${grouped.length} files in ${groups.length} groups, ${solo.length} alone\n`);
  // The transpile cache first (test-support/ts-loader/warm.mjs).
  const warm = spawnSync(process.execPath, [join(root, 'test-support/ts-loader/warm.mjs')], { cwd: root, stdio: 'inherit' });
  if (warm.status !== 0) process.exit(warm.status ?? 1);
  const r = spawnSync(join(root, 'node_modules/.bin/tap'), [...tapArgs, ...files], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0 || !node24) process.exit(r.status ?? 1);
  const again = tapArgs.filter((a) => a !== '--disable-coverage');
  const r24 = spawnSync(process.execPath, [join(root, 'scripts/test-node24.mjs'), ...again], { cwd: root, stdio: 'inherit' });
  process.exit(r24.status ?? 1);
}
