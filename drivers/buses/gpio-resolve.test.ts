/**
 * The GPIO line resolver on the sysfs layouts of the Raspberry Pi boards and kernels users run: the header chip
 * is found by its label among the others (the firmware expander, the Pi 5's brcmstb chips), its base added, its
 * character device named; and every line that cannot be resolved is one line naming the line, the chips found
 * and the remedy.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { fakeGpioSysfs, PI_LAYOUTS, type PiLayoutName } from '../../test-support/fake-gpio-sysfs.js';
import { resolveRigGpio } from '../rig-config-gpio.js';
import { describeResolved, readGpioChips, resolveGpioLine, resolveRigLines } from './gpio-resolve.js';

const expected: Record<PiLayoutName, { sysfs: number; chardev: string; label: string }> = {
  'pi4-6.1': { sysfs: 17, chardev: 'gpiochip0', label: 'pinctrl-bcm2711' },
  'pi4-6.6': { sysfs: 529, chardev: 'gpiochip0', label: 'pinctrl-bcm2711' },
  'pi5-6.6.47': { sysfs: 588, chardev: 'gpiochip0', label: 'pinctrl-rp1' },
  'zero2w-6.6': { sysfs: 529, chardev: 'gpiochip0', label: 'pinctrl-bcm2835' },
};

for (const name of Object.keys(PI_LAYOUTS) as PiLayoutName[]) {
  t.test(`${PI_LAYOUTS[name].what}: GPIO17 is sysfs ${expected[name].sysfs}`, async (t) => {
    const fake = await fakeGpioSysfs(t, name, { kernel: false });
    const chips = readGpioChips(fake.root);
    t.equal(chips.length, PI_LAYOUTS[name].chips.length, 'every chip is seen');
    for (const c of chips) t.ok(c.device, `${c.label} has its character device`);
    const r = resolveGpioLine({ line: 17 }, chips, { sysfsRoot: fake.root });
    t.equal(r.sysfs, expected[name].sysfs);
    t.equal(r.chip.label, expected[name].label, 'picked by label, not by being first');
    t.equal(describeResolved(r), `GPIO17 → ${expected[name].chardev} line 17 (${expected[name].label}), sysfs ${expected[name].sysfs}`);
    // The same chip named by the rig's chip: key, by label or by character device.
    for (const chip of [expected[name].label, `/dev/${expected[name].chardev}`])
      t.equal(resolveGpioLine({ line: 17 }, chips, { rigChip: chip, sysfsRoot: fake.root }).sysfs, expected[name].sysfs, chip);
  });
}

t.test('the probe line the issue shows, on a Pi 4 with kernel 6.6', async (t) => {
  const fake = await fakeGpioSysfs(t, 'pi4-6.6', { kernel: false });
  const r = resolveGpioLine({ line: 17 }, readGpioChips(fake.root), { sysfsRoot: fake.root });
  t.equal(describeResolved(r), 'GPIO17 → gpiochip0 line 17 (pinctrl-bcm2711), sysfs 529');
});

t.test('{chip, offset} names a line of another chip', async (t) => {
  const fake = await fakeGpioSysfs(t, 'pi4-6.6', { kernel: false });
  const chips = readGpioChips(fake.root);
  t.equal(resolveGpioLine({ chip: 'raspberrypi-exp-gpio', offset: 2 }, chips, { sysfsRoot: fake.root }).sysfs, 572);
  t.equal(resolveGpioLine({ chip: '/dev/gpiochip1', offset: 2 }, chips, { sysfsRoot: fake.root }).sysfs, 572);
  const pi5 = await fakeGpioSysfs(t, 'pi5-6.6.47', { kernel: false });
  const r = resolveGpioLine({ chip: '/dev/gpiochip12', offset: 3 }, readGpioChips(pi5.root), { sysfsRoot: pi5.root });
  t.same([r.chip.label, r.sysfs], ['gpio-brcmstb@107d517c00', 551]);
});

t.test('lines that cannot be resolved: one line each, with the chips found and the remedy', async (t) => {
  const fake = await fakeGpioSysfs(t, 'pi4-6.6', { kernel: false });
  const found = 'found: pinctrl-bcm2711 (gpiochip0, base 512, 58 lines), raspberrypi-exp-gpio (gpiochip1, base 570, 8 lines)';
  const one = (ref: { line?: number; chip?: string; offset?: number }, rigChip?: string) => {
    const r = resolveRigLines([{ use: 'heater "fryer"', ref }], { sysfsRoot: fake.root, ...(rigChip ? { rigChip } : {}) });
    t.equal(r.lines.size, 0);
    t.equal(r.errors.length, 1);
    t.notMatch(r.errors[0], /\n/, 'one line');
    return r.errors[0] ?? '';
  };
  t.equal(
    one({ line: 58 }),
    `heater "fryer": GPIO58: pinctrl-bcm2711 has lines 0-57 only (${found}); use the header GPIO number (not the pin number), or {chip, offset} for another chip`,
  );
  t.equal(
    one({ line: 17 }, 'pinctrl-bcm2712'),
    `heater "fryer": GPIO17: chip "pinctrl-bcm2712": no GPIO chip has that label (${found}); use one of these labels`,
  );
  t.match(
    one({ line: 17 }, '/dev/gpiochip4'),
    /^heater "fryer": GPIO17: chip \/dev\/gpiochip4: no such GPIO character device \(found: pinctrl-bcm2711 /,
  );
  t.match(one({ chip: 'raspberrypi-exp-gpio', offset: 8 }), /raspberrypi-exp-gpio offset 8: raspberrypi-exp-gpio has lines 0-7 only/);

  // Two uses of one line: both named.
  const twice = resolveRigLines(
    [
      { use: 'heater "fryer"', ref: { line: 17 } },
      { use: 'presence', ref: { chip: 'pinctrl-bcm2711', offset: 17 } },
    ],
    { sysfsRoot: fake.root },
  );
  t.same(twice.errors, [
    'presence: pinctrl-bcm2711 offset 17 (sysfs 529) is already used by heater "fryer"; give each output and input its own line',
  ]);

  // No header chip at all (another board): the rig must say which chip.
  const other = await fakeGpioSysfs(
    t,
    {
      what: 'a board without a Pi header chip',
      header: 'gpio-sunxi',
      chips: [{ label: 'gpio-sunxi', base: 0, ngpio: 224, device: 'platform/soc/1c20800.pinctrl', chardev: 'gpiochip0' }],
    },
    { kernel: false },
  );
  const none = resolveRigGpio({ gpioSysfsRoot: other.root, heaters: [{ id: 'fryer', driver: 'gpio_relay', gpio: { line: 17 } }] });
  t.same(none.errors, [
    'heater "fryer": GPIO17: no Raspberry Pi header GPIO chip (pinctrl-bcm2711, pinctrl-bcm2835, pinctrl-rp1) among gpio-sunxi (gpiochip0, base 0, 224 lines); set chip: in the rig file to the label or /dev/gpiochipN of the chip the lines are on',
  ]);
  t.equal(
    resolveRigGpio({
      gpioSysfsRoot: other.root,
      chip: 'gpio-sunxi',
      heaters: [{ id: 'fryer', driver: 'gpio_relay', gpio: { line: 17 } }],
    }).lines.get('heater "fryer"')?.sysfs,
    17,
  );

  // No sysfs GPIO at all.
  rmSync(join(fake.root), { recursive: true, force: true });
  const gone = resolveRigGpio({ gpioSysfsRoot: fake.root, heaters: [{ id: 'fryer', driver: 'gpio_relay', gpio: { line: 17 } }] });
  t.same(gone.errors, [
    `heater "fryer": ${fake.root} does not exist: this kernel has no sysfs GPIO (CONFIG_GPIO_SYSFS) or this is not the board; run hearth on the Raspberry Pi, or set gpioSysfsRoot in the rig file`,
  ]);
});
