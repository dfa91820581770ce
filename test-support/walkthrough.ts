/**
 * The walkthroughs of README.md ("Walkthrough: refuse, cook, stop") and docs/executor.md (the same, taken to
 * `served` and a stop mid-heat), run as a user pastes them: each `sh` block goes to
 * bash with `-e` (a failing step fails the test) in a fresh directory that looks like the repository root
 * (package.json, bin/, examples/ linked), so `hearth start` keeps its data in that directory's own `./var`.
 *
 * Two substitutions keep the test off fixed ports and off the machine's load, and are the only changes made to the
 * text: the README's port 8080 becomes a free port, which `hearth start` is given with `--http-port`, and it also
 * gets `--mqtt-port 0` (the walkthrough does not use MQTT) and `--rig` with the simulated rig given a minute of
 * stall tolerance (`tolerantRigFile` in cli.ts). The loop watchdog
 * and the heat guard run on real time (700 and 600 ms by default); on a test machine with every core busy, a hub
 * merely not scheduled that long while heating latched a safety stop, and the cook the walkthrough expects served
 * ended stopped. Their own tests are the guard and watchdog scenarios.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { repoRoot, tolerantRigFile } from './cli.js';

/** The first ```sh block after `heading` in a Markdown document. */
export function walkthroughBlock(doc: string, heading: string): string {
  const at = doc.indexOf(heading);
  if (at < 0) throw new Error(`no "${heading}" section`);
  const m = /```sh\n([\s\S]*?)```/.exec(doc.slice(at));
  if (!m?.[1]) throw new Error('the walkthrough section has no sh block');
  return m[1];
}

/** Every process whose working directory is `dir` (the hub and npm the block started), from /proc. */
function processesIn(dir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/cwd`) === dir) pids.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (typeof a === 'object' && a ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return cond();
}

interface Run {
  code: number | null;
  executions: Record<string, unknown>[];
  answers: Record<string, unknown>[];
  detail: { stdout: string; stderr: string };
}

/** Run `block` as a user would (bash -e at a repository-like root) and collect the JSON answers it printed. */
export async function runBlock(t: Test, block: string): Promise<Run> {
  t.match(block, /node bin\/hearth\.mjs start /, 'the walkthrough starts Hearth itself');
  t.match(block, /8080/, 'the walkthrough names the default port');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'hearth-readme-'));
  for (const name of ['package.json', 'bin', 'examples', 'node_modules']) symlinkSync(join(repoRoot, name), join(dir, name));
  const rig = tolerantRigFile(dir);
  const script = block
    .replaceAll('8080', String(port))
    .replace(/hearth\.mjs start /, `hearth.mjs start --http-port ${port} --mqtt-port 0 --rig ${rig} `);

  const child = spawn('bash', ['-e', '-c', script], { cwd: dir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const killAll = () => {
    for (const pid of [...(child.pid ? [child.pid] : []), ...processesIn(dir)])
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
  };
  t.teardown(() => {
    killAll();
    rmSync(dir, { recursive: true, force: true });
  });
  const timer = setTimeout(killAll, 240_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(timer);
  const detail = { stdout: out, stderr: err.slice(-4000) };
  t.equal(code, 0, 'bash -e ran every step to the end', detail);
  const left = await waitFor(() => processesIn(dir).length === 0, 30_000);
  t.ok(left, "the block's `kill %1` stopped Hearth", { pids: processesIn(dir) });

  const answers = out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const executions = answers.filter((a) => a.kind === 'ExecutionStatus');
  t.ok(
    executions.some((a) => a.state === 'refused' && JSON.stringify(a).includes('needs_human_present')),
    'the first cook is refused: nobody is present',
    detail,
  );
  t.ok(
    executions.some((a) => a.state === 'preparing'),
    'the next cook is accepted once a person is present',
    detail,
  );
  const last = executions.at(-1);
  t.ok(last && ['stopped', 'aborted', 'stopping'].includes(String(last.state)), 'the stop answer reports the stop', {
    last,
    ...detail,
  });
  return { code, executions, answers, detail };
}
