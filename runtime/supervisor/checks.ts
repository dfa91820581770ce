/**
 * One sample's worth of checks: given fresh readings, run every detector over every sensor and heater and
 * return the first trip (or null). Holds the detectors' trend state between samples; knows nothing about
 * outputs, buses or events.
 */
import type { HeaterOutput, TemperatureReading, TemperatureSensor } from '../../drivers/types.js';
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
import type { DetectorTrip } from '../../safety/detectors/types.js';
import type { EffectiveMax } from './effective-limits.js';

export interface CheckParams {
  staleMs: number;
  runaway: RunawayParams;
  whileOff: WhileOffParams;
  /** Temperatures where a medium stops rising by nature (water boils): runaway rests above them. */
  plateauC: Record<string, number>;
}

export const CHECK_DEFAULTS: CheckParams = {
  staleMs: 1500,
  runaway: RUNAWAY_DEFAULTS,
  whileOff: WHILE_OFF_DEFAULTS,
  plateauC: { water: 90 },
};

export interface HeaterView {
  heater: HeaterOutput;
  /** Commanded power (the lease), 0 when none. */
  power: number;
  targetC?: number;
  limit: EffectiveMax;
}

interface SensorState {
  lastGoodAt?: number;
  lastGood?: number;
  lastProblem?: string;
}

export class SampleChecks {
  private readonly sensorState = new Map<string, SensorState>();
  private readonly runaway = new Map<string, RunawayState>();
  private readonly whileOff = new Map<string, WhileOffState>();
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
    this.runaway.clear();
    this.whileOff.clear();
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
      if (trip) return trip;
      st.lastGood = r.tempC as number;
      st.lastGoodAt = r.at;
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
      if (trip) return trip;
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
      if (trip) return trip;
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
        if (trip) return trip;
      }
    }
    const primary = ids[0];
    if (primary === undefined) return null;
    const tempC = this.fresh(primary, now) as number;
    const r = stepRunaway(
      this.runaway.get(h.heater.id) ?? {},
      { heater: h.heater.id, sensor: primary, tempC, power: h.power, targetC: h.targetC, plateauC: this.p.plateauC[h.heater.medium], now },
      this.p.runaway,
    );
    this.runaway.set(h.heater.id, r.state);
    if (r.trip) return r.trip;
    const w = stepHeatingWhileOff(
      this.whileOff.get(h.heater.id) ?? {},
      { heater: h.heater.id, sensor: primary, tempC, power: h.power, now },
      this.p.whileOff,
    );
    this.whileOff.set(h.heater.id, w.state);
    return w.trip;
  }
}
