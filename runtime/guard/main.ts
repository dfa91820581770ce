/**
 * Entry of the heat guard process (runtime/guard/guard.ts). `hearth start` spawns it as
 * `node runtime/guard/main.js --spec <json>` and waits for `heat-guard ready` on its stdout; or, to overlap the
 * guard's own start-up with hearth's, spawns it early as `node runtime/guard/main.js --spec-stdin` and writes
 * the spec as one JSON line on its stdin once the data directory is open. Until that line arrives the guard
 * holds nothing and touches no output; stdin closing without one (hearth's start-up failed) exits 0.
 */
import { chmodSync } from 'node:fs';
import { runGuard } from './guard.js';
import { type GuardSpec, parseGuardSpec } from './spec.js';

function start(text: string): void {
  let spec: GuardSpec;
  try {
    spec = parseGuardSpec(text);
  } catch (err) {
    process.stderr.write(`heat-guard: bad --spec: ${(err as Error).message}\n`);
    process.exit(2);
  }
  process.title = 'hearth-heat-guard';
  try {
    runGuard(spec, {
      log: (m) => process.stderr.write(`heat-guard: ${m}\n`),
      ready: () => {
        chmodSync(spec.socket, 0o600);
        process.stdout.write(`heat-guard ready ${process.pid}\n`);
      },
      exit: (code) => process.exit(code),
    });
  } catch (err) {
    process.stderr.write(`heat-guard: cannot hold the heater lines: ${(err as Error).message}\n`);
    process.exit(1);
  }
}

if (process.argv.includes('--spec-stdin')) {
  let text = '';
  let started = false;
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    if (started) return;
    text += chunk;
    const end = text.indexOf('\n');
    if (end < 0) return;
    started = true;
    process.stdin.pause();
    start(text.slice(0, end));
  });
  process.stdin.on('end', () => {
    if (!started) process.exit(0);
  });
} else {
  start(process.argv[process.argv.indexOf('--spec') + 1] ?? '');
}
