/**
 * Process entry of the `hearth` command: runs main() and sets the exit code. For `hearth start` the heat guard's
 * process is spawned first (runtime/guard/warm.ts: it waits, holding nothing, until the start hands it its spec),
 * so that its start-up overlaps the loading of the CLI, which is imported after.
 */
import { prewarmGuard } from '../guard/warm.js';
import { guardStandardStreams } from './closed-pipe.js';

guardStandardStreams();
if (process.argv[2] === 'start' && !process.argv.includes('--help') && !process.argv.includes('-h')) prewarmGuard();

import('./main.js')
  .then(({ main }) => main(process.argv.slice(2)))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`hearth: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
