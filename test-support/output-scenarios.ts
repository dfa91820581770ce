/**
 * Scenarios for the output-side safety controls, in the shape the mutation run takes:
 * `run({ disabled })` switches the named controls off (in this process through the test-only seam of
 * safety/controls.ts, in a spawned hearth through an `--import` preload that does the same) and reports
 * whether the physical outcome was safe. Each one fails when its own control is disabled.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimGpio } from '../drivers/buses/gpio.js';
import { ManualClock } from '../drivers/clock.js';
import { RelayHeater } from '../drivers/devices/relay-heater.js';
import { encodeFrame } from '../drivers/devices/serial-protocol.js';
import { SimAppliance } from '../drivers/sim/sim-appliance.js';
import { lockDataDir } from '../runtime/app/data-dir-lock.js';
import { createSdNotifier } from '../runtime/app/sd-notify.js';
import type { SafetyControl } from '../safety/controls.js';
import { runCli } from './cli.js';
import { fakeGpioSysfs } from './fake-gpio-sysfs.js';

const DISABLED = Symbol.for('hearth.test-support.disabled-safety-controls');

export interface ScenarioResult {
  ok: boolean;
  detail: string;
}

export interface OutputScenario {
  /** A short kebab-case name (what the mutation run prints and docs/safety-case.md's hazard table cites); default `name`. */
  id?: string;
  name: string;
  control: SafetyControl;
  /** Runs its subject in a spawned process (disabled by preload): the mutation run may overlap it with in-process work. */
  spawns?: boolean;
  run(o: { disabled: Set<SafetyControl> }): Promise<ScenarioResult>;
}

/** Run `fn` with `disabled` switched off in this process, restoring what was there before. */
async function withDisabled<T>(disabled: Set<SafetyControl>, fn: () => Promise<T>): Promise<T> {
  const g = globalThis as Record<symbol, unknown>;
  const before = g[DISABLED];
  g[DISABLED] = new Set(disabled);
  try {
    return await fn();
  } finally {
    g[DISABLED] = before;
  }
}

/** An `--import` preload (a data: URL) that disables `disabled` in a spawned process. */
export function disablePreload(disabled: Set<SafetyControl>): string[] {
  const code = `globalThis[Symbol.for('hearth.test-support.disabled-safety-controls')] = new Set(${JSON.stringify([...disabled])});`;
  return ['--import', `data:text/javascript,${encodeURIComponent(code)}`];
}

