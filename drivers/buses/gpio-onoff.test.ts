// @slow: runs a process in its own mount namespace (unshare) whose /sys is a fake sysfs
/**
 * onoff knows one sysfs root only, /sys/class/gpio. To run its real code (export, the wait for the new line's
 * files, configuration, reads of the value file) against a fake sysfs laid out and behaving as a Pi 4's on
 * kernel 6.6, a child process gets its own mount namespace with the fake bound over /sys
 * (test-support/gpio-onoff-probe.ts). The inputs of a rig (presence, e-stop) go through this path; its lines
 * are resolved at the default root like every other.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { fakeGpioSysfs } from '../../test-support/fake-gpio-sysfs.js';

const probe = fileURLToPath(new URL('../../test-support/gpio-onoff-probe.ts', import.meta.url));
const loader = fileURLToPath(new URL('../../test-support/ts-loader/register.mjs', import.meta.url));

/** Whether this machine lets us make a mount namespace (root, or CAP_SYS_ADMIN, and util-linux's unshare). */
function namespaces(): string | undefined {
  const r = spawnSync('unshare', ['--mount', '--propagation', 'private', 'true'], { encoding: 'utf8' });
  if (r.error) return `no unshare: ${r.error.message}`;
  return r.status === 0 ? undefined : `unshare --mount failed: ${r.stderr.trim()}`;
}

const why = namespaces();
const opts = why ? { skip: `needs a mount namespace (${why})` } : {};

t.test('onoff reads a presence input on GPIO27 at sysfs 539 of a Pi 4 on kernel 6.6', opts, async (t) => {
  const fake = await fakeGpioSysfs(t, 'pi4-6.6');
  const r = spawnSync(
    'unshare',
    [
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      'mount --bind "$1" /sys && exec "$2" --import "$3" "$4"',
      'sh',
      fake.sys,
      process.execPath,
      loader,
      probe,
    ],
    { encoding: 'utf8', timeout: 120_000 },
  );
  t.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
  t.same(out, {
    presence: 539,
    fryer: 529,
    before: false,
    after: true,
    exported: ['gpio529', 'gpio539'],
    fryerLevel: '1',
  });
});
