// @slow: starts hubs under a pseudo-terminal and a pipe (npm run test:fast skips this file; npm test runs it)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { hearthArgv } from '../test-support/cli.js';
import { humanDestination, humanLine } from './log-format.js';

t.test('a JSON log line becomes one readable line', async (t) => {
  const line = JSON.stringify({
    level: 30,
    time: Date.UTC(2026, 10, 25, 9, 10, 49),
    service: 'hearth',
    component: 'executor',
    execution: 'ex-1',
    steps: 20,
    reason: 'nobody is present',
    msg: 'execution started',
  });
  t.equal(humanLine(line), '09:10:49  INFO   executor  execution started  execution=ex-1  steps=20  reason="nobody is present"');
  t.equal(
    humanLine('{"level":50,"time":0,"msg":"boom","err":{"message":"disk full","stack":"x"}}'),
    '00:00:00  ERROR  boom  err="disk full"',
  );
  t.equal(humanLine('not json at all'), 'not json at all', 'anything else passes through');
  t.equal(humanLine('[1,2]'), '[1,2]');
  let out = '';
  humanDestination({ write: (s: string) => (out += s) }).write(`${line}\n${line}\n`);
  t.equal(out.split('\n').length, 3, 'one line out per line in');
});

t.test('hearth start logs readable lines on a terminal and JSON lines otherwise', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-logs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const [node, args] = hearthArgv(['start', '--http-port', '0', '--mqtt-port', '0', '--data-dir', dir, '--sim-speed', 'manual']);
  const run = (viaTerminal: boolean) =>
    new Promise<string>((resolve, reject) => {
      const quoted = [node, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
      // `script` gives the command a pseudo-terminal, as a person's shell would; without it stderr is a pipe.
      const child = viaTerminal
        ? spawn('script', ['-qfec', quoted, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] })
        : spawn(node, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`no ready line in time:\n${out}`));
      }, 90_000);
      const onData = (d: Buffer) => {
        out += d.toString();
        if (/hearth ready http/.test(out) && /shutting down/.test(out) === false) {
          setTimeout(() => child.kill('SIGTERM'), 100);
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.on('close', () => {
        clearTimeout(timer);
        resolve(out);
      });
    });

  const tty = await run(true);
  t.match(tty, /hearth ready http:\/\/127\.0\.0\.1:[1-9][0-9]*/, 'the ready line names the real port');
  const ttyLogs = tty.split(/\r?\n/).filter((l) => /\b(INFO|WARN)\b/.test(l));
  t.ok(ttyLogs.length > 0, 'the terminal shows log lines', { tty });
  t.notOk(
    tty.split(/\r?\n/).some((l) => l.startsWith('{"level"')),
    'no JSON log line on the terminal',
    { tty },
  );

  const piped = await run(false);
  t.ok(
    piped.split('\n').some((l) => l.startsWith('{"level"')),
    'JSON lines when stderr is not a terminal',
    { piped },
  );
  for (const out of [tty, piped])
    t.ok(
      out.split(/\r?\n/).some((l) => /^hearth ready http\S+$/.test(l)),
      'the ready line stands alone on its line',
      { out },
    );
});
