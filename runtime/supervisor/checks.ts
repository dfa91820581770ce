/**
 * One sample's worth of checks: given fresh readings, run every detector over every sensor and heater and
 * return the first trip (or null). Holds the detectors' trend state between samples; knows nothing about
 * outputs, buses or events. Each detector is a safety control (safety/controls.ts): the mutation run can
 * switch one off here, and nothing else can.
 */
import type { HeaterOutput, HeaterThermal, TemperatureReading, TemperatureSensor } from '../../drivers/types.js';
import { controlActive } from '../../safety/controls.js';
import { FROZEN_DEFAULTS, type FrozenParams, type FrozenState, stepFrozen } from '../../safety/detectors/frozen-reading.js';
import { FULL_POWER_DEFAULTS, type FullPowerParams, type FullPowerState, stepFullPower } from '../../safety/detectors/full-power-cap.js';
import {
  stepHeatingWhileOff,
  WHILE_OFF_DEFAULTS,
  type WhileOffParams,
  type WhileOffState,
} from '../../safety/detectors/heating-while-off.js';
import { checkImplausiblePair } from '../../safety/detectors/implausible-pair.js';
import { checkOverLimit } from '../../safety/detectors/over-limit.js';
import { checkReadingFault } from '../../safety/detectors/reading-fault.js';
import { checkStale } from '../../safety/detectors/stale-reading.js';
import { RUNAWAY_DEFAULTS, type RunawayParams, type RunawayState, stepRunaway } from '../../safety/detectors/thermal-runaway.js';
import { SHORT_DEFAULTS, type ShortParams, type ShortState, stepShort } from '../../safety/detectors/thermocouple-short.js';
import type { DetectorTrip } from '../../safety/detectors/types.js';
import type { EffectiveMax } from './effective-limits.js';

export interface CheckParams {
  staleMs: number;
  runaway: RunawayParams;
  whileOff: WhileOffParams;
  frozen: FrozenParams;
  fullPower: FullPowerParams;
  short: ShortParams;
  /** Temperatures where a medium stops rising by nature (water boils): runaway and the full-power cap rest above them. */
  plateauC: Record<string, number>;
}

export const CHECK_DEFAULTS: CheckParams = {
  staleMs: 1500,
  runaway: RUNAWAY_DEFAULTS,
  whileOff: WHILE_OFF_DEFAULTS,
  frozen: FROZEN_DEFAULTS,
  fullPower: FULL_POWER_DEFAULTS,
  short: SHORT_DEFAULTS,
  plateauC: { water: 90 },
};

/** A sensor's noise floor when it does not state one (°C). */
const DEFAULT_NOISE_FLOOR_C = 0.1;

export interface HeaterView {
  heater: HeaterOutput;
  /** Commanded power (the lease), 0 when none. */
  power: number;
  targetC?: number;
  limit: EffectiveMax;
  /** What the heater heats, as a thermal mass (from the rig configuration); the model-based checks need it. */
  thermal?: HeaterThermal;
}

interface SensorState {
  lastGoodAt?: number;
  lastGood?: number;
  lastColdC?: number;
  lastProblem?: string;
}

interface HeaterTrends {
  runaway: RunawayState;
  whileOff: WhileOffState;
  frozen: FrozenState;
  fullPower: FullPowerState;
  short: ShortState;
}

export class SampleChecks {
  private readonly sensorState = new Map<string, SensorState>();
  private readonly trends = new Map<string, HeaterTrends>();
  private since: number;

  constructor(
    private readonly sensors: ReadonlyMap<string, TemperatureSensor>,
    private readonly p: CheckParams,
    now: number,
  ) {
    this.since = now;
  }

  /** Forget trends (after a reset): the next samples start fresh. */
  reset(now: number): void {
    this.sensorState.clear();
    this.trends.clear();
    this.since = now;
  }

  /** Latest good reading of a sensor, if it is fresh. */
  fresh(sensor: string, now: number): number | undefined {
    const s = this.sensorState.get(sensor);
    if (!s || s.lastGoodAt === undefined || now - s.lastGoodAt > this.p.staleMs) return undefined;
    return s.lastGood;
  }