export const outputScenarios: OutputScenario[] = [
  {
    id: 'active-low-relay-cut',
    name: 'active-low relay cut: the wire goes HIGH and the load is de-energized',
    control: 'off-polarity',
    run: ({ disabled }) =>
      withDisabled(disabled, async () => {
        const gpio = new SimGpio();
        const heater = new RelayHeater({
          id: 'fryer',
          medium: 'oil',
          sensors: ['oil'],
          maxPowerW: 2000,
          line: gpio.output(17, true),
          clock: new ManualClock(0),
        });
        await heater.set(1);
        heater.off();
        const on = gpio.energized(17);
        return { ok: on === false, detail: `after the cut the wire carries ${gpio.level(17)}; the load is ${on ? 'ON' : 'off'}` };
      }),
  },
  {
    id: 'serial-appliance-lease-runs-out',
    name: 'serial appliance: the host falls silent with heat on, the lease runs out',
    control: 'appliance-heat-lease',
    run: ({ disabled }) =>
      withDisabled(disabled, async () => {
        const clock = new ManualClock(0);
        const a = new SimAppliance({ clock });
        a.receive(Buffer.from(encodeFrame('PWR', 1000, 2000)));
        clock.advance(2100);
        const p = a.permille;
        a.close();
        return { ok: p === 0, detail: `2.1 s after the last frame the appliance runs at ${p}‰` };
      }),
  },
  {
    id: 'second-data-dir-holder-refused',
    name: 'a second holder of the data directory is refused',
    control: 'data-dir-lock',
    run: ({ disabled }) =>
      withDisabled(disabled, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'hearth-mutant-lock-'));
        const first = await lockDataDir(dir);
        try {
          const second = await lockDataDir(dir).then(
            (l) => l,
            () => undefined,
          );
          await second?.release();
          return { ok: second === undefined, detail: second ? 'two holders of one data directory' : 'the second was refused' };
        } finally {
          await first.release();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
  },
  {
    id: 'unhealthy-loop-no-watchdog-ping',
    name: 'an unhealthy loop sends systemd no WATCHDOG=1',
    control: 'sd-watchdog-health',
    run: ({ disabled }) =>
      withDisabled(disabled, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'hearth-mutant-sd-'));
        // The sender: a stand-in for systemd-notify that writes down every message it is asked to send.
        const sent = join(dir, 'sent');
        const sender = join(dir, 'notify.sh');
        writeFileSync(sender, `#!/bin/sh\necho "$@" >> '${sent}'\n`);
        chmodSync(sender, 0o755);
        let checks = 0;
        const n = createSdNotifier({
          env: { NOTIFY_SOCKET: join(dir, 'sock'), WATCHDOG_USEC: '100000', PATH: process.env.PATH },
          command: sender,
          healthy: () => {
            checks++;
            return false;
          },
        });
        try {
          n.ready();
          // Wait for five ping ticks (counted by the ticks themselves when healthy() is not asked), or 30 s.
          const end = Date.now() + 30_000;
          while (Date.now() < end && checks < 5 && !(existsSync(sent) && /WATCHDOG=1/.test(readFileSync(sent, 'utf8')))) {
            await new Promise((r) => setTimeout(r, 20));
          }
          const text = existsSync(sent) ? readFileSync(sent, 'utf8') : '';
          const pinged = /WATCHDOG=1/.test(text);
          return {
            ok: !pinged && checks >= 5,
            detail: pinged ? 'WATCHDOG=1 sent while unhealthy' : `no ping in ${checks} unhealthy ticks`,
          };
        } finally {
          n.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
  },
  {
    id: 'safe-off-before-corrupt-database',
    name: 'hearth start on a corrupt database, relays left on: outputs off before the failure',
    control: 'safe-off-at-start',
    spawns: true,
    async run({ disabled }) {
      const dir = mkdtempSync(join(tmpdir(), 'hearth-mutant-safe-off-'));
      // A Pi 4 on kernel 6.6 (test-support/fake-gpio-sysfs.ts): the fryer's GPIO17 is sysfs 529.
      const closers: Array<() => void> = [];
      try {
        const fake = await fakeGpioSysfs({ teardown: (fn) => closers.push(fn) }, 'pi4-6.6');
        const rig = {
          kind: 'hardware',
          gpioSysfsRoot: fake.root,
          sensors: [{ id: 'oil', driver: 'mcp9600', svcSensor: 'cw.sense.oil_temp', medium: 'oil', bus: '/dev/i2c-1', address: 0x60 }],
          heaters: [
            {
              id: 'fryer',
              driver: 'gpio_relay',
              medium: 'oil',
              sensors: ['oil'],
              maxPowerW: 2000,
              maxC: 230,
              heatCapacityJPerK: 6000,
              gpio: { line: 17, activeLow: true },
            },
          ],
        };
        writeFileSync(join(dir, 'rig.json'), JSON.stringify(rig));
        // Left on by a dead process: the active-low relay's wire LOW.
        fake.leave(fake.sysfsOf(17), 0);
        mkdirSync(join(dir, 'var'));
        writeFileSync(join(dir, 'var', 'hearth.db'), 'not a database'.repeat(500));
        const args = ['start', '--rig', join(dir, 'rig.json'), '--data-dir', join(dir, 'var'), '--http-port', '0', '--log-level', 'silent'];
        const r = await runCli(args, { timeoutMs: 90_000, env: { ...process.env, NODE_OPTIONS: disablePreload(disabled).join(' ') } });
        const on = fake.level(fake.sysfsOf(17)) !== 1;
        return { ok: r.code !== 0 && on === false, detail: `start exited ${r.code}; the relay is ${on ? 'ON' : 'off'}` };
      } finally {
        for (const close of closers) close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
];
