/**
 * One supervisor sample's I/O, apart from its decisions (supervisor.ts): read every sensor (a read that
 * throws is a `bus_error` reading, never an exception), and publish each reading as telemetry.
 */
import type { Clock, Rig, TemperatureReading } from '../../drivers/types.js';
import type { EventBus } from '../events/bus.js';

/** Read every sensor of the rig at once; a failed read becomes a `bus_error` reading with the reason. */
export function readSensors(rig: Pick<Rig, 'sensors'>, clock: Clock): Promise<TemperatureReading[]> {
  return Promise.all(
    [...rig.sensors.values()].map((s) =>
      s.read().catch(
        (err: unknown): TemperatureReading => ({
          sensor: s.id,
          tempC: null,
          at: clock.now(),
          fault: 'bus_error',
          detail: (err as Error).message,
        }),
      ),
    ),
  );
}

/** Publish each reading as a `telemetry` event (with the sensor's svc name) stamped `at`. */
export function emitTelemetry(bus: EventBus, rig: Pick<Rig, 'sensors'>, readings: readonly TemperatureReading[], at: string): void {
  for (const r of readings) {
    const s = rig.sensors.get(r.sensor);
    bus.emit('telemetry', {
      sensor: r.sensor,
      svcSensor: s?.svcSensor ?? r.sensor,
      tempC: r.tempC,
      ...(r.fault ? { fault: r.fault } : {}),
      at,
    });
  }
}
