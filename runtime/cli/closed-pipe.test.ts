import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import t from 'tap';
import { hearthArgv, repoRoot, runCli } from '../../test-support/cli.js';
import { quietOnClosedPipe } from './closed-pipe.js';

/** Run the CLI with its stdout closed by the reader before the first byte, as `… | head -0` does. */
function runWithClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const [cmd, argv] = hearthArgv(args);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

/** stderr without the source-checkout note bin/hearth.mjs may print (the tests spawn run.ts, which does not). */
const noise = (s: string) => s.trim();

const dryRun = ['dry-run', 'examples/recipes/koshari.svc.json', '--device', 'examples/devices/demo-fryer-robot.json'];

for (const [name, args] of [
  ['dry-run, a refusal', dryRun],
  ['dry-run, accepted', [...dryRun, '--human-present']],
  ['dry-run --json', [...dryRun, '--human-present', '--json']],
  ['conformance --json (large output)', ['conformance', '--json']],
] as const) {
  t.test(`${name}: a closed stdout ends quietly with the command's own exit code`, async (t) => {
    const normal = await runCli([...args], { timeoutMs: 90_000 });
    t.ok(normal.stdout.length > 0, 'the command prints when someone reads');
    const closed = await runWithClosedStdout([...args]);
    t.equal(closed.code, normal.code, `exit code ${normal.code} either way`);
    t.equal(noise(closed.stderr), noise(normal.stderr), 'nothing more on stderr');
    t.notMatch(closed.stderr, /EPIPE|at .*\(node:|Unhandled/, 'no EPIPE stack');
  });
}

t.test('quietOnClosedPipe: a closed pipe is dropped, any other write error is reported', async (t) => {
  const stream = new Writable({ write: (_c, _e, cb) => cb() });
  const reported: string[] = [];
  quietOnClosedPipe(stream, (err) => reported.push(err.message));
  stream.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
  t.same(reported, [], 'EPIPE is not an error to report');
  t.ok(stream.destroyed, 'the stream is closed: later output is dropped');
  t.doesNotThrow(() => stream.write('more'), 'writing afterwards does not throw');
  const other = new Writable({ write: (_c, _e, cb) => cb() });
  quietOnClosedPipe(other, (err) => reported.push(err.message));
  other.emit('error', Object.assign(new Error('disk full'), { code: 'ENOSPC' }));
  t.same(reported, ['disk full']);
});
