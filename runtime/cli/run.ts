/** Process entry of the `hearth` command: runs main() and sets the exit code. */
import { guardStandardStreams } from './closed-pipe.js';
import { main } from './main.js';

guardStandardStreams();

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`hearth: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
