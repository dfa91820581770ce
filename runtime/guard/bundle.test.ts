/**
 * The heat guard as the build ships it: one CommonJS file (scripts/build-guard.mjs), which the compiled
 * `hearth start` spawns. Like the source entry (guard.test.ts), it must hold a line, drive it on, cut it when the
 * lease lapses with heat on, and say so; the level asserted is the one in the wire's value file. Skipped, with the
 * reason, when dist/ is not a fresh build (`npm run build`; `npm ci` makes one).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { readWire } from '../../drivers/buses/pin-file.js';
import { distIsFresh, repoRoot } from '../../test-support/cli.js';
import type { GuardSpec } from './spec.js';

const bundle = join(repoRoot, 'dist/runtime/guard/guard.cjs');
const skip = distIsFresh() ? false : 'dist/ is not a fresh build (npm run build)';

async function until(cond: () => boolean, ms = 30_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end && !cond()) await new Promise((r) => setTimeout(r, 10));
  return cond();
}

t.test('the compiled start spawns the bundled guard, which holds a line and cuts it when the lease lapses', { skip }, async (t) => {
  const warm = (await import(pathToFileURL(join(repoRoot, 'dist/runtime/guard/warm.js')).href)) as typeof import('./warm.js');
  t.equal(warm.guardArgv('--spec-stdin')[0], bundle, 'the compiled guardArgv names guard.cjs');

  const dir = mkdtempSync(join(tmpdir(), 'hearth-guard-cjs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const spec: GuardSpec = {
    socket: join(dir, 'g.sock'),
    root: join(dir, 'wires'),
    simulated: true,
    lines: [{ heater: 'fryer', line: 17, activeLow: false }],
    leaseMs: 300,
    checkMs: 20,
    connectMs: 60_000,
    watchdogFeedMs: 50,
  };
  const child = spawn(process.execPath, [bundle, '--spec', JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.resume();
  t.ok(await until(() => out.includes('heat-guard ready')), 'ready');
  t.equal(readWire(spec.root, 17), 0, 'the line is held off');
  const sock = await new Promise<Socket>((resolve) => {
    const s = createConnection(spec.socket, () => resolve(s));
  });
  let heard = '';
  sock.setEncoding('utf8');
  sock.on('data', (d: string) => (heard += d));
  sock.write('W fryer 1\n');
  t.ok(await until(() => heard.includes('K fryer')), 'the write is acknowledged');
  t.equal(readWire(spec.root, 17), 1, 'the wire is driven on');
  // No renewal from now on: the lease lapses with heat on.
  t.ok(await until(() => readWire(spec.root, 17) === 0), 'the lapsed lease cut the wire');
  t.ok(await until(() => /^T \d+ fryer \d+$/m.test(heard)), 'and the guard said so');
  sock.destroy();
});
