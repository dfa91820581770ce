/** The "heat is on" marker (heat-marker.ts): what it writes, when (not per power change), and what a start makes of it. */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { scratchFiles } from '../../test-support/cli.js';
import { EventBus } from '../events/bus.js';
import { HEAT_MARKER_FILE, HeatMarker, readHeatMarker, trackHeat, uncleanStopTrip } from './heat-marker.js';
import type { SafetyTrip } from './types.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(cond: () => boolean, ms = 30_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await sleep(5);
  return cond();
}

t.test('written when a heater comes on, kept through an off and on again, removed once heat has settled off', async (t) => {
  const { dir } = scratchFiles(t, 'hearth-marker-');
  const file = join(dir, HEAT_MARKER_FILE);
  const m = new HeatMarker(dir, { settleMs: 200 });
  t.notOk(existsSync(file), 'nothing on, no file');
  m.heating('fryer', '2026-12-04T20:00:00.000Z', () => 'ex-1');
  t.same(readHeatMarker(dir), { pid: process.pid, heaters: { fryer: { since: '2026-12-04T20:00:00.000Z', owner: 'ex-1' } } });
  const ino = statSync(file).ino;
  m.heating('fryer', '2026-12-04T20:00:01.000Z', () => 'ex-1');
  m.off('fryer');
  m.heating('fryer', '2026-12-04T20:00:02.000Z', () => 'ex-1');
  t.equal(statSync(file).ino, ino, 'a power change, or off and on again, writes nothing');
  t.equal((readHeatMarker(dir) as { heaters: Record<string, { since: string }> }).heaters.fryer?.since, '2026-12-04T20:00:00.000Z');
  m.heating('pot', '2026-12-04T20:00:03.000Z');
  t.same(Object.keys((readHeatMarker(dir) as { heaters: object }).heaters), ['fryer', 'pot'], 'a second heater on: written at once');
  m.off('fryer');
  m.off('pot');
  t.ok(existsSync(file), 'still there right after heat went off');
  t.ok(await until(() => !existsSync(file)), 'removed once heat stayed off');
  m.heating('pan', '2026-12-04T20:01:00.000Z');
  m.clear();
  t.notOk(existsSync(file), 'clear (a clean stop) removes it at once');
});

t.test('a marker that cannot be read counts as heat on; the trip names what was heating and since when', async (t) => {
  const { dir } = scratchFiles(t, 'hearth-marker-');
  t.equal(readHeatMarker(dir), undefined);
  writeFileSync(join(dir, HEAT_MARKER_FILE), '{"pid": 12, "hea');
  t.equal(readHeatMarker(dir), 'unreadable');
  t.match(uncleanStopTrip('unreadable'), { reason: 'unclean_stop', subject: 'all', message: /could not be read/ });
  const trip = uncleanStopTrip({ pid: 12, heaters: { pot: { since: '2026-12-04T20:00:00.000Z', owner: 'ex-9' } } });
  t.match(trip, { reason: 'unclean_stop', subject: 'pot', source: 'start-up' });
  t.equal(trip.message, 'hearth (pid 12) ended without a clean stop while heating: "pot" on since 2026-12-04T20:00:00.000Z (ex-9)');
});

t.test(
  'at start: latched when the previous process left heat on and nothing is latched yet; heater events and a reset keep it',
  async (t) => {
    const { dir } = scratchFiles(t, 'hearth-marker-');
    const latched: Array<Omit<SafetyTrip, 'id' | 'at'>> = [];
    const bus = new EventBus();
    const d = {
      bus,
      supervisor: {
        status: () => ({ latched: false, heaters: { fryer: { power: 1, owner: 'ex-2' } } }),
        latchTrip: (trip: Omit<SafetyTrip, 'id' | 'at'>) => {
          latched.push(trip);
          return { ...trip, id: 'x', at: '' } as SafetyTrip;
        },
      },
      log: { warn: () => {}, error: () => {} },
    };
    trackHeat(dir, d);
    t.same(latched, [], 'no marker: nothing latched');
    bus.emit('heater', { heater: 'fryer', power: 0.4, at: '2026-12-04T20:00:00.000Z' });
    t.match(readFileSync(join(dir, HEAT_MARKER_FILE), 'utf8'), /"fryer":\{"since":"2026-12-04T20:00:00.000Z","owner":"ex-2"\}/);
    // The process dies here (no clear). The next start:
    const again = trackHeat(dir, d);
    t.equal(latched[0]?.reason, 'unclean_stop', 'latched unclean_stop');
    const restored = { reason: 'watchdog' } as SafetyTrip;
    trackHeat(dir, d, restored);
    t.equal(latched.length, 1, 'not again when the store already restored a latch');
    bus.emit('safety', { kind: 'reset', action: 'none', message: 'reset', by: 'Amal', at: '' });
    t.notOk(existsSync(join(dir, HEAT_MARKER_FILE)), 'a reset removes it');
    again.clear();
  },
);
