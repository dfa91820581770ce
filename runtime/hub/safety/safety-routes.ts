/**
 * Emergency stop and safety state (spec §5, semantics §8). `POST /svc/v1/safety/estop` works with any valid
 * token whatever its scopes (the physical button works with none: the supervisor watches it): heat is cut on
 * every heater through the supervisor before the body is even read, the stop latches, and a `safety` event
 * (kind `estop`, action `heat_off_all`) goes on the bus; a `{reason}` in the body follows in a second estop
 * event for the same trip, once the body has arrived. `GET /svc/v1/safety` shows the latched state, the trip
 * and what to check; `POST /svc/v1/safety/reset` clears it: an admin token, or a person's token while a person is sensed present.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Principal, requirePrincipal } from '../../../platform/http/auth.js';
import { ProblemError } from '../../../platform/http/problems.js';
import { controlActive } from '../../../safety/controls.js';
import type { EventBus } from '../../events/bus.js';
import { acceptAnyStopBody, reasonOf, stopBodyOf } from '../../http/stop-body.js';
import type { SafetySupervisor, SafetyTrip } from '../../supervisor/types.js';
import { PREFIX } from '../sessions/index.js';

export interface SafetyDeps {
  supervisor: Pick<SafetySupervisor, 'cutAll' | 'reset' | 'status' | 'stateReason'>;
  bus: EventBus;
  now: () => number;
  /** Stop whatever the executor runs (used when the stop was already latched). */
  stopAll(message: string): void;
  /** The presence sensor's reading: a person is at the appliance (never a client's claim). Absent: nobody. */
  present?(): boolean;
}

/**
 * Who may reset a latched stop (control `latch-reset-scope`): always a person's token (kind `human`), and then
 * either one with the `admin` scope, or any while the presence sensor senses someone at the appliance (a person there, confirming on a paired
 * interface). Returns how the caller qualified, for the log; throws a problem otherwise.
 */
export function resetAuthority(d: SafetyDeps, p: Principal): 'admin' | 'present person' {
  if (!controlActive('latch-reset-scope')) {
    if (p.kind !== 'human') throw new ProblemError('not-human-approver', 'only a person’s token can reset a safety stop');
    return 'present person';
  }
  if (p.kind !== 'human')
    throw new ProblemError('not-human-approver', 'a safety stop is reset by a person: with an admin token, or at the appliance');
  if (p.scopes.includes('admin')) return 'admin';
  if (!(d.present?.() ?? false))
    throw new ProblemError(
      'presence-required',
      'nobody is sensed at the appliance: a person there resets the safety stop (or use a token with the admin scope)',
    );
  return 'present person';
}

/** Who stopped, for the event's `source`: the token's kind and name and the door it came through (`human Amal via REST`). */
export function stopSource(p: { kind: string; name: string }, via: string): string {
  return `${p.kind} ${p.name} via ${via}`;
}

/**
 * Cut every heater, latch, and make sure a `safety` estop event goes out (the supervisor emits it on the first
 * latch). `reason` is the stopper's own words, when they were known before the stop (MCP, GraphQL, MQTT); a REST
 * body arrives after heat is cut, and its reason follows in `statedStopReason`. `said` replaces the default message.
 */
export function emergencyStop(d: SafetyDeps, reason: string | undefined, by: string, said?: string): SafetyTrip {
  const wasLatched = d.supervisor.status().latched;
  const message = (said ?? (reason === undefined ? `emergency stop by ${by}` : `emergency stop by ${by}: ${reason}`)).slice(0, 500);
  const trip = d.supervisor.cutAll('estop', message, { source: by, ...(reason !== undefined ? { statedReason: reason } : {}) });
  if (wasLatched) {
    d.stopAll(message);
    d.bus.emit('safety', {
      kind: 'estop',
      trip,
      action: 'heat_off_all',
      message,
      ...(reason !== undefined ? { reason } : {}),
      source: by,
      at: new Date(d.now()).toISOString(),
    });
  }
  return trip;
}

