/**
 * The `reason` and `source` every safety CloudEvent carries (issue 14 item 6), worked out from the bus payload:
 * the stopper's own words and who stopped when known, else what the trip or the kind says.
 */
import type { BusEvents } from './bus.js';

type SafetyPayload = BusEvents['safety'];

/** Why, in one string: the reason the stopper gave, else the trip's reason code, else what the kind says. */
export function safetyReason(p: SafetyPayload): string {
  if (p.kind === 'estop') return p.reason ?? p.trip?.statedReason ?? 'emergency stop';
  if (p.kind === 'spoof_refused') return p.reason ?? 'a client published on a safety topic';
  if (p.kind === 'limit_raise_refused') return p.reason ?? 'a request would have raised a safety limit';
  return p.reason ?? p.trip?.reason ?? p.kind;
}

/** Who or what: the person or agent, the button or MQTT client, or the supervisor for a trip it latched itself. */
export function safetySource(p: SafetyPayload): string {
  if (p.source) return p.source;
  if (p.kind === 'reset' || p.kind === 'limit_raise_refused') return p.by ?? 'unknown';
  if (p.kind === 'spoof_refused' && p.origin) return `mqtt client ${p.origin.clientId}`;
  if (p.trip?.source) return p.trip.source;
  return p.kind === 'trip' || p.kind === 'cleared' ? 'supervisor' : 'unknown';
}
