/**
 * What a scenario run records: bus events with the device-clock time they happened at, the highest reading
 * of each sensor, the moments the timeline labelled, heater outputs as sampled after every runner step, the
 * grants of run-time heat requests and the answers to HTTP actions.
 */
import type { EventBus } from '../events/bus.js';

export interface BusRecord {
  name: string;
  t: number;
  payload: Record<string, unknown>;
}

export interface Observations {
  startedAt: number;
  executionId?: string;
  bus: BusRecord[];
  maxTempC: Record<string, number>;
  /** Every numeric sample: device-clock time, sensor, °C. */
  readings: { t: number; sensor: string; tempC: number }[];
  labels: Map<string, number>;
  /** Heater power as the rig reports it, sampled after each runner step (and at each heater event). */
  powers: { t: number; heaters: Record<string, number> }[];
  finalAt?: number;
  grants: Record<string, unknown>[];
  http: Record<string, unknown>[];
  /**
   * The simulated rig's physics after every runner step (simulated rig only): each sensor's true temperature
   * (its vessel's) and the power each heater's element is fed on its wire (the duty the thermal model reads; a
   * welded relay's contacts stay closed, so full). What Hearth commanded is on the bus (`heater` events).
   */
  trace: { t: number; trueC: Record<string, number>; wire: Record<string, number> }[];
  /** Each sensor's medium (`oil`, `water`, `pan_surface`): which limits apply to it. */
  media: Record<string, string>;
  /** Highest true temperature per vessel and sensor id (simulated rig only), sampled after every runner step. */
  trueMaxC: Record<string, number>;
  /** Stalls: which outputs were physically on when the stall began, and real ms until every one was off. */
  stalls: { onAtStart: Record<string, number>; offAfterMs?: number }[];
  /** Real ms from a stall's start to every output physically off (the first stall). */
  watchdogOffMs?: number;
  status?: Record<string, unknown>;
  log?: Record<string, unknown>;
  safety?: Record<string, unknown>;
  limits?: Record<string, unknown>;
  validation?: unknown[];
  /** Timeline entries never reached. */
  unfired: string[];
}

const FINAL = new Set(['completed', 'failed', 'stopped', 'refused']);

export function observe(bus: EventBus, now: () => number, heaterPower: () => Record<string, number>): { obs: Observations; stop(): void } {
  const obs: Observations = {
    startedAt: now(),
    bus: [],
    maxTempC: {},
    readings: [],
    labels: new Map(),
    powers: [],
    grants: [],
    http: [],
    unfired: [],
    trueMaxC: {},
    trace: [],
    media: {},
    stalls: [],
  };
  const offs = [
    bus.on('safety', (p) => {
      obs.bus.push({ name: 'safety', t: now(), payload: p as unknown as Record<string, unknown> });
    }),
    bus.on('heater', (p) => {
      obs.bus.push({ name: 'heater', t: now(), payload: p as unknown as Record<string, unknown> });
      obs.powers.push({ t: now(), heaters: heaterPower() });
    }),
    bus.on('execution.state', (p) => {
      obs.bus.push({ name: 'execution.state', t: now(), payload: p as unknown as Record<string, unknown> });
      if (p.executionId === obs.executionId && FINAL.has(p.state) && obs.finalAt === undefined) {
        obs.finalAt = now();
        obs.labels.set('final', obs.finalAt);
      }
    }),
    bus.on('telemetry', (p) => {
      if (typeof p.tempC !== 'number') return;
      obs.readings.push({ t: now(), sensor: p.sensor, tempC: p.tempC });
      const was = obs.maxTempC[p.sensor];
      if (was === undefined || p.tempC > was) obs.maxTempC[p.sensor] = Math.round(p.tempC * 10) / 10;
    }),
  ];
  return {
    obs,
    stop: () => {
      for (const off of offs) off();
    },
  };
}

/** The first safety trip (or e-stop) seen on the bus. */
export function firstTrip(obs: Observations): Record<string, unknown> | undefined {
  const rec = obs.bus.find((b) => b.name === 'safety' && (b.payload.kind === 'trip' || b.payload.kind === 'estop'));
  return rec?.payload.trip as Record<string, unknown> | undefined;
}
