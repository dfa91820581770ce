/**
 * The one GPIO line resolver. A rig file's `line: 17` means the SoC's GPIO17, the number printed on Raspberry Pi
 * pinout diagrams (header, or BCM, numbering). The kernel's sysfs numbers are not those: since Raspberry Pi
 * kernel 6.6 they start at the GPIO chip's base (512 on a Pi 0–4, 571 on a Pi 5), before that at 0. So a line
 * is resolved at run time from what the kernel shows under `/sys/class/gpio/gpiochip<base>/{base,label,ngpio}`:
 * the header chip is found by its label (`pinctrl-bcm2711`, `pinctrl-bcm2835`, `pinctrl-rp1`, or the rig's
 * `chip:` key naming a label or `/dev/gpiochipN`), and its base is added. `{chip, offset}` names a line of any
 * other chip explicitly. Which character device (`/dev/gpiochipN`) a chip is comes from `/sys/bus/gpio/devices`.
 *
 * `hearth start` (the hardware rig and the heat guard's spec), `hearth safe-off`, the loop watchdog's targets
 * and `hearth rig check --probe` all resolve through here. Node built-ins only: the heat guard may load it.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The labels of the chips that carry the 40-pin header's GPIOs, in the order they are looked for. */
export const HEADER_CHIP_LABELS = ['pinctrl-bcm2711', 'pinctrl-bcm2835', 'pinctrl-rp1'] as const;

export const DEFAULT_GPIO_SYSFS = '/sys/class/gpio';

/** A GPIO chip as sysfs shows it. */
export interface GpioChip {
  /** Its sysfs name, `gpiochip<base>`. */
  sysfsName: string;
  base: number;
  ngpio: number;
  label: string;
  /** Its character device (`gpiochip0` for `/dev/gpiochip0`), when the kernel shows which one it is. */
  device?: string;
}

/** A line as a rig file names it: a header number, or a chip and an offset on it. */
export interface GpioLineRef {
  line?: number;
  chip?: string;
  offset?: number;
}

export interface ResolvedGpioLine {
  /** How the rig file named it: `GPIO17`, or `pinctrl-rp1 offset 17`. */
  name: string;
  chip: GpioChip;
  offset: number;
  /** The kernel's sysfs number: chip base + offset (`/sys/class/gpio/gpio<sysfs>`). */
  sysfs: number;
}

/** A line that cannot be resolved; the message is one line: the line, the chips found and the remedy. */
export class GpioResolveError extends Error {
  override name = 'GpioResolveError';
}

/** Where the kernel lists the character devices, next to the sysfs class folder (`/sys/bus/gpio/devices`). */
export const gpioBusDevices = (sysfsRoot: string): string => join(sysfsRoot, '..', '..', 'bus', 'gpio', 'devices');

const readTrim = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
};
const realpath = (path: string): string | undefined => {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
};

/**
 * The GPIO chips sysfs shows under `sysfsRoot`, by base. Throws (one line) when the folder is missing: the
 * kernel has no sysfs GPIO (CONFIG_GPIO_SYSFS off) or this is not the board.
 */
export function readGpioChips(sysfsRoot: string = DEFAULT_GPIO_SYSFS): GpioChip[] {
  let names: string[];
  try {
    names = readdirSync(sysfsRoot).filter((n) => /^gpiochip\d+$/.test(n));
  } catch {
    throw new GpioResolveError(
      `${sysfsRoot} does not exist: this kernel has no sysfs GPIO (CONFIG_GPIO_SYSFS) or this is not the board; run hearth on the Raspberry Pi, or set gpioSysfsRoot in the rig file`,
    );
  }
  // Which character device each chip is: /sys/bus/gpio/devices/gpiochipN sits in the same parent device.
  const byParent = new Map<string, string>();
  const bus = gpioBusDevices(sysfsRoot);
  if (existsSync(bus))
    for (const dev of readdirSync(bus).filter((n) => /^gpiochip\d+$/.test(n))) {
      const real = realpath(join(bus, dev));
      if (real) byParent.set(dirname(real), dev);
    }
  const chips: GpioChip[] = [];
  for (const name of names) {
    const dir = join(sysfsRoot, name);
    const base = Number(readTrim(join(dir, 'base')));
    const ngpio = Number(readTrim(join(dir, 'ngpio')));
    const label = readTrim(join(dir, 'label')) ?? '';
    if (!Number.isInteger(base) || !Number.isInteger(ngpio)) continue;
    const parent = realpath(join(dir, 'device'));
    const device = parent ? byParent.get(parent) : undefined;
    chips.push({ sysfsName: name, base, ngpio, label, ...(device ? { device } : {}) });
  }
  return chips.sort((a, b) => a.base - b.base);
}

/** The chips found, for an error line: `pinctrl-bcm2711 (base 512, 58 lines), raspberrypi-exp-gpio (base 570, 8 lines)`. */
export function describeChips(chips: readonly GpioChip[]): string {
  if (chips.length === 0) return 'no GPIO chips';
  return chips.map((c) => `${c.label || c.sysfsName} (${c.device ? `${c.device}, ` : ''}base ${c.base}, ${c.ngpio} lines)`).join(', ');
}

