// @slow: starts hubs as processes (npm run test:fast skips this file; npm test runs it)
/**
 * `hearth start` sets V8's memory flags before it loads the hub (runtime/cli/commands/start.ts): the young
 * generation kept small and the code of functions that stopped running dropped (platform/young-generation.ts),
 * each with its variable to opt out. Read from the start's own debug line, from the process users run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { spawnCli } from '../../test-support/cli.js';

async function flagsOf(env: NodeJS.ProcessEnv): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-v8-flags-'));
  try {
    const { child, match } = await spawnCli(
      ['start', '--http-port', '0', '--mqtt-port', '0', '--data-dir', dir, '--sim-speed', 'manual', '--log-level', 'debug'],
      /\{[^\n]*"msg":"V8 flags set at run time"[^\n]*\}/,
      { env: { ...process.env, ...env }, timeoutMs: 60_000 },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    return (JSON.parse(match[0]) as { v8Flags: string[] }).v8Flags;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

t.test('by default: the young generation kept small and idle code flushed', async (t) => {
  const flags = await flagsOf({ HEARTH_CODE_FLUSH: '', HEARTH_YOUNG_GENERATION: '' });
  t.ok(flags.includes('--semi-space-growth-factor=1'), flags.join(' '));
  t.ok(flags.includes('--flush-baseline-code') && flags.includes('--bytecode-old-age=1'), flags.join(' '));
});

t.test('HEARTH_CODE_FLUSH=keep and HEARTH_YOUNG_GENERATION=grow leave V8 as it is', async (t) => {
  t.same(await flagsOf({ HEARTH_CODE_FLUSH: 'keep', HEARTH_YOUNG_GENERATION: 'grow' }), []);
});
