/**
 * Home Assistant over the hub's MQTT connection, published as the hub (which may publish anything): retained
 * discovery configs (discovery.ts) and retained state messages that the entities read — sensor readings (at most
 * once per second per sensor, sooner on a fault change, and at least once a minute), heater power, the execution
 * state and step, and the latched safety stop. When Home Assistant announces `online` on `homeassistant/status`
 * every config and state is published again. Nothing here commands heat; the e-stop button's command topic is the
 * hub's own e-stop command, which the MQTT feature hands to the supervisor.
 */
import type { EventBus } from '../events/bus.js';
import type { ExecutionStatus } from '../executor/types.js';
import type { BusTransport } from '../mqtt/transport.js';
import type { SupervisorStatus } from '../supervisor/types.js';
import { type DiscoveryInput, discoveryMessages, stateTopic } from './discovery.js';

export interface HomeAssistantBridgeOptions extends DiscoveryInput {
  transport: Pick<BusTransport, 'publish' | 'onCommand'>;
  bus: EventBus;
  /** The device clock (rate limits use it). */
  now: () => number;
  safety: () => SupervisorStatus;
  /** The active execution, else the one named (the last one seen on the bus), else null. */
  execution: (lastId: string | undefined) => ExecutionStatus | null;
  heaterPower: (id: string) => number;
  onError?: (err: unknown) => void;
}

interface Last {
  at: number;
  tempC: number | null;
  fault?: string;
}

export class HomeAssistantBridge {
  private readonly offs: Array<() => void> = [];
  private readonly lastSensor = new Map<string, Last>();
  private readonly sensorState = new Map<string, Record<string, unknown>>();
  private lastExecution: string | undefined;
  private pending: Promise<unknown> = Promise.resolve();
  private running = false;
  /** Discovery rounds published (the first plus one per `online`). */
  announcements = 0;

  constructor(private readonly o: HomeAssistantBridgeOptions) {
    o.transport.onCommand((command, _origin, payload) => {
      if (command === 'ha_status' && this.running && payload.toString('utf8').trim() === 'online') this.announce();
    });
  }

  start(): void {
    this.running = true;
    const { bus } = this.o;
    this.offs.push(
      bus.on('telemetry', (e) => this.onReading(e.sensor, e.tempC, e.fault, e.at)),
      bus.on('heater', (e) => this.send(stateTopic(this.o.kitchenId, `heater_${e.heater}`), { power: e.power, at: e.at })),
      bus.on('safety', () => this.sendSafety()),
      bus.on('execution.state', (e) => {
        this.lastExecution = e.executionId;
        this.sendExecution();
      }),
    );
    this.announce();
  }

  /** Resolves once everything handed to the broker so far was accepted. */
  async flush(): Promise<void> {
    await this.pending;
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const off of this.offs.splice(0)) off();
    await this.flush();
  }

  /** Publish every discovery config, then every current state. */
  announce(): void {
    this.announcements++;
    for (const m of discoveryMessages(this.o)) this.publish(m.topic, JSON.stringify(m.config));
    for (const h of this.o.heaters) this.send(stateTopic(this.o.kitchenId, `heater_${h.id}`), { power: this.o.heaterPower(h.id) });
    for (const [sensor, state] of this.sensorState) this.send(stateTopic(this.o.kitchenId, `sensor_${sensor}`), state);
    this.sendSafety();
    this.sendExecution();
  }

  private onReading(sensor: string, tempC: number | null, fault: string | undefined, at: string): void {
    const now = this.o.now();
    const last = this.lastSensor.get(sensor);
    const rounded = tempC === null ? null : Math.round(tempC * 10) / 10;
    const changed = !last || last.tempC !== rounded || last.fault !== fault;
    const due = !last || (changed && now - last.at >= 1000) || now - last.at >= 60_000 || last.fault !== fault;
    if (!due) return;
    this.lastSensor.set(sensor, { at: now, tempC: rounded, ...(fault ? { fault } : {}) });
    const state = { tempC: rounded, ...(fault ? { fault } : {}), at };
    this.sensorState.set(sensor, state);
    this.send(stateTopic(this.o.kitchenId, `sensor_${sensor}`), state);
  }

  private sendSafety(): void {
    const s = this.o.safety();
    const trip =
      s.latched && s.trip
        ? { reason: s.trip.reason, subject: s.trip.subject, message: s.trip.message, hint: s.trip.hint, at: s.trip.at }
        : {};
    this.send(stateTopic(this.o.kitchenId, 'safety'), { latched: s.latched, ...trip });
  }

  private sendExecution(): void {
    const e = this.o.execution(this.lastExecution);
    const body = e
      ? {
          state: e.state,
          executionId: e.id,
          ...(e.step ? { step: e.step.node, op: e.step.op, progress: e.step.progress } : {}),
          ...(e.refusal ? { refusal: e.refusal.reason } : {}),
        }
      : { state: 'idle' };
    this.send(stateTopic(this.o.kitchenId, 'execution'), body);
  }

  private send(topic: string, body: Record<string, unknown>): void {
    this.publish(topic, JSON.stringify(body));
  }

  private publish(topic: string, payload: string): void {
    const p = this.o.transport
      .publish({ topic, payload, qos: 1, retain: true, contentType: 'application/json' })
      .catch((err) => this.o.onError?.(err));
    this.pending = this.pending.then(() => p);
  }
}
