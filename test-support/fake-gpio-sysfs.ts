/**
 * A fake `/sys` for GPIO, laid out as the kernel lays it out on Raspberry Pi boards (from the kernel's
 * gpiolib-sysfs and users' `ls /sys/class/gpio` / `gpiodetect` reports; ../ARCHITECTURE's Raspberry Pi facts):
 *
 *   <sys>/class/gpio/gpiochip<base> -> ../../devices/<device>/gpio/gpiochip<base>   {base, label, ngpio, device}
 *   <sys>/bus/gpio/devices/gpiochipN -> ../../../devices/<device>/gpiochipN           (the character device)
 *   <sys>/class/gpio/export, unexport                                                  (served by a process)
 *
 * and behaving as the kernel does: writing a number to `export` makes `gpioN/` appear only when a chip owns N
 * (test-support/fake-gpio-kernel.mjs, a separate process, serves the two files). Point a rig's `gpioSysfsRoot`
 * at `root` (`<sys>/class/gpio`); the resolver finds `<sys>/bus/gpio/devices` beside it.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface FakeChip {
  label: string;
  base: number;
  ngpio: number;
  /** The parent device under /sys/devices. */
  device: string;
  /** Its character device's name (`gpiochip0` for /dev/gpiochip0). */
  chardev: string;
}

export interface PiLayout {
  /** What it is: board and kernel. */
  what: string;
  chips: FakeChip[];
  /** The chip the header's GPIOs are on. */
  header: string;
}

const bcm2711 = 'platform/soc/fe200000.gpio';
const firmwareGpio = 'platform/soc/soc:firmware/soc:firmware:gpio';

/** The boards the issue names. Bases as the kernels number them: 0 before 6.6, from 512 since. */
export const PI_LAYOUTS = {
  'pi4-6.1': {
    what: 'Raspberry Pi 4, kernel 6.1',
    header: 'pinctrl-bcm2711',
    chips: [
      { label: 'pinctrl-bcm2711', base: 0, ngpio: 58, device: bcm2711, chardev: 'gpiochip0' },
      { label: 'raspberrypi-exp-gpio', base: 504, ngpio: 8, device: firmwareGpio, chardev: 'gpiochip1' },
    ],
  },
  'pi4-6.6': {
    what: 'Raspberry Pi 4, kernel 6.6',
    header: 'pinctrl-bcm2711',
    chips: [
      { label: 'pinctrl-bcm2711', base: 512, ngpio: 58, device: bcm2711, chardev: 'gpiochip0' },
      { label: 'raspberrypi-exp-gpio', base: 570, ngpio: 8, device: firmwareGpio, chardev: 'gpiochip1' },
    ],
  },
  'pi5-6.6.47': {
    what: 'Raspberry Pi 5, kernel 6.6.47',
    header: 'pinctrl-rp1',
    chips: [
      { label: 'gpio-brcmstb@107d508500', base: 512, ngpio: 32, device: 'platform/soc@107c000000/107d508500.gpio', chardev: 'gpiochip10' },
      { label: 'gpio-brcmstb@107d508520', base: 544, ngpio: 4, device: 'platform/soc@107c000000/107d508520.gpio', chardev: 'gpiochip11' },
      { label: 'gpio-brcmstb@107d517c00', base: 548, ngpio: 17, device: 'platform/soc@107c000000/107d517c00.gpio', chardev: 'gpiochip12' },
      { label: 'gpio-brcmstb@107d517c20', base: 565, ngpio: 6, device: 'platform/soc@107c000000/107d517c20.gpio', chardev: 'gpiochip13' },
      { label: 'pinctrl-rp1', base: 571, ngpio: 54, device: 'platform/axi/1000120000.pcie/1f000d0000.gpio', chardev: 'gpiochip0' },
    ],
  },
  'zero2w-6.6': {
    what: 'Raspberry Pi Zero 2 W, kernel 6.6',
    header: 'pinctrl-bcm2835',
    chips: [
      { label: 'pinctrl-bcm2835', base: 512, ngpio: 54, device: 'platform/soc/3f200000.gpio', chardev: 'gpiochip0' },
      { label: 'raspberrypi-exp-gpio', base: 566, ngpio: 8, device: firmwareGpio, chardev: 'gpiochip1' },
    ],
  },
} as const satisfies Record<string, PiLayout>;

export type PiLayoutName = keyof typeof PI_LAYOUTS;