/**
 * The reason a stopper gave once the stop had already happened (a REST e-stop's body is read after heat is cut,
 * so a slow or hostile body can never delay the stop): a second `safety` estop event for the same trip, with
 * `reason` and `source`, so every subscriber (and the retained MQTT alarm) carries the stopper's words. Nothing
 * is cut or latched again; when the stop was reset meanwhile, no event (the reason is only logged by the caller).
 */
export function statedStopReason(d: SafetyDeps, trip: SafetyTrip, reason: string, by: string): boolean {
  const now = d.supervisor.status();
  if (!now.latched || now.trip?.id !== trip.id) return false;
  // The latched trip keeps the words too (GET /svc/v1/safety, the persisted latch, Home Assistant's state).
  const stated = d.supervisor.stateReason(trip.id, by, reason);
  d.bus.emit('safety', {
    kind: 'estop',
    trip: stated ?? trip,
    action: 'heat_off_all',
    message: `emergency stop by ${by}: ${reason}`.slice(0, 500),
    reason,
    source: by,
    at: new Date(d.now()).toISOString(),
  });
  return true;
}

export function safetyState(d: SafetyDeps) {
  const s = d.supervisor.status();
  return {
    latched: s.latched,
    ...(s.trip ? { trip: s.trip, hint: s.trip.hint } : {}),
    heaters: Object.fromEntries(Object.entries(s.heaters).map(([id, h]) => [id, { power: h.power }])),
  };
}

type Stopped = FastifyRequest & { estop?: SafetyTrip };

export function registerSafetyRoutes(http: FastifyInstance, d: SafetyDeps): void {
  http.register(async (scope) => {
    // Any body (none, `{reason}`, or anything else, of any type or size) is drained and at most warned about:
    // an e-stop is never refused for its body (runtime/http/stop-body.ts). No Idempotency-Key is needed: a
    // repeated e-stop cuts heat again and answers the same latched state.
    acceptAnyStopBody(scope);
    scope.post(
      `${PREFIX}/safety/estop`,
      {
        // The stop happens here, after the token check and before the body is read.
        onRequest: async (req) => {
          (req as Stopped).estop = emergencyStop(d, undefined, stopSource(requirePrincipal(req), 'REST'));
        },
      },
      async (req, reply) => {
        const body = stopBodyOf(req);
        const reason = reasonOf(body);
        if (body.warnings.length > 0) req.log.warn({ warnings: body.warnings }, 'emergency stop with a malformed body (stopped anyway)');
        const trip = (req as Stopped).estop;
        // The stop happened before the body was read; its reason follows as a second event on the same trip.
        if (reason !== undefined && trip && !statedStopReason(d, trip, reason, stopSource(requirePrincipal(req), 'REST')))
          req.log.warn({ reason, trip: trip.id }, 'the e-stop was reset before its reason arrived');
        return reply.code(202).send({
          accepted: true,
          action: 'heat_off_all',
          ...(reason ? { reason } : {}),
          ...(body.warnings.length > 0 ? { warnings: body.warnings } : {}),
          ...safetyState(d),
          trip: (req as Stopped).estop,
        });
      },
    );
  });

  http.get(`${PREFIX}/safety`, { config: { scope: 'read' } }, async () => safetyState(d));

  http.post(
    `${PREFIX}/safety/reset`,
    {
      config: { idempotency: 'required' },
      schema: { body: { type: 'object', additionalProperties: false, properties: { note: { type: 'string', maxLength: 300 } } } },
    },
    async (req) => {
      const p = requirePrincipal(req);
      const as = resetAuthority(d, p);
      if (!d.supervisor.status().latched) return safetyState(d);
      const by = `${p.kind} ${p.name} (token ${p.id}, ${as})`;
      req.log.warn({ by, trip: d.supervisor.status().trip?.id }, 'safety stop reset requested');
      if (!d.supervisor.reset(by)) {
        throw new ProblemError(
          'conflict',
          'the safety stop cannot be reset yet: release the emergency-stop button once the area is safe',
          safetyState(d),
        );
      }
      return safetyState(d);
    },
  );
}
