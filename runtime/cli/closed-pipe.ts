/**
 * `hearth dry-run … | head`: when the reader of stdout (or stderr) goes away, the command stops writing and
 * finishes quietly with its own exit code, instead of dying on an unhandled EPIPE with a stack trace. Output
 * to a closed pipe is dropped; any other write error is one readable line on stderr and exit code 1.
 */
import type { Writable } from 'node:stream';

const CLOSED = new Set(['EPIPE', 'ERR_STREAM_DESTROYED']);

/** Install the handler on `stream`. `onOtherError` reports a write error that is not a closed pipe. */
export function quietOnClosedPipe(stream: Writable, onOtherError: (err: Error) => void): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (typeof err.code === 'string' && CLOSED.has(err.code)) {
      // Nobody reads any more: drop whatever the command still writes.
      if (!stream.destroyed) stream.destroy();
      return;
    }
    onOtherError(err);
  });
}

/** The CLI's standard streams: stdout and stderr both tolerate a closed reader. */
export function guardStandardStreams(): void {
  const other = (err: Error) => {
    try {
      process.stderr.write(`hearth: cannot write output: ${err.message}\n`);
    } catch {
      // stderr itself is gone; the exit code still says it.
    }
    process.exitCode = 1;
  };
  quietOnClosedPipe(process.stdout, other);
  quietOnClosedPipe(process.stderr, other);
}
