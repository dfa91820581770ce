/**
 * Run by drivers/buses/gpio-onoff.test.ts inside a mount namespace whose /sys is a fake sysfs
 * (test-support/fake-gpio-sysfs.ts): resolve a rig's lines at the default root, open GPIO27 as an input through
 * onoff (its real export, permission wait, configuration and value-file read) and GPIO17 as an active-low output,
 * and print what happened as one JSON line.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { openSysfsBackend } from '../drivers/buses/gpio.js';
import { resolveRigGpioOrThrow } from '../drivers/rig-config-gpio.js';

const rig = {
  heaters: [{ id: 'fryer', driver: 'gpio_relay', gpio: { line: 17 } }],
  presence: { line: 27 },
};
const lines = resolveRigGpioOrThrow(rig).lines;
const presence = lines.get('presence')?.sysfs ?? -1;
const fryer = lines.get('heater "fryer"')?.sysfs ?? -1;
const gpio = await openSysfsBackend('/sys/class/gpio', true);
const input = gpio.input(presence, false);
const before = await input.read();
// The wire goes high (a person stands in front of the presence sensor).
writeFileSync(`/sys/class/gpio/gpio${presence}/value`, '1');
const after = await input.read();
const out = gpio.output(fryer, true);
const exported = readdirSync('/sys/class/gpio').filter((e) => /^gpio\d+$/.test(e));
const fryerLevel = readFileSync(`/sys/class/gpio/gpio${fryer}/value`, 'utf8').trim();
out.close();
input.close();
process.stdout.write(`${JSON.stringify({ presence, fryer, before, after, exported, fryerLevel })}\n`);