/** The chip a `chip:` value names: a label, or `/dev/gpiochipN`. */
function chipNamed(chips: readonly GpioChip[], name: string, sysfsRoot: string): GpioChip {
  const dev = /^\/dev\/(gpiochip\d+)$/.exec(name)?.[1];
  if (dev) {
    const chip = chips.find((c) => c.device === dev);
    if (chip) return chip;
    const present = existsSync(join(gpioBusDevices(sysfsRoot), dev));
    throw new GpioResolveError(
      present
        ? `chip ${name}: the kernel has it but shows no sysfs GPIO chip for it (found: ${describeChips(chips)}); name the chip by its label instead`
        : `chip ${name}: no such GPIO character device (found: ${describeChips(chips)}); name one of these, by label or /dev/gpiochipN`,
    );
  }
  const chip = chips.find((c) => c.label === name);
  if (chip) return chip;
  throw new GpioResolveError(`chip "${name}": no GPIO chip has that label (found: ${describeChips(chips)}); use one of these labels`);
}

/** The chip carrying the header's GPIOs: the rig's `chip:`, else the first chip with a known header label. */
export function headerChip(chips: readonly GpioChip[], chip: string | undefined, sysfsRoot: string): GpioChip {
  if (chip !== undefined) return chipNamed(chips, chip, sysfsRoot);
  for (const label of HEADER_CHIP_LABELS) {
    const found = chips.find((c) => c.label === label);
    if (found) return found;
  }
  throw new GpioResolveError(
    `no Raspberry Pi header GPIO chip (${HEADER_CHIP_LABELS.join(', ')}) among ${describeChips(chips)}; set chip: in the rig file to the label or /dev/gpiochipN of the chip the lines are on`,
  );
}

/** Resolve one line. `rigChip` is the rig file's `chip:` key. Throws GpioResolveError. */
export function resolveGpioLine(
  ref: GpioLineRef,
  chips: readonly GpioChip[],
  o: { rigChip?: string; sysfsRoot?: string } = {},
): ResolvedGpioLine {
  const root = o.sysfsRoot ?? DEFAULT_GPIO_SYSFS;
  let chip: GpioChip;
  let offset: number;
  let name: string;
  try {
    if (ref.offset !== undefined && ref.chip !== undefined) {
      chip = chipNamed(chips, ref.chip, root);
      offset = ref.offset;
      name = `${ref.chip} offset ${offset}`;
    } else if (ref.line !== undefined) {
      name = `GPIO${ref.line}`;
      chip = headerChip(chips, o.rigChip, root);
      offset = ref.line;
    } else throw new GpioResolveError('names neither line nor chip and offset');
  } catch (err) {
    const what = ref.line !== undefined ? `GPIO${ref.line}` : `${ref.chip ?? '?'} offset ${ref.offset ?? '?'}`;
    throw new GpioResolveError(`${what}: ${(err as Error).message}`);
  }
  if (!Number.isInteger(offset) || offset < 0 || offset >= chip.ngpio)
    throw new GpioResolveError(
      `${name}: ${chip.label || chip.sysfsName} has lines 0-${chip.ngpio - 1} only (found: ${describeChips(chips)}); use the header GPIO number (not the pin number), or {chip, offset} for another chip`,
    );
  return { name, chip, offset, sysfs: chip.base + offset };
}

/** A line of a rig: who uses it (`heater "fryer"`, `presence`: no `: ` in it) and how the file names it. */
export interface RigLineUse {
  use: string;
  ref: GpioLineRef;
}

/**
 * Every line a rig uses, resolved. `errors` holds one line per line that cannot be and per line used twice,
 * each starting with the uses it is about (`heater "fryer": …`; all of them at once when sysfs GPIO is missing).
 */
export function resolveRigLines(
  uses: readonly RigLineUse[],
  o: { rigChip?: string; sysfsRoot?: string } = {},
): { lines: Map<string, ResolvedGpioLine>; errors: string[]; chips: GpioChip[] } {
  const root = o.sysfsRoot ?? DEFAULT_GPIO_SYSFS;
  const lines = new Map<string, ResolvedGpioLine>();
  if (uses.length === 0) return { lines, errors: [], chips: [] };
  let chips: GpioChip[];
  try {
    chips = readGpioChips(root);
  } catch (err) {
    return { lines, errors: [`${uses.map((u) => u.use).join(', ')}: ${(err as Error).message}`], chips: [] };
  }
  const errors: string[] = [];
  const bySysfs = new Map<number, string>();
  for (const u of uses) {
    try {
      const r = resolveGpioLine(u.ref, chips, { ...o, sysfsRoot: root });
      const other = bySysfs.get(r.sysfs);
      if (other !== undefined)
        errors.push(`${u.use}: ${r.name} (sysfs ${r.sysfs}) is already used by ${other}; give each output and input its own line`);
      else bySysfs.set(r.sysfs, u.use);
      lines.set(u.use, r);
    } catch (err) {
      errors.push(`${u.use}: ${(err as Error).message}`);
    }
  }
  return { lines, errors, chips };
}

/** The mapping line `hearth rig check --probe` prints: `GPIO17 → gpiochip0 line 17 (pinctrl-bcm2711), sysfs 529`. */
export function describeResolved(r: ResolvedGpioLine): string {
  const dev = r.chip.device ?? `${r.chip.sysfsName} (sysfs)`;
  return `${r.name} → ${dev} line ${r.offset} (${r.chip.label || 'no label'}), sysfs ${r.sysfs}`;
}

/** What an error of `resolveRigLines` says about `use`, without the uses it starts with; undefined if it is not about it. */
export function errorFor(errors: readonly string[], use: string): string | undefined {
  const e = errors.find((x) => x.slice(0, x.indexOf(': ')).split(', ').includes(use));
  return e?.slice(e.indexOf(': ') + 2);
}
