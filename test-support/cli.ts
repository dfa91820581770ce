/**
 * Run the `hearth` CLI in a child process, as a user would (real argv, stdout, stderr, exit code): the compiled
 * CLI in dist/ when it is newer than every source file (as bin/hearth.mjs decides; `npm ci` builds it),
 * else the sources through tsx, so an edit is never tested against an old build.
 */
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const entry = fileURLToPath(new URL('../runtime/cli/run.ts', import.meta.url));

/**
 * A temporary directory for the files a CLI test hands to the command, removed at `t`'s teardown.
 * `file(name, body)` writes `body` (a string as it is, anything else as JSON) and returns the path.
 */
export function scratchFiles(
  t: { teardown(fn: () => void): void },
  prefix: string,
): { dir: string; file(name: string, body: unknown): string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, body: unknown) => {
    const p = join(dir, name);
    writeFileSync(p, typeof body === 'string' ? body : JSON.stringify(body));
    return p;
  };
  return { dir, file };
}

/**
 * A simulated rig file in `dir` that gives the loop watchdog and the heat guard a minute of stall tolerance
 * (drivers/rig-config.ts `stallToleranceMs`), for tests that start `hearth start` as a process and cook: both run on
 * real time (700 and 600 ms by default), and on a test machine with every core busy a hub merely not scheduled
 * that long while heating latches a safety stop the test is not about. Returns the path, for `--rig`.
 */
export function tolerantRigFile(dir: string): string {
  const rig = join(dir, 'tolerant-rig.json');
  writeFileSync(rig, JSON.stringify({ kind: 'simulated', stallToleranceMs: 60_000 }));
  return rig;
}

const compiled = join(repoRoot, 'dist/runtime/cli/run.js');
/** The CLI as bin/hearth.mjs runs it from a build: bundled by scripts/build-bundle.mjs. */
const bundled = join(repoRoot, 'dist/bundle/hearth.mjs');
const SOURCE_DIRS = ['core', 'safety', 'schemas', 'drivers', 'platform', 'runtime', 'services', 'conformance'];
let compiledIsFresh: boolean | undefined;

/**
 * Whether dist/ was built after the last change to any source file (*.ts but tests, and the schema JSON the
 * build compiles into validators). Worked out once per test process.
 */
export function distIsFresh(): boolean {
  compiledIsFresh ??= builtAfterSources();
  return compiledIsFresh;
}

function builtAfterSources(): boolean {
  const stamp = join(repoRoot, 'dist/.built');
  if (!existsSync(compiled) || !existsSync(stamp)) return false;
  const built = statSync(stamp).mtimeMs;
  for (const dir of SOURCE_DIRS) {
    let names: string[];
    try {
      names = readdirSync(join(repoRoot, dir), { recursive: true }) as string[];
    } catch {
      continue;
    }
    for (const name of names) {
      const source = (name.endsWith('.ts') && !name.endsWith('.test.ts')) || (dir === 'schemas' && name.endsWith('.json'));
      if (source && statSync(join(repoRoot, dir, name)).mtimeMs > built) return false;
    }
  }
  return true;
}

/**
 * argv for spawning the CLI: [node, ...args]. When dist/ is fresh, the build as bin/hearth.mjs runs it (bundled,
 * scripts/build-bundle.mjs), or its modules unbundled with `unbundled`; else the sources through tsx.
 */
export function hearthArgv(args: string[], o: { unbundled?: boolean } = {}): [string, string[]] {
  if (distIsFresh()) return [process.execPath, [!o.unbundled && existsSync(bundled) ? bundled : compiled, ...args]];
  return [process.execPath, ['--import', 'tsx', entry, ...args]];
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

type RunOptions = SpawnOptions & { input?: string; timeoutMs?: number };

/** Run the CLI to completion. `input` is written to stdin when given. */
export function runCli(args: string[], opts: RunOptions = {}): Promise<CliResult> {
  return runToEnd(...hearthArgv(args), opts);
}

/**
 * Run a TypeScript entry point of the repository (`script`, from the repository root) to completion, through the
 * tests' own TypeScript loader (test-support/ts-loader: cheaper to start than tsx).
 */
export function runScript(script: string, args: string[], opts: RunOptions = {}): Promise<CliResult> {
  const loader = pathToFileURL(join(repoRoot, 'test-support/ts-loader/register.mjs')).href;
  return runToEnd(process.execPath, [`--import=${loader}`, join(repoRoot, script), ...args], opts);
}

/**
 * The environment of a process a test starts: as given, without tap's process-info hook when tap collects no
 * coverage (`tap --disable-coverage`, as `npm test` runs): the hook costs every child ~0.2 s of CPU and records
 * nothing then. With coverage on, children keep it.
 */
export function childEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (env._TAPJS_PROCESSINFO_COVERAGE_ !== '0' || !env.NODE_OPTIONS) return env;
  const kept = env.NODE_OPTIONS.split(/\s+/).filter((o) => o !== '' && !/@tapjs[\\/]processinfo/.test(o));
  return { ...env, NODE_OPTIONS: kept.join(' ') };
}

function runToEnd(cmd: string, argv: string[], opts: RunOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { cwd: repoRoot, ...opts, env: childEnv(opts.env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    else child.stdin?.end();
  });
}

/** Spawn a long-running CLI process (e.g. `start`) and resolve once a stdout line matches `ready`. */
export function spawnCli(
  args: string[],
  ready: RegExp,
  opts: SpawnOptions & { timeoutMs?: number; unbundled?: boolean } = {},
): Promise<{ child: ChildProcess; match: RegExpMatchArray; output: () => string }> {
  const [cmd, argv] = hearthArgv(args, { unbundled: opts.unbundled });
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { cwd: repoRoot, ...opts, env: childEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let done = false;
    const timer = setTimeout(() => {
      if (!done) {
        done = true;
        child.kill('SIGKILL');
        reject(new Error(`CLI did not print ${ready} in time; output:\n${out}`));
      }
    }, opts.timeoutMs ?? 30_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = out.match(ready);
      if (m && !done) {
        done = true;
        clearTimeout(timer);
        resolve({ child, match: m, output: () => out });
      }
    };
    // Both streams: stdout and stderr are separate pipes, so a log line written before the ready line may still
    // arrive after it; a pattern that spans both is matched whichever comes last.
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => {
      if (!done) {
        done = true;
        clearTimeout(timer);
        reject(new Error(`CLI exited with ${code} before ready; output:\n${out}`));
      }
    });
  });
}
