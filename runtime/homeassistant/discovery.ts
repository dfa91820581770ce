/**
 * Home Assistant MQTT discovery documents (pure). One device block for the appliance; one entity per sensor
 * (temperature, °C), per heater (power in %, read-only: heat is only ever commanded by Hearth's executor under the
 * safety supervisor), the execution state, the latched safety stop (binary_sensor, device_class problem) and an
 * e-stop button whose command topic is the hub's e-stop command. Availability follows the hub's retained
 * availability message (`svc/{kitchenId}/availability/hub`), which goes offline when the hub stops (or, on an
 * external broker, through its last will).
 */
import { availabilityTopic, commandTopic, HA_DISCOVERY_PREFIX, topicLevel } from '../mqtt/topics.js';

export interface DiscoveryInput {
  kitchenId: string;
  vendor: string;
  model: string;
  swVersion: string;
  sensors: ReadonlyArray<{ id: string; medium: string; svcSensor: string }>;
  heaters: ReadonlyArray<{ id: string; medium: string }>;
  /** Discovery prefix (default `homeassistant`). */
  prefix?: string;
}

export interface DiscoveryMessage {
  topic: string;
  config: Record<string, unknown>;
}

/** HA ids allow [a-zA-Z0-9_-]. */
export function haId(value: string): string {
  return value.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || '_';
}

/** Where Hearth publishes the state an entity reads (retained; a `read` token may subscribe). */
export function stateTopic(kitchenId: string, object: string): string {
  return `svc/${kitchenId}/state/${topicLevel(object)}`;
}

export function nodeId(kitchenId: string): string {
  return haId(`hearth_${kitchenId}`);
}

export function discoveryMessages(i: DiscoveryInput): DiscoveryMessage[] {
  const prefix = i.prefix ?? HA_DISCOVERY_PREFIX;
  const node = nodeId(i.kitchenId);
  const device = {
    identifiers: [node],
    name: `Hearth ${i.model}`,
    manufacturer: i.vendor,
    model: i.model,
    sw_version: i.swVersion,
  };
  const common = {
    device,
    origin: { name: 'Hearth', sw_version: i.swVersion },
    availability: [{ topic: availabilityTopic(i.kitchenId), value_template: '{{ value_json.data.state }}' }],
    payload_available: 'online',
    payload_not_available: 'offline',
  };
  const entity = (component: string, object: string, config: Record<string, unknown>): DiscoveryMessage => {
    const objectId = haId(object);
    return {
      topic: `${prefix}/${component}/${node}/${objectId}/config`,
      config: { ...config, unique_id: `${node}_${objectId}`, object_id: `${node}_${objectId}`, ...common },
    };
  };
  const out: DiscoveryMessage[] = [];
  for (const s of i.sensors) {
    const topic = stateTopic(i.kitchenId, `sensor_${s.id}`);
    out.push(
      entity('sensor', `temp_${s.id}`, {
        name: `${s.id} temperature`,
        device_class: 'temperature',
        unit_of_measurement: '°C',
        state_class: 'measurement',
        suggested_display_precision: 1,
        state_topic: topic,
        value_template: '{{ value_json.tempC }}',
        json_attributes_topic: topic,
      }),
    );
  }
  for (const h of i.heaters) {
    out.push(
      entity('sensor', `heater_${h.id}_power`, {
        name: `${h.id} heater power`,
        unit_of_measurement: '%',
        state_class: 'measurement',
        icon: 'mdi:fire',
        state_topic: stateTopic(i.kitchenId, `heater_${h.id}`),
        value_template: '{{ (value_json.power * 100) | round(0) }}',
      }),
    );
  }
  const execution = stateTopic(i.kitchenId, 'execution');
  out.push(
    entity('sensor', 'execution', {
      name: 'Cooking',
      icon: 'mdi:pot-steam',
      state_topic: execution,
      value_template: '{{ value_json.state }}',
      json_attributes_topic: execution,
    }),
  );
  const safety = stateTopic(i.kitchenId, 'safety');
  out.push(
    entity('binary_sensor', 'safety_stop', {
      name: 'Safety stop',
      device_class: 'problem',
      state_topic: safety,
      value_template: "{{ 'ON' if value_json.latched else 'OFF' }}",
      json_attributes_topic: safety,
    }),
  );
  out.push(
    entity('button', 'estop', {
      name: 'Emergency stop',
      icon: 'mdi:alert-octagon',
      command_topic: commandTopic(i.kitchenId, 'estop'),
      payload_press: JSON.stringify({ reason: 'Home Assistant e-stop button' }),
    }),
  );
  return out;
}