  run(readings: TemperatureReading[], heaters: HeaterView[], now: number): DetectorTrip | null {
    for (const r of readings) {
      const sensor = this.sensors.get(r.sensor);
      if (!sensor) continue;
      const st = this.sensorState.get(r.sensor) ?? {};
      this.sensorState.set(r.sensor, st);
      if (r.fault === 'bus_error') {
        st.lastProblem = r.detail ?? 'bus error';
        continue;
      }
      const trip = checkReadingFault({ sensor: r.sensor, tempC: r.tempC, fault: r.fault, detail: r.detail, rangeC: sensor.rangeC });
      if (trip && controlActive('reading-fault')) return trip;
      if (trip || typeof r.tempC !== 'number') continue;
      st.lastGood = r.tempC;
      st.lastGoodAt = r.at;
      st.lastColdC = r.coldJunctionC;
    }
    for (const id of this.sensors.keys()) {
      const st = this.sensorState.get(id);
      const trip = checkStale({
        sensor: id,
        lastGoodAt: st?.lastGoodAt,
        since: this.since,
        now,
        maxAgeMs: this.p.staleMs,
        lastProblem: st?.lastProblem,
      });
      if (trip && controlActive('stale-reading')) return trip;
    }
    for (const h of heaters) {
      const trip = this.heaterChecks(h, now);
      if (trip) return trip;
    }
    return null;
  }

  private heaterChecks(h: HeaterView, now: number): DetectorTrip | null {
    const ids = h.heater.sensors.filter((id) => this.fresh(id, now) !== undefined);
    for (const id of ids) {
      const trip = checkOverLimit({
        heater: h.heater.id,
        sensor: id,
        tempC: this.fresh(id, now) as number,
        maxC: h.limit.maxC,
        limitId: h.limit.limitId,
      });
      if (trip && controlActive('over-limit')) return trip;
    }
    for (let i = 0; i < ids.length; i++) {
      for (let j = i + 1; j < ids.length; j++) {
        const a = this.sensors.get(ids[i] as string) as TemperatureSensor;
        const b = this.sensors.get(ids[j] as string) as TemperatureSensor;
        if (a.medium !== b.medium) continue;
        const trip = checkImplausiblePair(
          { sensor: a.id, tempC: this.fresh(a.id, now) as number, accuracyC: a.accuracyC },
          { sensor: b.id, tempC: this.fresh(b.id, now) as number, accuracyC: b.accuracyC },
        );
        if (trip && controlActive('implausible-pair')) return trip;
      }
    }
    const primary = ids[0];
    if (primary === undefined) return null;
    return this.trendChecks(h, primary, now);
  }

  /** The checks that watch a trend of the heater's primary sensor against its power and thermal mass. */
  private trendChecks(h: HeaterView, sensor: string, now: number): DetectorTrip | null {
    const tempC = this.fresh(sensor, now) as number;
    const heater = h.heater.id;
    const t = this.trends.get(heater) ?? { runaway: {}, whileOff: {}, frozen: {}, fullPower: {}, short: {} };
    this.trends.set(heater, t);
    const plateauC = this.p.plateauC[h.heater.medium];
    const base = { heater, sensor, tempC, power: h.power, now };
    const trips: Array<[Parameters<typeof controlActive>[0], DetectorTrip | null]> = [];
    if (h.thermal) {
      const model = { ...base, maxPowerW: h.heater.maxPowerW, thermal: h.thermal };
      const coldJunctionC = this.sensorState.get(sensor)?.lastColdC;
      const s = stepShort(t.short, { ...model, coldJunctionC }, this.p.short);
      t.short = s.state;
      trips.push(['thermocouple-short', s.trip]);
      const noiseFloorC = this.sensors.get(sensor)?.noiseFloorC ?? DEFAULT_NOISE_FLOOR_C;
      const f = stepFrozen(t.frozen, { ...model, noiseFloorC }, this.p.frozen);
      t.frozen = f.state;
      trips.push(['frozen-reading', f.trip]);
      const r = stepRunaway(t.runaway, { ...model, plateauC }, this.p.runaway);
      t.runaway = r.state;
      trips.push(['thermal-runaway', r.trip]);
    }
    const fp = stepFullPower(t.fullPower, { ...base, targetC: h.targetC, plateauC }, this.p.fullPower);
    t.fullPower = fp.state;
    trips.push(['full-power-cap', fp.trip]);
    const w = stepHeatingWhileOff(t.whileOff, base, this.p.whileOff);
    t.whileOff = w.state;
    trips.push(['heating-while-off', w.trip]);
    for (const [control, trip] of trips) if (trip && controlActive(control)) return trip;
    return null;
  }
}