export interface FakeGpioSysfs {
  /** The fake /sys. */
  sys: string;
  /** `<sys>/class/gpio`: the rig's `gpioSysfsRoot`. */
  root: string;
  layout: PiLayout;
  /** The sysfs number of a header GPIO on this board. */
  sysfsOf(line: number): number;
  /** The wire level an exported line's value file holds, or undefined when it is not exported. */
  level(sysfs: number): 0 | 1 | undefined;
  /** The exported lines (`gpioN` entries), by number. */
  exported(): number[];
  /** Export a line as a process that died would have left it: driven at `level`. */
  leave(sysfs: number, level: 0 | 1): void;
  /** Unexport a line, as a user's `echo N > unexport` would, and wait until it is gone. */
  unexport(sysfs: number): void;
  /** Stop the kernel's process and remove the files. */
  close(): void;
}

const kernelScript = fileURLToPath(new URL('./fake-gpio-kernel.mjs', import.meta.url));

/**
 * Lay the board out in a temporary folder and start its kernel side (not with `kernel: false`: the chips only,
 * and nothing may write `export`); removed at `t`'s teardown.
 */
export async function fakeGpioSysfs(
  t: { teardown(fn: () => void): void },
  name: PiLayoutName | PiLayout,
  o: { kernel?: boolean } = {},
): Promise<FakeGpioSysfs> {
  const layout: PiLayout = typeof name === 'string' ? PI_LAYOUTS[name] : name;
  const sys = join(mkdtempSync(join(tmpdir(), 'hearth-fake-sys-')), 'sys');
  const root = join(sys, 'class', 'gpio');
  const bus = join(sys, 'bus', 'gpio', 'devices');
  mkdirSync(root, { recursive: true });
  mkdirSync(bus, { recursive: true });
  const served: Array<{ base: number; ngpio: number; gpioDir: string }> = [];
  for (const c of layout.chips) {
    const dev = join(sys, 'devices', c.device);
    const chipDir = join(dev, 'gpio', `gpiochip${c.base}`);
    mkdirSync(chipDir, { recursive: true });
    writeFileSync(join(chipDir, 'base'), `${c.base}\n`);
    writeFileSync(join(chipDir, 'label'), `${c.label}\n`);
    writeFileSync(join(chipDir, 'ngpio'), `${c.ngpio}\n`);
    symlinkSync(relative(chipDir, dev), join(chipDir, 'device'));
    symlinkSync(relative(root, chipDir), join(root, `gpiochip${c.base}`));
    const gdev = join(dev, c.chardev);
    mkdirSync(join(gdev, 'gpio'), { recursive: true });
    symlinkSync(relative(bus, gdev), join(bus, c.chardev));
    served.push({ base: c.base, ngpio: c.ngpio, gpioDir: relative(sys, join(gdev, 'gpio')) });
  }
  let closed = false;
  const removeAll = () => rmSync(join(sys, '..'), { recursive: true, force: true });
  if (o.kernel === false) {
    t.teardown(() => {
      if (!closed) removeAll();
      closed = true;
    });
    return fake(sys, root, layout, () => {
      if (!closed) removeAll();
      closed = true;
    });
  }
  for (const f of ['export', 'unexport']) execFileSync('mkfifo', ['-m', '0600', join(root, f)]);
  const kernel: ChildProcess = spawn(process.execPath, [kernelScript, sys, JSON.stringify(served)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    kernel.once('error', reject);
    kernel.once('exit', (code) => reject(new Error(`the fake GPIO kernel exited (${code})`)));
    kernel.stdout?.once('data', () => resolve());
  });
  kernel.removeAllListeners('exit');
  const close = () => {
    if (closed) return;
    closed = true;
    kernel.stdin?.end();
    kernel.kill();
    removeAll();
  };
  t.teardown(close);
  return fake(sys, root, layout, close);
}

function fake(sys: string, root: string, layout: PiLayout, close: () => void): FakeGpioSysfs {
  const header = layout.chips.find((c) => c.label === layout.header) as FakeChip;
  return {
    sys,
    root,
    layout,
    sysfsOf: (line) => header.base + line,
    level(n) {
      try {
        return readFileSync(join(root, `gpio${n}`, 'value'), 'utf8').trim() === '1' ? 1 : 0;
      } catch {
        return undefined;
      }
    },
    exported: () =>
      readdirSync(root)
        .filter((e) => /^gpio\d+$/.test(e))
        .map((e) => Number(e.slice(4)))
        .sort((a, b) => a - b),
    leave(n, level) {
      writeFileSync(join(root, 'export'), String(n));
      for (let i = 0; i < 500; i++) {
        try {
          writeFileSync(join(root, `gpio${n}`, 'direction'), 'out');
          writeFileSync(join(root, `gpio${n}`, 'value'), String(level));
          return;
        } catch {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
        }
      }
      throw new Error(`gpio${n} did not appear after export`);
    },
    unexport(n) {
      writeFileSync(join(root, 'unexport'), String(n));
      for (let i = 0; i < 500 && existsSync(join(root, `gpio${n}`)); i++) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    },
    close,
  };
}
