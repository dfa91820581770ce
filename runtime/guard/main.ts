/**
 * Entry of the heat guard process (runtime/guard/guard.ts). `hearth start` spawns it as
 * `node runtime/guard/main.js --spec <json>` and waits for `heat-guard ready` on its stdout.
 */
import { chmodSync } from 'node:fs';
import { runGuard } from './guard.js';
import { parseGuardSpec } from './spec.js';

const i = process.argv.indexOf('--spec');
let spec: ReturnType<typeof parseGuardSpec>;
try {
  spec = parseGuardSpec(process.argv[i + 1] ?? '');
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
