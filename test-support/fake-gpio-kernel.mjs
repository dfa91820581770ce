/**
 * The kernel side of a fake sysfs GPIO (test-support/fake-gpio-sysfs.ts), run as its own process: it serves
 * `<sys>/class/gpio/export` and `unexport`, two FIFOs, as the kernel serves those files. Each writer's number is
 * read to the end of its write; `export` of a number a chip owns (base <= N < base + ngpio) makes
 * `gpioN/` appear with `direction`, `value`, `active_low` and `edge` (under the chip's device, linked from
 * class/gpio, as the kernel lays it out), all at once; any other number creates nothing. `unexport` removes it.
 * A separate process because every writer (onoff, drivers/buses/pin-file.ts) writes synchronously and then
 * waits for the files: nothing in the writer's thread could answer.
 *
 * argv: <sys root> <chips JSON: [{base, ngpio, gpioDir}]> (gpioDir: where the chip's exported lines live,
 * relative to the sys root). It exits when its stdin closes (the test that started it is gone).
 */
import { createReadStream, existsSync, mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const [sys, chipsJson] = process.argv.slice(2);
const chips = JSON.parse(chipsJson);
const classDir = join(sys, 'class', 'gpio');

function owner(n) {
  return chips.find((c) => n >= c.base && n < c.base + c.ngpio);
}

function exportLine(n) {
  const chip = owner(n);
  const link = join(classDir, `gpio${n}`);
  if (!chip || existsSync(link)) return; // the kernel answers EINVAL / EBUSY; nothing appears
  const dir = join(sys, chip.gpioDir, `gpio${n}`);
  const tmp = `${dir}.new`;
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(tmp, 'direction'), 'in\n');
  writeFileSync(join(tmp, 'value'), '0\n');
  writeFileSync(join(tmp, 'active_low'), '0\n');
  writeFileSync(join(tmp, 'edge'), 'none\n');
  renameSync(tmp, dir);
  symlinkSync(relative(classDir, dir), link);
}

function unexportLine(n) {
  const chip = owner(n);
  const link = join(classDir, `gpio${n}`);
  if (!chip || !existsSync(link)) return;
  unlinkSync(link);
  rmSync(join(sys, chip.gpioDir, `gpio${n}`), { recursive: true, force: true });
}

/**
 * One writer at a time: the stream opens the FIFO (waiting for a writer) and ends when that writer closes it.
 * Writers that wait for the line to appear (onoff, the pin files) are served one by one; two writes with no wait
 * between them could reach the same reader and be read as one number (the kernel would see two).
 */
function serve(name, handle) {
  let text = '';
  createReadStream(join(classDir, name), { encoding: 'utf8' })
    .on('data', (chunk) => {
      text += chunk;
    })
    // Only once this end of the FIFO is closed: a next writer must not reach a reader that is going away.
    .on('close', () => {
      if (/^\s*\d+\s*$/.test(text)) handle(Number(text));
      serve(name, handle);
    })
    .on('error', (err) => {
      process.stderr.write(`fake gpio kernel: ${name}: ${err.message}\n`);
      process.exit(1);
    });
}

serve('export', exportLine);
serve('unexport', unexportLine);
process.stdin.on('data', () => {});
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdout.write('ready\n');
